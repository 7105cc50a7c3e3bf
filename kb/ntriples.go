package kb

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/ontology"
)

// AppendTerm writes t in N-Triples syntax: the one N-Triples term encoder.
// IRIs escape the characters N-Triples forbids with \u, literals use the
// short escapes, blank node labels are written as they are.
func AppendTerm[W TextWriter](b W, t Term) {
	switch t.Kind {
	case KindIRI:
		b.WriteByte('<')
		EscapeIRI(b, t.Value)
		b.WriteByte('>')
	case KindBlank:
		b.WriteString("_:")
		b.WriteString(t.Value)
	case KindLiteral:
		b.WriteByte('"')
		EscapeString(b, t.Value)
		b.WriteByte('"')
		switch {
		case t.Lang != "":
			b.WriteByte('@')
			b.WriteString(t.Lang)
		case t.Datatype != "" && t.Datatype != ontology.XSDString:
			b.WriteString("^^<")
			EscapeIRI(b, t.Datatype)
			b.WriteByte('>')
		}
	case KindTriple:
		b.WriteString("<<( ")
		b.WriteString(t.Value)
		b.WriteString(" )>>")
	default:
		b.WriteString("<invalid term>")
	}
}

// TextWriter is what the term encoders write to: a *strings.Builder, or
// an encoder's *bufio.Writer directly (no per-statement buffer).
type TextWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
	WriteRune(r rune) (int, error)
}

// EscapeIRI writes an IRI's characters for use inside <…>.
func EscapeIRI[W TextWriter](b W, s string) {
	if plainIRI(s) {
		b.WriteString(s)
		return
	}
	for _, r := range s {
		switch {
		case r <= 0x20 || r == '<' || r == '>' || r == '"' || r == '{' || r == '}' || r == '|' || r == '^' || r == '`' || r == '\\':
			fmt.Fprintf(b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
}

// plainIRI reports whether s has no character EscapeIRI changes (invalid
// UTF-8 is changed: it becomes U+FFFD).
func plainIRI(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= 0x20 || c == '<' || c == '>' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`' || c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return ascii || utf8.ValidString(s)
}

// plainString reports whether s has no character EscapeString changes.
func plainString(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == 0x7f || c == '"' || c == '\\':
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	// U+FFFE and U+FFFF (EF BF BE, EF BF BF) are escaped, as canonical
	// N-Triples writes them.
	return ascii || utf8.ValidString(s) && !strings.Contains(s, "\uFFFE") && !strings.Contains(s, "\uFFFF")
}

// EscapeString writes a string's characters for use inside "…".
func EscapeString[W TextWriter](b W, s string) {
	if plainString(s) {
		b.WriteString(s)
		return
	}
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 || r == 0x7f || r == 0xFFFE || r == 0xFFFF {
				fmt.Fprintf(b, "\\u%04X", r)
			} else {
				b.WriteRune(r)
			}
		}
	}
}

// Bytes is a TextWriter that appends to a byte slice, for callers that
// build whole lines in a buffer of their own (the converters' sorted
// N-Triples output, the sample generator) and still want the one term
// encoder, AppendTerm.
type Bytes []byte

// Write appends p.
func (b *Bytes) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

// WriteString appends s.
func (b *Bytes) WriteString(s string) (int, error) { *b = append(*b, s...); return len(s), nil }

// WriteByte appends c.
func (b *Bytes) WriteByte(c byte) error { *b = append(*b, c); return nil }

// WriteRune appends r in UTF-8.
func (b *Bytes) WriteRune(r rune) (int, error) {
	n := len(*b)
	*b = utf8.AppendRune(*b, r)
	return len(*b) - n, nil
}

// AppendTermBytes appends t in N-Triples syntax to b, as AppendTerm
// writes it. Terms that need no escaping (nearly all IRIs and numbers a
// converter writes) are copied with plain appends, which is about three
// times faster than going through a TextWriter.
func AppendTermBytes(b []byte, t Term) []byte {
	switch {
	case t.Kind == KindIRI && asciiPlain(t.Value, &outIRIPlain):
		b = append(b, '<')
		b = append(b, t.Value...)
		return append(b, '>')
	case t.Kind == KindLiteral && t.Lang == "" && asciiPlain(t.Value, &outStringPlain) &&
		(t.Datatype == "" || t.Datatype == ontology.XSDString || asciiPlain(t.Datatype, &outIRIPlain)):
		b = append(b, '"')
		b = append(b, t.Value...)
		b = append(b, '"')
		if t.Datatype != "" && t.Datatype != ontology.XSDString {
			b = append(b, "^^<"...)
			b = append(b, t.Datatype...)
			b = append(b, '>')
		}
		return b
	}
	buf := Bytes(b)
	AppendTerm(&buf, t)
	return buf
}

// asciiPlain reports whether s is ASCII written as it is under table.
func asciiPlain(s string, table *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if !table[s[i]] {
			return false
		}
	}
	return true
}

// outIRIPlain and outStringPlain mark the ASCII bytes EscapeIRI and EscapeString
// write as they are (non-ASCII bytes take the general path).
var outIRIPlain, outStringPlain = func() (iri, str [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		iri[c] = !strings.ContainsRune(`<>"{}|^`+"`"+`\`, rune(c))
	}
	for c := 0x20; c < 0x7f; c++ {
		str[c] = c != '"' && c != '\\'
	}
	return
}()

// canonDecoder reads terms in the canonical N-Triples form AppendTerm
// writes (a triple term's Value): IRIs and literals with AppendTerm's
// escapes, blank node labels up to the next space, nested triple terms.
// It is not an N-Triples parser (kb/rdfio has that), only the inverse of
// the encoder, for taking triple terms apart.
type canonDecoder struct {
	s string
	i int
}

var errCanon = errors.New("kb: not a canonical N-Triples term")

func (d *canonDecoder) space() bool {
	if d.i < len(d.s) && d.s[d.i] == ' ' {
		d.i++
		return true
	}
	return false
}

func (d *canonDecoder) term() (Term, error) {
	if d.i >= len(d.s) {
		return Term{}, errCanon
	}
	switch d.s[d.i] {
	case '<':
		if strings.HasPrefix(d.s[d.i:], "<<( ") {
			d.i += 4
			start := d.i
			for k := 0; k < 3; k++ {
				if k > 0 && !d.space() {
					return Term{}, errCanon
				}
				if _, err := d.term(); err != nil {
					return Term{}, err
				}
			}
			if !strings.HasPrefix(d.s[d.i:], " )>>") {
				return Term{}, errCanon
			}
			t := Term{Kind: KindTriple, Value: d.s[start:d.i]}
			d.i += 4
			return t, nil
		}
		v, err := d.until('>')
		return Term{Kind: KindIRI, Value: v}, err
	case '_':
		if !strings.HasPrefix(d.s[d.i:], "_:") {
			return Term{}, errCanon
		}
		start := d.i + 2
		end := strings.IndexByte(d.s[start:], ' ')
		if end < 0 {
			end = len(d.s) - start
		}
		d.i = start + end
		return Term{Kind: KindBlank, Value: d.s[start:d.i]}, nil
	case '"':
		v, err := d.until('"')
		if err != nil {
			return Term{}, err
		}
		switch {
		case strings.HasPrefix(d.s[d.i:], "^^<"):
			d.i += 2
			dt, err := d.until('>')
			return Term{Kind: KindLiteral, Value: v, Datatype: dt}, err
		case strings.HasPrefix(d.s[d.i:], "@"):
			start := d.i + 1
			end := strings.IndexByte(d.s[start:], ' ')
			if end < 0 {
				end = len(d.s) - start
			}
			d.i = start + end
			lang := d.s[start:d.i]
			dt := ontology.RDFLangString
			if strings.Contains(lang, "--") {
				dt = ontology.RDFDirLangString
			}
			return Term{Kind: KindLiteral, Value: v, Datatype: dt, Lang: lang}, nil
		}
		return Term{Kind: KindLiteral, Value: v, Datatype: ontology.XSDString}, nil
	}
	return Term{}, errCanon
}

// until reads from the opening delimiter at d.i to the closing one,
// undoing EscapeIRI's and EscapeString's escapes.
func (d *canonDecoder) until(close byte) (string, error) {
	d.i++
	start := d.i
	for d.i < len(d.s) && d.s[d.i] != close && d.s[d.i] != '\\' {
		d.i++
	}
	if d.i < len(d.s) && d.s[d.i] == close {
		d.i++
		return d.s[start : d.i-1], nil
	}
	var b strings.Builder
	b.WriteString(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == close:
			d.i++
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.s) {
			return "", errCanon
		}
		e := d.s[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if d.i+n > len(d.s) {
				return "", errCanon
			}
			r, err := strconv.ParseUint(d.s[d.i:d.i+n], 16, 32)
			if err != nil {
				return "", errCanon
			}
			b.WriteRune(rune(r))
			d.i += n
		default:
			return "", errCanon
		}
	}
	return "", errCanon
}
