package federation

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/results"
)

// A site's answer is read row by row, not decoded whole into a document
// tree: each row is charged to the query's memory budget before it is
// kept, so an answer larger than the budget fails with the budget's
// *LimitError after about the budget's worth of rows, and the call's
// context is checked as rows arrive, so decoding stops with the request
// even when the rest of the answer is already buffered.

// ctxCheckRows is how many rows are decoded between two context checks.
const ctxCheckRows = 64

// rowReader collects the rows of one answer.
type rowReader struct {
	ctx    context.Context
	charge func(int64) error // nil: uncharged
	rs     results.ResultSet
	index  map[string]int
	n      int
}

func newRowReader(ctx context.Context, charge func(int64) error) *rowReader {
	return &rowReader{ctx: ctx, charge: charge, index: map[string]int{}}
}

// termHeader is the part of a kb.Term held inline in a row.
const termHeader = int64(unsafe.Sizeof(kb.Term{}))

// answerRowBytes estimates the heap a decoded row takes: the slice, the
// terms and their strings.
func answerRowBytes(row []kb.Term) int64 {
	n := int64(24 + 16)
	for _, t := range row {
		n += termHeader + int64(len(t.Value)+len(t.Datatype)+len(t.Lang))
	}
	return n
}

// declare adds variable names (the answer's head), keeping the order
// rows already use.
func (r *rowReader) declare(name string) int {
	if i, ok := r.index[name]; ok {
		return i
	}
	i := len(r.rs.Vars)
	r.index[name] = i
	r.rs.Vars = append(r.rs.Vars, name)
	for j := range r.rs.Rows {
		r.rs.Rows[j] = append(r.rs.Rows[j], kb.Term{})
	}
	return i
}

// add keeps a decoded row after charging it.
func (r *rowReader) add(row []kb.Term) error {
	r.n++
	if r.n%ctxCheckRows == 0 {
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	if r.charge != nil {
		if err := r.charge(answerRowBytes(row)); err != nil {
			return err
		}
	}
	r.rs.Rows = append(r.rs.Rows, row)
	return nil
}

// pad extends row to the current variables.
func (r *rowReader) pad(row []kb.Term) []kb.Term {
	for len(row) < len(r.rs.Vars) {
		row = append(row, kb.Term{})
	}
	return row
}

// readAnswer reads a SPARQL results document by its media type, sniffing
// the first byte when the type is missing or generic.
func readAnswer(ctx context.Context, contentType string, r io.Reader, charge func(int64) error) (*results.ResultSet, error) {
	rr := newRowReader(ctx, charge)
	var format results.Format
	if spec, ok := results.ByMediaType(contentType); ok {
		format = spec.Format
	}
	var err error
	switch format {
	case results.JSON:
		err = rr.readJSON(r)
	case results.XML:
		err = rr.readXML(r)
	case results.TSV:
		err = rr.readTSV(r)
	case results.CSV:
		err = rr.readCSV(r)
	default:
		br := bufio.NewReader(r)
		for {
			b, rerr := br.ReadByte()
			if rerr != nil {
				return nil, fmt.Errorf("empty answer (Content-Type %q)", contentType)
			}
			if !strings.ContainsRune(" \t\r\n", rune(b)) {
				_ = br.UnreadByte()
				if b == '<' {
					err = rr.readXML(br)
				} else {
					err = rr.readJSON(br)
				}
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return &rr.rs, nil
}

// jsonTerm is one binding of the JSON results format.
type jsonTerm struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Lang     string `json:"xml:lang"`
	Datatype string `json:"datatype"`
}

func answerLiteral(value, datatype, lang string) kb.Term {
	if lang != "" {
		return kb.LangLiteral(value, lang)
	}
	return kb.Literal(value, datatype)
}

// readJSON reads SPARQL 1.1 Query Results JSON one binding object at a
// time; head and results may come in either order.
func (r *rowReader) readJSON(in io.Reader) error {
	dec := json.NewDecoder(in)
	wrap := func(err error) error {
		if (r.ctx.Err() != nil && errors.Is(err, r.ctx.Err())) || errors.Is(err, eval.ErrLimit) {
			return err
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// A streaming decoder's SyntaxError offset is relative to
			// its buffer, not to the answer: %v leaves the position to
			// the bytes read so far (Client.do).
			return fmt.Errorf("results: reading JSON: %v", err)
		}
		return fmt.Errorf("results: reading JSON: %w", err)
	}
	if err := expectDelim(dec, '{'); err != nil {
		return wrap(err)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return wrap(err)
		}
		switch key {
		case "head":
			var head struct {
				Vars []string `json:"vars"`
			}
			if err := dec.Decode(&head); err != nil {
				return wrap(err)
			}
			r.headFirst(head.Vars)
		case "boolean":
			var b *bool
			if err := dec.Decode(&b); err != nil {
				return wrap(err)
			}
			r.rs.Boolean = b
		case "results":
			if err := r.readJSONResults(dec); err != nil {
				return wrap(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return wrap(err)
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return wrap(err)
	}
	return nil
}

// headFirst puts the head's variables first, in the head's order, with
// any variable rows bound before the head came after them.
func (r *rowReader) headFirst(vars []string) {
	if len(r.rs.Rows) == 0 && len(r.rs.Vars) == 0 {
		for _, v := range vars {
			r.declare(v)
		}
		return
	}
	order := append([]string(nil), vars...)
	seen := map[string]bool{}
	for _, v := range vars {
		seen[v] = true
	}
	for _, v := range r.rs.Vars {
		if !seen[v] {
			order = append(order, v)
		}
	}
	old := r.index
	r.index = map[string]int{}
	r.rs.Vars = nil
	for _, v := range order {
		r.declare(v)
	}
	for j, row := range r.rs.Rows {
		nr := make([]kb.Term, len(order))
		for name, i := range old {
			if i < len(row) {
				nr[r.index[name]] = row[i]
			}
		}
		r.rs.Rows[j] = nr
	}
}

func (r *rowReader) readJSONResults(dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key != "bindings" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return err
		}
		for dec.More() {
			var b map[string]jsonTerm
			if err := dec.Decode(&b); err != nil {
				return err
			}
			row := make([]kb.Term, len(r.rs.Vars))
			for name, v := range b {
				i := r.declare(name)
				row = r.pad(row)
				switch v.Type {
				case "uri":
					row[i] = kb.IRI(v.Value)
				case "bnode":
					row[i] = kb.Blank(v.Value)
				case "literal", "typed-literal":
					row[i] = answerLiteral(v.Value, v.Datatype, v.Lang)
				default:
					return fmt.Errorf("unknown JSON term type %q", v.Type)
				}
			}
			if err := r.add(r.pad(row)); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("expected %q at byte %d, found %v", rune(d), dec.InputOffset(), t)
	}
	return nil
}

// xmlResult is one <result> of the XML results format.
type xmlResult struct {
	Bindings []struct {
		Name    string  `xml:"name,attr"`
		URI     *string `xml:"uri"`
		BNode   *string `xml:"bnode"`
		Literal *struct {
			Value    string `xml:",chardata"`
			Lang     string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
			Datatype string `xml:"datatype,attr"`
		} `xml:"literal"`
	} `xml:"binding"`
}

// readXML reads the SPARQL Query Results XML Format one <result> at a
// time.
func (r *rowReader) readXML(in io.Reader) error {
	dec := xml.NewDecoder(in)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("results: reading XML: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "variable":
			for _, a := range se.Attr {
				if a.Name.Local == "name" {
					r.declare(a.Value)
				}
			}
		case "boolean":
			var s string
			if err := dec.DecodeElement(&s, &se); err != nil {
				return fmt.Errorf("results: reading XML: %w", err)
			}
			b := strings.TrimSpace(s) == "true"
			r.rs.Boolean = &b
		case "result":
			var res xmlResult
			if err := dec.DecodeElement(&res, &se); err != nil {
				return fmt.Errorf("results: reading XML: %w", err)
			}
			row := make([]kb.Term, len(r.rs.Vars))
			for _, b := range res.Bindings {
				i, ok := r.index[b.Name]
				if !ok {
					return fmt.Errorf("results: binding of undeclared variable %q", b.Name)
				}
				switch {
				case b.URI != nil:
					row[i] = kb.IRI(strings.TrimSpace(*b.URI))
				case b.BNode != nil:
					row[i] = kb.Blank(strings.TrimSpace(*b.BNode))
				case b.Literal != nil:
					row[i] = answerLiteral(b.Literal.Value, b.Literal.Datatype, b.Literal.Lang)
				}
			}
			if err := r.add(row); err != nil {
				return err
			}
		}
	}
}

// readTSV reads the SPARQL 1.1 TSV results format a line at a time.
func (r *rowReader) readTSV(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		fields := strings.Split(text, "\t")
		if line == 1 {
			for _, f := range fields {
				if f = strings.TrimSpace(f); f != "" {
					r.declare(strings.TrimLeft(f, "?$"))
				}
			}
			continue
		}
		if text == "" && len(r.rs.Vars) != 1 {
			continue
		}
		row := make([]kb.Term, len(r.rs.Vars))
		for i, f := range fields {
			if i >= len(row) {
				break
			}
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			t, err := results.ParseTerm(f)
			if err != nil {
				return fmt.Errorf("results: TSV line %d column %d: %w", line, i+1, err)
			}
			row[i] = t
		}
		if err := r.add(row); err != nil {
			return err
		}
	}
	return sc.Err()
}

// readCSV reads the SPARQL 1.1 CSV results format. Its quoting lets a
// record span lines, so the document is read whole by results.ReadCSV,
// with the bytes charged as they arrive (the text is held while parsing).
func (r *rowReader) readCSV(in io.Reader) error {
	rs, err := results.ReadCSV(&chargingReader{r: in, charge: r.charge, ctx: r.ctx})
	if err != nil {
		return err
	}
	for _, v := range rs.Vars {
		r.declare(v)
	}
	for _, row := range rs.Rows {
		if err := r.add(r.pad(row)); err != nil {
			return err
		}
	}
	return nil
}

// chargingReader charges every byte it reads.
type chargingReader struct {
	ctx    context.Context
	r      io.Reader
	charge func(int64) error
}

func (c *chargingReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(b)
	if n > 0 && c.charge != nil {
		if cerr := c.charge(int64(n)); cerr != nil {
			return 0, cerr
		}
	}
	return n, err
}
