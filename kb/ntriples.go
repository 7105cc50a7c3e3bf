package kb

import (
	"fmt"
	"io"
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
	return ascii || utf8.ValidString(s)
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
			if r < 0x20 || r == 0x7f {
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
