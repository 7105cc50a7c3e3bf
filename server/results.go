package server

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
)

// solutionsWriter writes a SELECT or ASK result incrementally.
type solutionsWriter interface {
	begin(vars []string) error
	row(solution []kb.Term) error
	end() error
	boolean(v bool) error
}

func newSolutionsWriter(f Format, w *bufio.Writer) solutionsWriter {
	switch f {
	case FormatXML:
		return &xmlResultsWriter{w: w}
	case FormatCSV:
		return &csvResultsWriter{w: w}
	case FormatTSV:
		return &tsvResultsWriter{w: w}
	}
	return &jsonResultsWriter{w: w}
}

// SPARQL 1.1 Query Results JSON Format.
type jsonResultsWriter struct {
	w     *bufio.Writer
	vars  []string
	first bool
	buf   []byte
	extra []byte // more members of head, e.g. ,"federation":{…} (sites.go)
}

func (j *jsonResultsWriter) begin(vars []string) error {
	j.vars, j.first = vars, true
	j.buf = append(j.buf[:0], `{"head":{"vars":[`...)
	for i, v := range vars {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = appendJSONString(j.buf, v)
	}
	j.buf = append(j.buf, ']')
	j.buf = append(j.buf, j.extra...)
	j.buf = append(j.buf, "},\"results\":{\"bindings\":[\n"...)
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonResultsWriter) row(sol []kb.Term) error {
	b := j.buf[:0]
	if !j.first {
		b = append(b, ",\n"...)
	}
	j.first = false
	b = append(b, '{')
	n := 0
	for i, t := range sol {
		if t.IsZero() || i >= len(j.vars) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendJSONString(b, j.vars[i])
		b = append(b, ':')
		b = appendJSONTerm(b, t)
	}
	b = append(b, '}')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonResultsWriter) end() error {
	_, err := j.w.WriteString("\n]}}\n")
	return err
}

func (j *jsonResultsWriter) boolean(v bool) error {
	_, err := fmt.Fprintf(j.w, "{\"head\":{},\"boolean\":%t}\n", v)
	return err
}

// appendJSONTerm appends a term as a SPARQL JSON RDF term object.
func appendJSONTerm(b []byte, t kb.Term) []byte {
	switch t.Kind {
	case kb.KindIRI:
		b = append(b, `{"type":"uri","value":`...)
		b = appendJSONString(b, t.Value)
	case kb.KindBlank:
		b = append(b, `{"type":"bnode","value":`...)
		b = appendJSONString(b, t.Value)
	default:
		b = append(b, `{"type":"literal","value":`...)
		b = appendJSONString(b, t.Value)
		switch {
		case t.Lang != "":
			b = append(b, `,"xml:lang":`...)
			b = appendJSONString(b, t.Lang)
		case t.Datatype != "" && t.Datatype != kb.XSDString:
			b = append(b, `,"datatype":`...)
			b = appendJSONString(b, t.Datatype)
		}
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// SPARQL Query Results XML Format.
type xmlResultsWriter struct {
	w    *bufio.Writer
	vars []string
}

const xmlResultsHeader = `<?xml version="1.0" encoding="UTF-8"?>
<sparql xmlns="http://www.w3.org/2005/sparql-results#">
`

func (x *xmlResultsWriter) begin(vars []string) error {
	x.vars = vars
	x.w.WriteString(xmlResultsHeader)
	x.w.WriteString("<head>\n")
	for _, v := range vars {
		x.w.WriteString(`  <variable name="`)
		xmlEscape(x.w, v)
		x.w.WriteString("\"/>\n")
	}
	_, err := x.w.WriteString("</head>\n<results>\n")
	return err
}

func (x *xmlResultsWriter) row(sol []kb.Term) error {
	x.w.WriteString("  <result>")
	for i, t := range sol {
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

func (x *xmlResultsWriter) end() error {
	_, err := x.w.WriteString("</results>\n</sparql>\n")
	return err
}

func (x *xmlResultsWriter) boolean(v bool) error {
	x.w.WriteString(xmlResultsHeader)
	_, err := fmt.Fprintf(x.w, "<head/>\n<boolean>%t</boolean>\n</sparql>\n", v)
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
	default:
		switch {
		case t.Lang != "":
			w.WriteString(`<literal xml:lang="`)
			xmlEscape(w, t.Lang)
			w.WriteString(`">`)
		case t.Datatype != "" && t.Datatype != kb.XSDString:
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

func xmlEscape(w *bufio.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s))
}

// SPARQL 1.1 Query Results CSV Format: plain values, CRLF line ends.
type csvResultsWriter struct {
	w *bufio.Writer
}

func (c *csvResultsWriter) begin(vars []string) error {
	for i, v := range vars {
		if i > 0 {
			c.w.WriteByte(',')
		}
		csvField(c.w, v)
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c *csvResultsWriter) row(sol []kb.Term) error {
	for i, t := range sol {
		if i > 0 {
			c.w.WriteByte(',')
		}
		switch t.Kind {
		case 0:
		case kb.KindBlank:
			csvField(c.w, "_:"+t.Value)
		default:
			csvField(c.w, t.Value)
		}
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c *csvResultsWriter) end() error { return nil }

func (c *csvResultsWriter) boolean(v bool) error {
	_, err := fmt.Fprintf(c.w, "_askResult\r\n%t\r\n", v)
	return err
}

func csvField(w *bufio.Writer, s string) {
	if !strings.ContainsAny(s, ",\"\r\n") {
		w.WriteString(s)
		return
	}
	w.WriteByte('"')
	w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	w.WriteByte('"')
}

// SPARQL 1.1 Query Results TSV Format: terms in N-Triples/Turtle syntax.
type tsvResultsWriter struct {
	w *bufio.Writer
}

func (t *tsvResultsWriter) begin(vars []string) error {
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

func (t *tsvResultsWriter) row(sol []kb.Term) error {
	for i, term := range sol {
		if i > 0 {
			t.w.WriteByte('\t')
		}
		if !term.IsZero() {
			t.w.WriteString(term.String())
		}
	}
	_, err := t.w.WriteString("\n")
	return err
}

func (t *tsvResultsWriter) end() error { return nil }

func (t *tsvResultsWriter) boolean(v bool) error {
	_, err := fmt.Fprintf(t.w, "?_askResult\n%t\n", v)
	return err
}
