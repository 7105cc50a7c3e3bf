package results

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
	"github.com/perfkb/perfkb/kb/rdfio"
)

// ReadOptions make a reader account for what it decodes. Every reader
// decodes a document row by row, never into a whole document tree, so an
// answer larger than a caller's budget fails after about the budget's worth
// of rows (a federated site's answer, charged to the query's memory).
type ReadOptions struct {
	// Context, when set, is checked every 64 rows: reading stops with
	// the request even when the rest of the document is already buffered.
	Context context.Context
	// Charge, when set, is called with each decoded row's estimated heap
	// size before the row is kept (and, for CSV, whose quoting makes it be
	// read whole, with the bytes of the text as they are read); its error
	// stops reading and is returned unchanged.
	Charge func(bytes int64) error
	// CountOnly reads and checks every row as strictly as always but
	// keeps none: Rows stays empty, Count says how many there were, Vars
	// are the head's, and each row is charged 0 bytes (nothing is held;
	// Charge still sees every row). For a
	// caller that needs only how many rows there are (COUNT(*) over a
	// federated site's answer), it is the document's decoding without
	// its allocations.
	CountOnly bool
}

// ErrEmptyDocument is Read's error for a document of white space only
// whose format it had to sniff.
var ErrEmptyDocument = errors.New("results: empty document")

// Read decodes a SELECT or ASK results document in format f. An empty
// or unknown f sniffs the document: XML when it starts with '<', JSON
// otherwise.
func Read(r io.Reader, f Format, opts ReadOptions) (*ResultSet, error) {
	rr := &rowReader{ctx: opts.Context, charge: opts.Charge, index: map[string]int{}, countOnly: opts.CountOnly}
	rr.plain.countOnly = opts.CountOnly
	var err error
	switch f {
	case JSON:
		err = rr.readJSON(r)
	case XML:
		err = rr.readXML(r)
	case TSV:
		err = rr.readTSV(r)
	case CSV:
		err = rr.readCSV(r)
	default:
		br := bufio.NewReader(r)
		for {
			b, rerr := br.ReadByte()
			if rerr != nil {
				return nil, ErrEmptyDocument
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

// ContextCheckRows is how many rows are decoded between two checks of
// ReadOptions.Context.
const ContextCheckRows = 64

// rowReader collects the rows of one document.
type rowReader struct {
	ctx    context.Context   // nil: not checked
	charge func(int64) error // nil: uncharged
	// stop is the error of ctx or charge that ended reading, returned
	// as it is rather than as a syntax error.
	stop  error
	rs    ResultSet
	index map[string]int
	n     int
	// countOnly keeps no terms (ReadOptions.CountOnly).
	countOnly bool
	plain     plainDecoder
}

// termHeader is the part of a kb.Term held inline in a row.
const termHeader = int64(unsafe.Sizeof(kb.Term{}))

// RowBytes estimates the heap a decoded row takes: the slice, the terms
// and their strings.
func RowBytes(row []kb.Term) int64 {
	n := int64(24 + 16)
	for _, t := range row {
		n += termHeader + int64(len(t.Value)+len(t.Datatype)+len(t.Lang))
	}
	return n
}

// declare adds a variable name, keeping the order rows already use.
func (r *rowReader) declare(name string) int {
	if i, ok := r.index[name]; ok {
		return i
	}
	i := len(r.rs.Vars)
	r.index[name] = i
	r.rs.Vars = append(r.rs.Vars, name)
	if !r.countOnly {
		for j := range r.rs.Rows {
			r.rs.Rows[j] = append(r.rs.Rows[j], kb.Term{})
		}
	}
	return i
}

// declareBytes is declare for a name read in place.
func (r *rowReader) declareBytes(name []byte) int {
	if i, ok := r.index[string(name)]; ok {
		return i
	}
	return r.declare(string(name))
}

// add keeps a decoded row after charging it.
func (r *rowReader) add(row []kb.Term) error {
	r.n++
	if r.ctx != nil && r.n%ContextCheckRows == 0 {
		if err := r.ctx.Err(); err != nil {
			r.stop = err
			return err
		}
	}
	if r.countOnly {
		// Nothing is held, but the charge hook is also where a caller
		// paces the reading (a server's run slots): it still sees
		// every row.
		if r.charge != nil {
			if err := r.charge(0); err != nil {
				r.stop = err
				return err
			}
		}
		r.rs.Count++
		return nil
	}
	if r.charge != nil {
		if err := r.charge(RowBytes(row)); err != nil {
			r.stop = err
			return err
		}
	}
	r.rs.Rows = append(r.rs.Rows, row)
	r.rs.Count++
	return nil
}

// pad extends row to the current variables.
func (r *rowReader) pad(row []kb.Term) []kb.Term {
	for len(row) < len(r.rs.Vars) {
		row = append(row, kb.Term{})
	}
	return row
}

// readJSON reads SPARQL 1.1 Query Results JSON one binding object at a
// time; head and results may come in either order.
func (r *rowReader) readJSON(in io.Reader) error {
	dec := json.NewDecoder(in)
	wrap := func(err error) error {
		if r.stop != nil && errors.Is(err, r.stop) {
			return err
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// A streaming decoder's SyntaxError offset is relative to
			// its buffer, not to the document: %v leaves the position
			// to the caller, who knows the bytes read so far.
			return fmt.Errorf("results: reading JSON: %v", err)
		}
		if strings.HasPrefix(err.Error(), "results: ") {
			return err
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
			if dec, in, err = r.readJSONResults(dec, in); err != nil {
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
// any variable that rows bound before the head came after them.
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
	if r.countOnly {
		return
	}
	for j, row := range r.rs.Rows {
		nr := make([]kb.Term, len(r.rs.Vars))
		for name, i := range old {
			if i < len(row) {
				nr[r.index[name]] = row[i]
			}
		}
		r.rs.Rows[j] = nr
	}
}

// readJSONResults reads the "results" member's object from dec, whose
// input is in, and returns the decoder and input to read the rest of the
// document with: past a bindings array both are new.
func (r *rowReader) readJSONResults(dec *json.Decoder, in io.Reader) (*json.Decoder, io.Reader, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return dec, in, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return dec, in, err
		}
		if key != "bindings" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return dec, in, err
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return dec, in, err
		}
		// The bindings are cut out of the bytes by the splitter; the
		// rest of the document goes on in a decoder over what it left.
		sp := &bindingSplitter{br: bufio.NewReaderSize(io.MultiReader(dec.Buffered(), in), 64<<10), base: dec.InputOffset()}
		in = sp.br
		var raw []byte
		for {
			raw, err = sp.next(raw)
			if err == errBindingsEnd {
				break
			}
			if err != nil {
				return dec, in, err
			}
			if err := r.binding(raw); err != nil {
				return dec, in, err
			}
		}
		// A new decoder cannot start inside two objects: a made-up
		// start puts it there, in the results object after a member.
		dec = json.NewDecoder(io.MultiReader(strings.NewReader(resumeInResults), in))
		for range 5 { // { "" { "" 0
			if _, err := dec.Token(); err != nil {
				return dec, in, err
			}
		}
	}
	return dec, in, expectDelim(dec, '}')
}

// resumeInResults is the made-up start of a document that leaves a
// decoder inside its top-level object and that object's "results" member
// object, after a member of each.
const resumeInResults = `{"":{"":0`

// binding adds the row of one binding object (counting only: checks it).
func (r *rowReader) binding(raw []byte) error {
	var row []kb.Term
	if !r.countOnly {
		row = make([]kb.Term, len(r.rs.Vars))
	}
	keep := func(i int, t kb.Term) {
		row = r.pad(row)
		row[i] = t
	}
	plain, err := r.plain.binding(raw, func(name []byte, t kb.Term) error {
		if !r.countOnly {
			keep(r.declareBytes(name), t)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !plain {
		var b map[string]jsonTerm
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		for name, v := range b {
			t, err := v.term(0)
			if err != nil {
				return err
			}
			if !r.countOnly {
				keep(r.declare(name), t)
			}
		}
	}
	if r.countOnly {
		return r.add(nil)
	}
	return r.add(r.pad(row))
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
		Name string `xml:"name,attr"`
		xmlTerm
	} `xml:"binding"`
}

// readXML reads the SPARQL Query Results XML Format one <result> at a
// time.
func (r *rowReader) readXML(in io.Reader) error {
	dec := xml.NewDecoder(in)
	wrap := func(err error) error {
		if r.stop != nil && errors.Is(err, r.stop) {
			return err
		}
		return fmt.Errorf("results: reading XML: %w", err)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if r.n == 0 && len(r.rs.Vars) == 0 && r.rs.Boolean == nil && dec.InputOffset() == 0 {
				return wrap(io.EOF)
			}
			return nil
		}
		if err != nil {
			return wrap(err)
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
				return wrap(err)
			}
			b := strings.TrimSpace(s) == "true"
			r.rs.Boolean = &b
		case "result":
			var res xmlResult
			if err := dec.DecodeElement(&res, &se); err != nil {
				return wrap(err)
			}
			row := make([]kb.Term, len(r.rs.Vars))
			for _, b := range res.Bindings {
				i, ok := r.index[b.Name]
				if !ok {
					return fmt.Errorf("results: binding of undeclared variable %q", b.Name)
				}
				t, err := b.term(0)
				if err != nil {
					return err
				}
				row[i] = t
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
			t, err := ParseTerm(f)
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
// record span lines, so the document is read whole, with the bytes charged
// as they arrive.
func (r *rowReader) readCSV(in io.Reader) error {
	data, err := io.ReadAll(&chargingReader{r: in, rr: r})
	if err != nil {
		return err
	}
	for n, rec := range parseCSV(string(data)) {
		if n == 0 {
			for _, v := range rec {
				r.declare(v)
			}
			continue
		}
		row := make([]kb.Term, len(r.rs.Vars))
		for i, f := range rec {
			if i >= len(row) || f == "" {
				continue
			}
			switch {
			case strings.HasPrefix(f, "_:"):
				row[i] = kb.Blank(f[2:])
			case strings.HasPrefix(f, "<<("):
				t, err := rdfio.ParseTerm(f)
				if err != nil {
					return fmt.Errorf("results: CSV row %d: %w", n, err)
				}
				row[i] = t
			case strings.Contains(f, "://") || strings.HasPrefix(f, "mailto:") || strings.HasPrefix(f, "urn:"):
				row[i] = kb.IRI(f)
			default:
				row[i] = kb.String(f)
			}
		}
		// The text was charged as it was read; the decoded row is
		// held beside it until the text is dropped.
		if err := r.add(row); err != nil {
			return err
		}
	}
	return nil
}

// chargingReader charges every byte it reads and checks the context.
type chargingReader struct {
	r  io.Reader
	rr *rowReader
}

func (c *chargingReader) Read(b []byte) (int, error) {
	if c.rr.ctx != nil {
		if err := c.rr.ctx.Err(); err != nil {
			c.rr.stop = err
			return 0, err
		}
	}
	n, err := c.r.Read(b)
	if n > 0 && c.rr.charge != nil {
		if cerr := c.rr.charge(int64(n)); cerr != nil {
			c.rr.stop = cerr
			return 0, cerr
		}
	}
	return n, err
}
