package kb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// lineParser reads N-Triples and N-Quads, one statement per line. It is
// written here rather than taken from knakk/rdf because knakk's line decoder
// reports 0-based byte columns that sometimes point after the opening '<' and
// sometimes carry no position at all; this parser reports every error at the
// 1-based line and character column where the bad input starts.
type lineParser struct {
	sc    *bufio.Scanner
	quads bool // N-Quads: a graph term may follow the object
	line  int
	// per line state
	text []byte
	pos  int
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxLine bounds one N-Triples line (a literal can be large, but not
// unbounded).
const maxLine = 64 << 20

func newLineParser(r io.Reader, quads bool) *lineParser {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lineParser{sc: sc, quads: quads}
}

// lineError is a syntax error found by lineParser; Load turns it into a
// *SyntaxError with the source name.
type lineError struct {
	line, col int
	msg       string
}

func (e *lineError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

func (p *lineParser) errAt(pos int, format string, args ...any) error {
	if pos > len(p.text) {
		pos = len(p.text)
	}
	col := utf8.RuneCount(p.text[:pos]) + 1
	if p.line == 1 && bytes.HasPrefix(p.text, utf8BOM) && pos >= len(utf8BOM) {
		col-- // the byte order mark is not a column
	}
	return &lineError{line: p.line, col: col, msg: fmt.Sprintf(format, args...)}
}

// next returns the next statement; g is the zero Term when the line has no
// graph. It returns io.EOF at the end of input.
func (p *lineParser) next() (s, pr, o, g Term, err error) {
	for p.sc.Scan() {
		p.line++
		p.text = p.sc.Bytes()
		p.pos = 0
		if p.line == 1 && bytes.HasPrefix(p.text, utf8BOM) {
			p.pos = len(utf8BOM)
		}
		p.skipSpace()
		if p.pos == len(p.text) || p.text[p.pos] == '#' {
			continue
		}
		s, pr, o, g, err = p.statement()
		return
	}
	if err := p.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return s, pr, o, g, &lineError{line: p.line + 1, col: 1, msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
		}
		return s, pr, o, g, err
	}
	return s, pr, o, g, io.EOF
}

func (p *lineParser) skipSpace() {
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t' || p.text[p.pos] == '\r') {
		p.pos++
	}
}

// found describes the input at the current position for error messages.
func (p *lineParser) found() string {
	if p.pos >= len(p.text) {
		return "end of line"
	}
	rest := p.text[p.pos:]
	end := 0
	for end < len(rest) && end < 20 && rest[end] != ' ' && rest[end] != '\t' {
		_, w := utf8.DecodeRune(rest[end:])
		end += w
	}
	if end == 0 {
		end = 1
	}
	return strconv.Quote(string(rest[:end]))
}

func (p *lineParser) statement() (s, pr, o, g Term, err error) {
	// subject
	switch {
	case p.peekIs('<'):
		s, err = p.iri("subject")
	case p.peekIs('_'):
		s, err = p.blank()
	default:
		err = p.errAt(p.pos, "expected a subject (an <IRI> or a _:blank node), found %s", p.found())
	}
	if err != nil {
		return
	}
	p.skipSpace()
	if !p.peekIs('<') {
		err = p.errAt(p.pos, "expected a predicate <IRI>, found %s", p.found())
		return
	}
	if pr, err = p.iri("predicate"); err != nil {
		return
	}
	p.skipSpace()
	switch {
	case p.peekIs('<'):
		o, err = p.iri("object")
	case p.peekIs('_'):
		o, err = p.blank()
	case p.peekIs('"'):
		o, err = p.literal()
	default:
		err = p.errAt(p.pos, "expected an object (an <IRI>, a _:blank node or a \"literal\"), found %s", p.found())
	}
	if err != nil {
		return
	}
	p.skipSpace()
	if p.quads {
		switch {
		case p.peekIs('<'):
			g, err = p.iri("graph")
		case p.peekIs('_'):
			g, err = p.blank()
		}
		if err != nil {
			return
		}
		p.skipSpace()
	}
	if !p.peekIs('.') {
		if p.quads {
			err = p.errAt(p.pos, "expected a graph name or '.' after the object, found %s", p.found())
		} else {
			err = p.errAt(p.pos, "expected '.' after the object, found %s", p.found())
		}
		return
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] != '#' {
		err = p.errAt(p.pos, "expected end of line after '.', found %s", p.found())
	}
	return
}

func (p *lineParser) peekIs(c byte) bool { return p.pos < len(p.text) && p.text[p.pos] == c }

// iri parses <…>, which must be absolute.
func (p *lineParser) iri(role string) (Term, error) {
	start := p.pos
	p.pos++ // '<'
	// Fast path: no escapes, only ASCII characters that need no checks.
	for i := p.pos; i < len(p.text); i++ {
		c := p.text[i]
		if c == '>' {
			iri := string(p.text[p.pos:i])
			if !hasScheme(iri) {
				return Term{}, p.errAt(start, "%s IRI <%s> is relative; N-Triples and N-Quads need absolute IRIs", role, iri)
			}
			p.pos = i + 1
			return IRI(iri), nil
		}
		if c <= 0x20 || c >= 0x80 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`' || c == '\\' {
			break
		}
	}
	var b strings.Builder
	for {
		if p.pos >= len(p.text) {
			return Term{}, p.errAt(start, "unterminated IRI: missing '>'")
		}
		c := p.text[p.pos]
		switch {
		case c == '>':
			p.pos++
			iri := b.String()
			if !hasScheme(iri) {
				return Term{}, p.errAt(start, "%s IRI <%s> is relative; N-Triples and N-Quads need absolute IRIs", role, iri)
			}
			return IRI(iri), nil
		case c == '\\':
			r, err := p.uchar()
			if err != nil {
				return Term{}, err
			}
			b.WriteRune(r)
		case c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`':
			return Term{}, p.errAt(p.pos, "character %q is not allowed in an IRI", rune(c))
		default:
			r, w := utf8.DecodeRune(p.text[p.pos:])
			if r == utf8.RuneError && w == 1 {
				return Term{}, p.errAt(p.pos, "invalid UTF-8 in IRI")
			}
			b.WriteRune(r)
			p.pos += w
		}
	}
}

// hasScheme reports whether iri starts with scheme ':'.
func hasScheme(iri string) bool {
	for i := 0; i < len(iri); i++ {
		c := iri[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// uchar parses \uXXXX or \UXXXXXXXX at p.pos.
func (p *lineParser) uchar() (rune, error) {
	start := p.pos
	if p.pos+1 >= len(p.text) {
		return 0, p.errAt(start, "incomplete escape sequence")
	}
	n := 0
	switch p.text[p.pos+1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, p.errAt(start, "invalid escape \\%c in an IRI (only \\u and \\U are allowed)", p.text[p.pos+1])
	}
	if p.pos+2+n > len(p.text) {
		return 0, p.errAt(start, "incomplete escape sequence: \\%c needs %d hex digits", p.text[p.pos+1], n)
	}
	v, err := strconv.ParseUint(string(p.text[p.pos+2:p.pos+2+n]), 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return 0, p.errAt(start, "invalid escape sequence %q", p.text[p.pos:p.pos+2+n])
	}
	p.pos += 2 + n
	return rune(v), nil
}

func isLabelStart(r rune) bool { return r == '_' || r >= '0' && r <= '9' || unicode.IsLetter(r) }
func isLabelChar(r rune) bool {
	return isLabelStart(r) || r == '-' || r == '.' || r == 0xB7 || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// stringEscapes are the ECHAR escapes of N-Triples strings.
var stringEscapes = map[byte]byte{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}

// blank parses _:label.
func (p *lineParser) blank() (Term, error) {
	start := p.pos
	if p.pos+1 >= len(p.text) || p.text[p.pos+1] != ':' {
		return Term{}, p.errAt(start, "expected a blank node '_:label', found %s", p.found())
	}
	p.pos += 2
	labelStart := p.pos
	r, w := utf8.DecodeRune(p.text[p.pos:])
	if p.pos >= len(p.text) || !isLabelStart(r) {
		return Term{}, p.errAt(p.pos, "expected a blank node label after '_:', found %s", p.found())
	}
	p.pos += w
	for p.pos < len(p.text) {
		r, w := utf8.DecodeRune(p.text[p.pos:])
		if !isLabelChar(r) {
			break
		}
		p.pos += w
	}
	for p.text[p.pos-1] == '.' { // a label cannot end with '.'
		p.pos--
	}
	return Blank(string(p.text[labelStart:p.pos])), nil
}

// literal parses "…" with an optional ^^<datatype> or @lang.
func (p *lineParser) literal() (Term, error) {
	start := p.pos
	p.pos++ // '"'
	var b strings.Builder
	// Fast path: copy the run of ASCII characters without escapes at once.
	for i := p.pos; i < len(p.text); i++ {
		c := p.text[i]
		if c == '"' || c == '\\' || c == '\r' || c == '\n' || c >= 0x80 {
			b.Write(p.text[p.pos:i])
			p.pos = i
			break
		}
	}
	for {
		if p.pos >= len(p.text) {
			return Term{}, p.errAt(start, "unterminated string literal: missing closing '\"'")
		}
		c := p.text[p.pos]
		if c == '"' {
			p.pos++
			break
		}
		if c == '\\' {
			if p.pos+1 >= len(p.text) {
				return Term{}, p.errAt(p.pos, "incomplete escape sequence")
			}
			if e, ok := stringEscapes[p.text[p.pos+1]]; ok {
				b.WriteByte(e)
				p.pos += 2
				continue
			}
			if p.text[p.pos+1] == 'u' || p.text[p.pos+1] == 'U' {
				r, err := p.uchar()
				if err != nil {
					return Term{}, err
				}
				b.WriteRune(r)
				continue
			}
			return Term{}, p.errAt(p.pos, "invalid escape sequence \\%c in a string literal", p.text[p.pos+1])
		}
		if c == '\r' || c == '\n' {
			return Term{}, p.errAt(p.pos, "raw line break in a string literal (write \\n)")
		}
		r, w := utf8.DecodeRune(p.text[p.pos:])
		if r == utf8.RuneError && w == 1 {
			return Term{}, p.errAt(p.pos, "invalid UTF-8 in string literal")
		}
		b.WriteRune(r)
		p.pos += w
	}
	lexical := b.String()
	switch {
	case p.peekIs('@'):
		langStart := p.pos
		p.pos++
		tagStart := p.pos
		for p.pos < len(p.text) {
			c := p.text[p.pos]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (p.pos > tagStart && (c == '-' || c >= '0' && c <= '9')) {
				p.pos++
				continue
			}
			break
		}
		tag := string(p.text[tagStart:p.pos])
		if tag == "" || strings.HasSuffix(tag, "-") || strings.Contains(tag, "--") {
			return Term{}, p.errAt(langStart, "invalid language tag %q", "@"+tag)
		}
		return LangLiteral(lexical, tag), nil
	case p.peekIs('^'):
		if p.pos+1 >= len(p.text) || p.text[p.pos+1] != '^' || p.pos+2 >= len(p.text) || p.text[p.pos+2] != '<' {
			return Term{}, p.errAt(p.pos, "expected ^^<datatype IRI> after the literal, found %s", p.found())
		}
		p.pos += 2
		dt, err := p.iri("datatype")
		if err != nil {
			return Term{}, err
		}
		return Literal(lexical, dt.Value), nil
	}
	return String(lexical), nil
}
