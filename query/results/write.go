package results

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb/rdfio"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Format names a result serialization.
type Format string

// The result formats.
const (
	JSON     Format = "json"
	XML      Format = "xml"
	CSV      Format = "csv"
	TSV      Format = "tsv"
	Table    Format = "table"
	NTriples Format = "ntriples"
	Turtle   Format = "turtle"
	NQuads   Format = "nquads"
	RDFXML   Format = "rdfxml"
)

// SolutionWriter streams a SELECT result: Begin once with the variable
// names (without '?'), Row per solution (one term per variable, the zero
// kb.Term for unbound), then End. ASK results use WriteBoolean instead.
// End and WriteBoolean flush; an error from the underlying writer is
// returned by the call that meets it.
//
// These writers are the only SPARQL results encoder in perfkb: the CLI
// (perfkb query --format) and the HTTP server (/sparql) both write through
// them, so the two give the same bytes for the same result.
type SolutionWriter interface {
	Begin(vars []string) error
	Row(row []kb.Term) error
	End() error
	// WriteBoolean writes a complete ASK result.
	WriteBoolean(b bool) error
}

// HeadExtender is implemented by the JSON writer: AddHeadMember adds a
// member to the result's "head" object after "vars" (the server reports
// federation outcomes there). value must be valid JSON; call it before
// Begin.
type HeadExtender interface {
	AddHeadMember(name string, value []byte)
}

// NewSolutionWriter returns a writer for f (json, xml, csv, tsv, table). A
// *bufio.Writer of at least 4 KiB is written to directly, not wrapped.
func NewSolutionWriter(w io.Writer, f Format) (SolutionWriter, error) {
	if s, ok := Lookup(string(f)); ok && s.Format == f {
		return s.newWriter(bufio.NewWriter(w)), nil
	}
	return nil, fmt.Errorf("results: unsupported result format %q", f)
}

// ---- JSON (SPARQL 1.1 Query Results JSON Format) ----

// jsonWriter writes one binding object per line, building each line in a
// reused buffer.
type jsonWriter struct {
	w     *bufio.Writer
	vars  []string
	n     int
	buf   []byte
	extra []byte // more members of head: ,"name":value
}

func (j *jsonWriter) AddHeadMember(name string, value []byte) {
	j.extra = append(j.extra, ',')
	j.extra = rdfio.AppendJSONString(j.extra, name)
	j.extra = append(j.extra, ':')
	j.extra = append(j.extra, value...)
}

func (j *jsonWriter) Begin(vars []string) error {
	j.vars = vars
	b := append(j.buf[:0], `{"head":{"vars":[`...)
	for i, v := range vars {
		if i > 0 {
			b = append(b, ',')
		}
		b = rdfio.AppendJSONString(b, v)
	}
	b = append(b, ']')
	b = append(b, j.extra...)
	b = append(b, "},\"results\":{\"bindings\":[\n"...)
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonWriter) Row(row []kb.Term) error {
	b := j.buf[:0]
	if j.n > 0 {
		b = append(b, ",\n"...)
	}
	j.n++
	b = append(b, '{')
	n := 0
	for i, t := range row {
		if t.IsZero() || i >= len(j.vars) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = rdfio.AppendJSONString(b, j.vars[i])
		b = append(b, ':')
		b = AppendJSONTerm(b, t)
	}
	b = append(b, '}')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonWriter) End() error {
	if _, err := j.w.WriteString("\n]}}\n"); err != nil {
		return err
	}
	return j.w.Flush()
}

func (j *jsonWriter) WriteBoolean(b bool) error {
	if _, err := fmt.Fprintf(j.w, "{\"head\":{%s},\"boolean\":%t}\n", strings.TrimPrefix(string(j.extra), ","), b); err != nil {
		return err
	}
	return j.w.Flush()
}

// AppendJSONTerm appends t as a SPARQL JSON RDF term object. xsd:string
// literals are written without a datatype, as simple literals.
func AppendJSONTerm(b []byte, t kb.Term) []byte {
	switch t.Kind {
	case kb.KindIRI:
		b = append(b, `{"type":"uri","value":`...)
		b = rdfio.AppendJSONString(b, t.Value)
	case kb.KindBlank:
		b = append(b, `{"type":"bnode","value":`...)
		b = rdfio.AppendJSONString(b, t.Value)
	case kb.KindTriple:
		b = appendJSONTriple(b, t)
	default:
		b = append(b, `{"type":"literal","value":`...)
		b = rdfio.AppendJSONString(b, t.Value)
		switch {
		case t.Lang != "":
			b = append(b, `,"xml:lang":`...)
			b = rdfio.AppendJSONString(b, t.Language())
			if dir := t.Direction(); dir != "" {
				b = append(b, `,"its:dir":`...)
				b = rdfio.AppendJSONString(b, dir)
			}
		case t.Datatype != "" && t.Datatype != ontology.XSDString:
			b = append(b, `,"datatype":`...)
			b = rdfio.AppendJSONString(b, t.Datatype)
		}
	}
	return append(b, '}')
}

// ---- XML (SPARQL Query Results XML Format) ----

// xmlWriter writes one <result> element per line.
type xmlWriter struct {
	w    *bufio.Writer
	vars []string
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>
<sparql xmlns="http://www.w3.org/2005/sparql-results#">
`

// xmlEscape writes s as XML character data (also safe in attributes).
func xmlEscape(w *bufio.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s))
}

func (x *xmlWriter) Begin(vars []string) error {
	x.vars = vars
	x.w.WriteString(xmlHeader)
	x.w.WriteString("<head>\n")
	for _, v := range vars {
		x.w.WriteString(`  <variable name="`)
		xmlEscape(x.w, v)
		x.w.WriteString("\"/>\n")
	}
	_, err := x.w.WriteString("</head>\n<results>\n")
	return err
}

func (x *xmlWriter) Row(row []kb.Term) error {
	x.w.WriteString("  <result>")
	for i, t := range row {
		if t.IsZero() || i >= len(x.vars) {
			continue
		}
		x.w.WriteString(`<binding name="`)
		xmlEscape(x.w, x.vars[i])
		x.w.WriteString(`">`)
		writeXMLTerm(x.w, t)
		x.w.WriteString("</binding>")
	}
	_, err := x.w.WriteString("</result>\n")
	return err
}

func writeXMLTerm(w *bufio.Writer, t kb.Term) {
	switch t.Kind {
	case kb.KindIRI:
		w.WriteString("<uri>")
		xmlEscape(w, t.Value)
		w.WriteString("</uri>")
	case kb.KindBlank:
		w.WriteString("<bnode>")
		xmlEscape(w, t.Value)
		w.WriteString("</bnode>")
	case kb.KindTriple:
		writeXMLTriple(w, t)
	default:
		switch {
		case t.Lang != "":
			w.WriteString(`<literal xml:lang="`)
			xmlEscape(w, t.Language())
			if dir := t.Direction(); dir != "" {
				w.WriteString(`" xmlns:its="` + itsNS + `" its:dir="`)
				xmlEscape(w, dir)
			}
			w.WriteString(`">`)
		case t.Datatype != "" && t.Datatype != ontology.XSDString:
			w.WriteString(`<literal datatype="`)
			xmlEscape(w, t.Datatype)
			w.WriteString(`">`)
		default:
			w.WriteString("<literal>")
		}
		xmlEscape(w, t.Value)
		w.WriteString("</literal>")
	}
}

func (x *xmlWriter) End() error {
	if _, err := x.w.WriteString("</results>\n</sparql>\n"); err != nil {
		return err
	}
	return x.w.Flush()
}

func (x *xmlWriter) WriteBoolean(b bool) error {
	x.w.WriteString(xmlHeader)
	if _, err := fmt.Fprintf(x.w, "<head/>\n<boolean>%t</boolean>\n</sparql>\n", b); err != nil {
		return err
	}
	return x.w.Flush()
}

// ---- CSV (SPARQL 1.1 Query Results CSV Format) ----

// csvWriter writes plain values (lexical forms, IRIs, _:labels) with CRLF
// line ends, quoting fields per RFC 4180.
type csvWriter struct{ w *bufio.Writer }

func csvField(w *bufio.Writer, s string) {
	if !strings.ContainsAny(s, ",\"\r\n") {
		w.WriteString(s)
		return
	}
	w.WriteByte('"')
	w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	w.WriteByte('"')
}

func (c *csvWriter) Begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			c.w.WriteByte(',')
		}
		csvField(c.w, v)
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c *csvWriter) Row(row []kb.Term) error {
	for i, t := range row {
		if i > 0 {
			c.w.WriteByte(',')
		}
		switch t.Kind {
		case 0:
		case kb.KindBlank:
			csvField(c.w, "_:"+t.Value)
		case kb.KindTriple:
			// CSV has no form of its own for a triple term: N-Triples.
			csvField(c.w, t.String())
		default:
			csvField(c.w, t.Value)
		}
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c *csvWriter) End() error { return c.w.Flush() }

func (c *csvWriter) WriteBoolean(b bool) error {
	if _, err := fmt.Fprintf(c.w, "_askResult\r\n%t\r\n", b); err != nil {
		return err
	}
	return c.w.Flush()
}

// ---- TSV (SPARQL 1.1 Query Results TSV Format) ----

// tsvWriter writes ?-prefixed variables and terms in Turtle syntax.
type tsvWriter struct{ w *bufio.Writer }

func (t *tsvWriter) Begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		t.w.WriteByte('?')
		t.w.WriteString(v)
	}
	_, err := t.w.WriteString("\n")
	return err
}

const xsd = ontology.XSDNamespace

// TSVTerm renders a term as the TSV results format does: in Turtle
// syntax, with the single-quoted literal forms only (escapes \t, \n, \r
// keep a term on its line). An xsd:integer, xsd:decimal or xsd:double whose
// lexical form is a Turtle INTEGER, DECIMAL or DOUBLE token is written as
// that bare token (4, 5.5, 1.0E6), as the W3C csv-tsv-res results do;
// Turtle reads the token back as the same literal, lexical form included.
// Other literals, such as "01"^^xsd:int or "+1"^^xsd:negativeInteger, keep
// the quoted form.
func TSVTerm(t kb.Term) string {
	if t.Kind == kb.KindLiteral && t.Lang == "" && len(t.Datatype) > len(xsd) && t.Datatype[:len(xsd)] == xsd {
		ok := false
		switch t.Datatype[len(xsd):] {
		case "integer":
			ok = turtleInteger(t.Value)
		case "decimal":
			ok = turtleDecimal(t.Value)
		case "double":
			ok = turtleDouble(t.Value)
		}
		if ok {
			return t.Value
		}
	}
	return t.String()
}

// digits returns the length of the run of ASCII digits at the start of s.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func sign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// turtleInteger: [+-]? [0-9]+
func turtleInteger(s string) bool {
	s = sign(s)
	return s != "" && digits(s) == len(s)
}

// turtleDecimal: [+-]? [0-9]* '.' [0-9]+
func turtleDecimal(s string) bool {
	s = sign(s)
	s = s[digits(s):]
	if s == "" || s[0] != '.' {
		return false
	}
	s = s[1:]
	return s != "" && digits(s) == len(s)
}

// turtleDouble: [+-]? ([0-9]+ '.' [0-9]* EXPONENT | '.' [0-9]+ EXPONENT |
// [0-9]+ EXPONENT), EXPONENT: [eE] [+-]? [0-9]+
func turtleDouble(s string) bool {
	s = sign(s)
	mant := digits(s)
	s = s[mant:]
	if s != "" && s[0] == '.' {
		s = s[1:]
		frac := digits(s)
		s = s[frac:]
		mant += frac
	}
	if mant == 0 || s == "" || s[0] != 'e' && s[0] != 'E' {
		return false
	}
	s = sign(s[1:])
	return s != "" && digits(s) == len(s)
}

func (t *tsvWriter) Row(row []kb.Term) error {
	for i, term := range row {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		if !term.IsZero() {
			t.w.WriteString(TSVTerm(term))
		}
	}
	_, err := t.w.WriteString("\n")
	return err
}

func (t *tsvWriter) End() error { return t.w.Flush() }

func (t *tsvWriter) WriteBoolean(b bool) error {
	if _, err := fmt.Fprintf(t.w, "?_askResult\n%t\n", b); err != nil {
		return err
	}
	return t.w.Flush()
}

// ---- table for terminals ----

// tableWriter buffers rows to size the columns; it is for humans, so the
// buffering is acceptable (use a streaming format for large results).
type tableWriter struct {
	w    *bufio.Writer
	vars []string
	rows [][]string
}

func (t *tableWriter) Begin(vars []string) error { t.vars = vars; return nil }

func (t *tableWriter) Row(row []kb.Term) error {
	cells := make([]string, len(row))
	for i, term := range row {
		if !term.IsZero() {
			cells[i] = term.String()
		}
	}
	t.rows = append(t.rows, cells)
	return nil
}

func (t *tableWriter) End() error {
	widths := make([]int, len(t.vars))
	for i, v := range t.vars {
		widths[i] = utf8.RuneCountInString(v) + 1
	}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func() {
		for _, w := range widths {
			t.w.WriteString("+" + strings.Repeat("-", w+2))
		}
		t.w.WriteString("+\n")
	}
	cellRow := func(cells []string) {
		for i, c := range cells {
			t.w.WriteString("| " + c + strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)) + " ")
		}
		t.w.WriteString("|\n")
	}
	line()
	head := make([]string, len(t.vars))
	for i, v := range t.vars {
		head[i] = "?" + v
	}
	cellRow(head)
	line()
	for _, r := range t.rows {
		cellRow(r)
	}
	line()
	fmt.Fprintf(t.w, "%d row(s)\n", len(t.rows))
	return t.w.Flush()
}

func (t *tableWriter) WriteBoolean(b bool) error {
	fmt.Fprintf(t.w, "%t\n", b)
	return t.w.Flush()
}
