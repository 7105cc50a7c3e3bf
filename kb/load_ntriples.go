package kb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// lineParser reads N-Triples and N-Quads, one statement per line. It is
// written here rather than taken from knakk/rdf because knakk's line decoder
// reports 0-based byte columns that sometimes point after the opening '<' and
// sometimes carry no position at all; this parser reports every error at the
// 1-based line and character column where the bad input starts.
//
// Load hands it chunks of whole lines (parseChunk), several at once on
// different goroutines, each parser knowing the number of its chunk's first
// line. With zeroCopy set, the terms it returns share memory with the chunk
// (which must then never be modified) instead of each being copied.
type lineParser struct {
	quads    bool // N-Quads: a graph term may follow the object
	zeroCopy bool // term strings alias the input chunk
	line     int
	// per line state
	text []byte
	str  string // text as a string sharing its memory, when zeroCopy
	pos  int
	// last holds, per role, the last IRI read in that role as written
	// ("<…>", a slice of an earlier chunk, which is never modified) and
	// its term: consecutive statements often repeat their subject,
	// predicate, graph or datatype, and comparing bytes is cheaper than
	// checking them again (and with zeroCopy off, than copying them).
	last [numRoles]struct {
		raw  []byte
		term Term
	}
}

// The roles of an IRI in a statement.
const (
	roleSubject = iota
	rolePredicate
	roleObject
	roleGraph
	roleDatatype
	numRoles
)

var roleNames = [numRoles]string{"subject", "predicate", "object", "graph", "datatype"}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxLine bounds one N-Triples line (a literal can be large, but not
// unbounded).
const maxLine = 64 << 20

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

// substr returns text[a:b] as a string: a view of the chunk when zeroCopy,
// a copy otherwise.
func (p *lineParser) substr(a, b int) string {
	if p.zeroCopy {
		return p.str[a:b]
	}
	return string(p.text[a:b])
}

// parseChunk parses data, whole lines of which the first is line
// firstLine, and appends the S, P, O and G of each statement to out (G is
// the zero Term when the line has none). It stops at the first syntax
// error, returning the statements before it.
func (p *lineParser) parseChunk(data []byte, firstLine int, out []Term) ([]Term, error) {
	p.line = firstLine - 1
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		p.line++
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1] // as bufio.ScanLines
		}
		p.text, p.pos = line, 0
		if p.zeroCopy && len(line) > 0 {
			p.str = unsafe.String(unsafe.SliceData(line), len(line))
		}
		if p.line == 1 && bytes.HasPrefix(line, utf8BOM) {
			p.pos = len(utf8BOM)
		}
		p.skipSpace()
		if p.pos == len(p.text) || p.text[p.pos] == '#' {
			continue
		}
		n := len(out)
		out = append(out, Term{}, Term{}, Term{}, Term{})
		if err := p.statement((*[4]Term)(out[n:])); err != nil {
			return out[:n], err
		}
	}
	return out, nil
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

// statement parses the statement on the current line into q (S, P, O, G;
// G stays zero when the line has none).
func (p *lineParser) statement(q *[4]Term) (err error) {
	// subject
	switch {
	case p.peekIs('<'):
		q[0], err = p.iri(roleSubject)
	case p.peekIs('_'):
		q[0], err = p.blank()
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
	if q[1], err = p.iri(rolePredicate); err != nil {
		return
	}
	p.skipSpace()
	switch {
	case p.peekIs('<'):
		q[2], err = p.iri(roleObject)
	case p.peekIs('_'):
		q[2], err = p.blank()
	case p.peekIs('"'):
		q[2], err = p.literal()
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
			q[3], err = p.iri(roleGraph)
		case p.peekIs('_'):
			q[3], err = p.blank()
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

// iri parses <…>, which must be absolute, in the given role.
func (p *lineParser) iri(roleIndex int) (Term, error) {
	last := &p.last[roleIndex]
	i := p.pos + 1
	if len(last.raw) > 0 {
		c := commonPrefix(p.text[p.pos:], last.raw)
		if c == len(last.raw) {
			p.pos += c
			return last.term, nil
		}
		// last.raw is '<', plain bytes and '>'; the c bytes in common
		// are '<' and plain bytes, checked already.
		i = max(i, p.pos+c)
	}
	role := roleNames[roleIndex]
	start := p.pos
	p.pos++ // '<'
	// Fast path: no escapes, only ASCII characters that need no checks.
	for i < len(p.text) && iriPlain[p.text[i]] {
		i++
	}
	if i < len(p.text) && p.text[i] == '>' {
		iri := p.substr(p.pos, i)
		if !hasScheme(iri) {
			return Term{}, p.errAt(start, "%s IRI <%s> is relative; N-Triples and N-Quads need absolute IRIs", role, iri)
		}
		p.pos = i + 1
		last.raw, last.term = p.text[start:p.pos:p.pos], IRI(iri)
		return last.term, nil
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
			escStart := p.pos
			r, err := p.uchar()
			if err != nil {
				return Term{}, err
			}
			// An escape cannot smuggle in a character IRIREF forbids
			// (the same rule as Turtle's).
			if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) {
				return Term{}, p.errAt(escStart, "escaped character %U is not allowed in an IRI", r)
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

// commonPrefix returns the length of the longest common prefix of a and b,
// comparing eight bytes at a time.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// iriPlain marks the bytes an IRI's fast path accepts as they are: ASCII
// that needs no escape and no check.
var iriPlain = func() (t [256]bool) {
	for c := 0x21; c < 0x80; c++ {
		t[c] = !strings.ContainsRune("<>\"{}|^`\\", rune(c))
	}
	return t
}()

// stringPlain marks the bytes a string literal's fast path copies as they
// are.
var stringPlain = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\' && c != '\r' && c != '\n'
	}
	return t
}()

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
	return Blank(p.substr(labelStart, p.pos)), nil
}

// literal parses "…" with an optional ^^<datatype> or @lang.
func (p *lineParser) literal() (Term, error) {
	start := p.pos
	p.pos++ // '"'
	// Fast path: a run of ASCII characters without escapes up to the
	// closing quote is the lexical form as it is.
	i := p.pos
	for i < len(p.text) && stringPlain[p.text[i]] {
		i++
	}
	if i < len(p.text) && p.text[i] == '"' {
		lexical := p.substr(p.pos, i)
		p.pos = i + 1
		return p.literalSuffix(lexical)
	}
	var b strings.Builder
	b.Write(p.text[p.pos:i])
	p.pos = i
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
	return p.literalSuffix(b.String())
}

// literalSuffix parses what may follow a literal's closing quote: @lang or
// ^^<datatype>.
func (p *lineParser) literalSuffix(lexical string) (Term, error) {
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
		tag := p.substr(tagStart, p.pos)
		if tag == "" || strings.HasSuffix(tag, "-") || strings.Contains(tag, "--") {
			return Term{}, p.errAt(langStart, "invalid language tag %q", "@"+tag)
		}
		return LangLiteral(lexical, tag), nil
	case p.peekIs('^'):
		if p.pos+1 >= len(p.text) || p.text[p.pos+1] != '^' || p.pos+2 >= len(p.text) || p.text[p.pos+2] != '<' {
			return Term{}, p.errAt(p.pos, "expected ^^<datatype IRI> after the literal, found %s", p.found())
		}
		p.pos += 2
		dt, err := p.iri(roleDatatype)
		if err != nil {
			return Term{}, err
		}
		return Literal(lexical, dt.Value), nil
	}
	return String(lexical), nil
}
