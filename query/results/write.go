package results

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
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
)

// ContentType returns the media type of a format.
func (f Format) ContentType() string {
	switch f {
	case JSON:
		return "application/sparql-results+json"
	case XML:
		return "application/sparql-results+xml"
	case CSV:
		return "text/csv; charset=utf-8"
	case TSV:
		return "text/tab-separated-values; charset=utf-8"
	case NTriples:
		return "application/n-triples"
	case Turtle:
		return "text/turtle"
	}
	return "text/plain; charset=utf-8"
}

// SolutionWriter streams a SELECT result: Begin once with the variable
// names (without '?'), Row per solution (one term per variable, the zero
// kb.Term for unbound), then End. ASK results use WriteBoolean instead.
type SolutionWriter interface {
	Begin(vars []string) error
	Row(row []kb.Term) error
	End() error
	// WriteBoolean writes a complete ASK result.
	WriteBoolean(b bool) error
}

// NewSolutionWriter returns a writer for f (json, xml, csv, tsv, table).
func NewSolutionWriter(w io.Writer, f Format) (SolutionWriter, error) {
	bw := bufio.NewWriter(w)
	switch f {
	case JSON:
		return &jsonWriter{w: bw}, nil
	case XML:
		return &xmlWriter{w: bw}, nil
	case CSV:
		return &csvWriter{w: bw}, nil
	case TSV:
		return &tsvWriter{w: bw}, nil
	case Table:
		return &tableWriter{w: bw}, nil
	}
	return nil, fmt.Errorf("results: unsupported result format %q", f)
}

// ---- JSON (SPARQL 1.1 Query Results JSON Format) ----

type jsonWriter struct {
	w    *bufio.Writer
	vars []string
	n    int
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (j *jsonWriter) Begin(vars []string) error {
	j.vars = vars
	j.w.WriteString(`{"head":{"vars":[`)
	for i, v := range vars {
		if i > 0 {
			j.w.WriteByte(',')
		}
		j.w.WriteString(jsonString(v))
	}
	j.w.WriteString("]},\"results\":{\"bindings\":[")
	return nil
}

func (j *jsonWriter) Row(row []kb.Term) error {
	if j.n > 0 {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.WriteString("\n{")
	first := true
	for i, t := range row {
		if t.IsZero() {
			continue
		}
		if !first {
			j.w.WriteByte(',')
		}
		first = false
		j.w.WriteString(jsonString(j.vars[i]))
		j.w.WriteByte(':')
		writeJSONTerm(j.w, t)
	}
	j.w.WriteByte('}')
	return nil
}

func writeJSONTerm(w *bufio.Writer, t kb.Term) {
	switch t.Kind {
	case kb.KindIRI:
		w.WriteString(`{"type":"uri","value":` + jsonString(t.Value) + "}")
	case kb.KindBlank:
		w.WriteString(`{"type":"bnode","value":` + jsonString(t.Value) + "}")
	default:
		w.WriteString(`{"type":"literal","value":` + jsonString(t.Value))
		switch {
		case t.Lang != "":
			w.WriteString(`,"xml:lang":` + jsonString(t.Lang))
		case t.Datatype != "" && t.Datatype != kb.XSDString:
			w.WriteString(`,"datatype":` + jsonString(t.Datatype))
		}
		w.WriteByte('}')
	}
}

func (j *jsonWriter) End() error {
	j.w.WriteString("\n]}}\n")
	return j.w.Flush()
}

func (j *jsonWriter) WriteBoolean(b bool) error {
	fmt.Fprintf(j.w, "{\"head\":{},\"boolean\":%t}\n", b)
	return j.w.Flush()
}

// ---- XML (SPARQL Query Results XML Format) ----

type xmlWriter struct {
	w    *bufio.Writer
	vars []string
}

const xmlHeader = `<?xml version="1.0"?>` + "\n" + `<sparql xmlns="http://www.w3.org/2005/sparql-results#">` + "\n"

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func (x *xmlWriter) Begin(vars []string) error {
	x.vars = vars
	x.w.WriteString(xmlHeader + "  <head>\n")
	for _, v := range vars {
		x.w.WriteString(`    <variable name="` + xmlEscape(v) + "\"/>\n")
	}
	x.w.WriteString("  </head>\n  <results>\n")
	return nil
}

func (x *xmlWriter) Row(row []kb.Term) error {
	x.w.WriteString("    <result>\n")
	for i, t := range row {
		if t.IsZero() {
			continue
		}
		x.w.WriteString(`      <binding name="` + xmlEscape(x.vars[i]) + `">`)
		switch t.Kind {
		case kb.KindIRI:
			x.w.WriteString("<uri>" + xmlEscape(t.Value) + "</uri>")
		case kb.KindBlank:
			x.w.WriteString("<bnode>" + xmlEscape(t.Value) + "</bnode>")
		default:
			switch {
			case t.Lang != "":
				x.w.WriteString(`<literal xml:lang="` + xmlEscape(t.Lang) + `">`)
			case t.Datatype != "" && t.Datatype != kb.XSDString:
				x.w.WriteString(`<literal datatype="` + xmlEscape(t.Datatype) + `">`)
			default:
				x.w.WriteString("<literal>")
			}
			x.w.WriteString(xmlEscape(t.Value) + "</literal>")
		}
		x.w.WriteString("</binding>\n")
	}
	x.w.WriteString("    </result>\n")
	return nil
}

func (x *xmlWriter) End() error {
	x.w.WriteString("  </results>\n</sparql>\n")
	return x.w.Flush()
}

func (x *xmlWriter) WriteBoolean(b bool) error {
	fmt.Fprintf(x.w, "%s  <head/>\n  <boolean>%t</boolean>\n</sparql>\n", xmlHeader, b)
	return x.w.Flush()
}

// ---- CSV (SPARQL 1.1 Query Results CSV) ----

type csvWriter struct{ w *bufio.Writer }

func csvField(s string) string {
	if strings.ContainsAny(s, "\",\r\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func (c *csvWriter) Begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			c.w.WriteByte(',')
		}
		c.w.WriteString(csvField(v))
	}
	c.w.WriteString("\r\n")
	return nil
}

func (c *csvWriter) Row(row []kb.Term) error {
	for i, t := range row {
		if i > 0 {
			c.w.WriteByte(',')
		}
		switch t.Kind {
		case 0:
		case kb.KindBlank:
			c.w.WriteString("_:" + t.Value)
		default:
			c.w.WriteString(csvField(t.Value))
		}
	}
	c.w.WriteString("\r\n")
	return nil
}

func (c *csvWriter) End() error { return c.w.Flush() }

func (c *csvWriter) WriteBoolean(b bool) error {
	fmt.Fprintf(c.w, "_askResult\r\n%t\r\n", b)
	return c.w.Flush()
}

// ---- TSV ----

type tsvWriter struct{ w *bufio.Writer }

func (t *tsvWriter) Begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		t.w.WriteString("?" + v)
	}
	t.w.WriteByte('\n')
	return nil
}

// TSVTerm renders a term as in the TSV results format (Turtle-style).
func TSVTerm(t kb.Term) string {
	if t.Kind == kb.KindLiteral && t.Lang == "" {
		switch t.Datatype {
		case "http://www.w3.org/2001/XMLSchema#integer":
			if isPlainInteger(t.Value) {
				return t.Value
			}
		}
	}
	return t.String()
}

func isPlainInteger(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c >= '0' && c <= '9' || i == 0 && (c == '-' || c == '+') && len(s) > 1) {
			return false
		}
	}
	return true
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
	t.w.WriteByte('\n')
	return nil
}

func (t *tsvWriter) End() error { return t.w.Flush() }

func (t *tsvWriter) WriteBoolean(b bool) error {
	fmt.Fprintf(t.w, "?_askResult\n%t\n", b)
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

// ---- graphs ----

// WriteGraph writes triples as N-Triples or (grouped by subject) Turtle.
func WriteGraph(w io.Writer, f Format, triples []kb.Triple) error {
	bw := bufio.NewWriter(w)
	switch f {
	case NTriples, "":
		for _, t := range triples {
			bw.WriteString(t.S.String() + " " + t.P.String() + " " + t.O.String() + " .\n")
		}
	case Turtle:
		sorted := append([]kb.Triple(nil), triples...)
		sort.SliceStable(sorted, func(i, j int) bool {
			if sorted[i].S != sorted[j].S {
				return sorted[i].S.String() < sorted[j].S.String()
			}
			return sorted[i].P.String() < sorted[j].P.String()
		})
		for i, t := range sorted {
			switch {
			case i > 0 && sorted[i-1].S == t.S && sorted[i-1].P == t.P:
				bw.WriteString(" ,\n        " + t.O.String())
			case i > 0 && sorted[i-1].S == t.S:
				bw.WriteString(" ;\n    " + t.P.String() + " " + t.O.String())
			default:
				if i > 0 {
					bw.WriteString(" .\n")
				}
				bw.WriteString(t.S.String() + " " + t.P.String() + " " + t.O.String())
			}
		}
		if len(sorted) > 0 {
			bw.WriteString(" .\n")
		}
	default:
		return fmt.Errorf("results: unsupported graph format %q", f)
	}
	return bw.Flush()
}
