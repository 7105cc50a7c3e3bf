package rdfio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// LineParser reads N-Triples and N-Quads, one statement per line, and
// reports every error at the 1-based line and character column where the
// bad input starts.
//
// Load hands it chunks of whole lines (ParseChunk), several at once on
// different goroutines (one LineParser each), each chunk knowing the number
// of its first line; NTriplesDecoder feeds it a stream. With ZeroCopy set,
// the terms it returns share memory with the chunk (which must then never
// be modified) instead of each being copied. Language tags are lower-cased
// (kb.LangLiteral).
type LineParser struct {
	Quads    bool // N-Quads: a graph term may follow the object
	ZeroCopy bool // term strings alias the input chunk
	// anyIRI accepts every IRI AppendTerm can write (relative ones, and
	// escapes of characters IRIREF forbids), so that ParseTerm inverts
	// AppendTerm for any term a store may hold.
	anyIRI bool
	line   int
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
		term kb.Term
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

// MaxLine bounds one N-Triples line (a literal can be large, but not
// unbounded).
const MaxLine = 64 << 20

func (p *LineParser) errAt(pos int, format string, args ...any) error {
	if pos > len(p.text) {
		pos = len(p.text)
	}
	col := utf8.RuneCount(p.text[:pos]) + 1
	if p.line == 1 && bytes.HasPrefix(p.text, utf8BOM) && pos >= len(utf8BOM) {
		col-- // the byte order mark is not a column
	}
	return syntaxError("", p.line, col, fmt.Sprintf(format, args...))
}

// substr returns text[a:b] as a string: a view of the chunk when zeroCopy,
// a copy otherwise.
func (p *LineParser) substr(a, b int) string {
	if p.ZeroCopy {
		return p.str[a:b]
	}
	return string(p.text[a:b])
}

// ParseChunk parses data, whole lines of which the first is line
// firstLine, and appends the S, P, O and G of each statement to out (G is
// the zero Term when the line has none). It stops at the first syntax
// error (a *textpos.Error without Source), returning the statements before it.
func (p *LineParser) ParseChunk(data []byte, firstLine int, out []kb.Term) ([]kb.Term, error) {
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
		if p.ZeroCopy && len(line) > 0 {
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
		out = append(out, kb.Term{}, kb.Term{}, kb.Term{}, kb.Term{})
		if err := p.statement((*[4]kb.Term)(out[n:])); err != nil {
			return out[:n], err
		}
	}
	return out, nil
}

func (p *LineParser) skipSpace() {
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t' || p.text[p.pos] == '\r') {
		p.pos++
	}
}

// found describes the input at the current position for error messages.
func (p *LineParser) found() string {
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
func (p *LineParser) statement(q *[4]kb.Term) (err error) {
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
	if q[2], err = p.object(); err != nil {
		return
	}
	p.skipSpace()
	if p.Quads {
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
		if p.Quads {
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

func (p *LineParser) peekIs(c byte) bool { return p.pos < len(p.text) && p.text[p.pos] == c }

// object parses an object: an IRI, a blank node, a literal or (RDF 1.2)
// a triple term.
func (p *LineParser) object() (kb.Term, error) {
	switch {
	case bytes.HasPrefix(p.text[p.pos:], []byte("<<(")):
		return p.tripleTerm()
	case p.peekIs('<'):
		return p.iri(roleObject)
	case p.peekIs('_'):
		return p.blank()
	case p.peekIs('"'):
		return p.literal()
	}
	return kb.Term{}, p.errAt(p.pos, "expected an object (an <IRI>, a _:blank node, a \"literal\" or a <<( triple term )>>), found %s", p.found())
}

// tripleTerm parses <<( subject predicate object )>> (RDF 1.2).
func (p *LineParser) tripleTerm() (kb.Term, error) {
	p.pos += 3
	p.skipSpace()
	var s, pr, o kb.Term
	var err error
	switch {
	case p.peekIs('<'):
		s, err = p.iri(roleSubject)
	case p.peekIs('_'):
		s, err = p.blank()
	default:
		err = p.errAt(p.pos, "expected the subject of a triple term (an <IRI> or a _:blank node), found %s", p.found())
	}
	if err != nil {
		return kb.Term{}, err
	}
	p.skipSpace()
	if !p.peekIs('<') {
		return kb.Term{}, p.errAt(p.pos, "expected the predicate <IRI> of a triple term, found %s", p.found())
	}
	if pr, err = p.iri(rolePredicate); err != nil {
		return kb.Term{}, err
	}
	p.skipSpace()
	if o, err = p.object(); err != nil {
		return kb.Term{}, err
	}
	p.skipSpace()
	if !bytes.HasPrefix(p.text[p.pos:], []byte(")>>")) {
		return kb.Term{}, p.errAt(p.pos, "expected ')>>' closing the triple term, found %s", p.found())
	}
	p.pos += 3
	return kb.TripleTerm(s, pr, o), nil
}

// iri parses <…>, which must be absolute, in the given role.
func (p *LineParser) iri(roleIndex int) (kb.Term, error) {
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
	for i < len(p.text) && ntIRIPlain[p.text[i]] {
		i++
	}
	if i < len(p.text) && p.text[i] == '>' {
		iri := p.substr(p.pos, i)
		if !p.anyIRI && !kb.IsAbsoluteIRI(iri) {
			return kb.Term{}, p.errAt(start, "%s IRI <%s> is relative; N-Triples and N-Quads need absolute IRIs", role, iri)
		}
		p.pos = i + 1
		last.raw, last.term = p.text[start:p.pos:p.pos], kb.Term{Kind: kb.KindIRI, Value: iri}
		return last.term, nil
	}
	var b strings.Builder
	for {
		if p.pos >= len(p.text) {
			return kb.Term{}, p.errAt(start, "unterminated IRI: missing '>'")
		}
		c := p.text[p.pos]
		switch {
		case c == '>':
			p.pos++
			iri := b.String()
			if !p.anyIRI && !kb.IsAbsoluteIRI(iri) {
				return kb.Term{}, p.errAt(start, "%s IRI <%s> is relative; N-Triples and N-Quads need absolute IRIs", role, iri)
			}
			return kb.Term{Kind: kb.KindIRI, Value: iri}, nil
		case c == '\\':
			escStart := p.pos
			r, err := p.uchar()
			if err != nil {
				return kb.Term{}, err
			}
			// An escape cannot smuggle in a character IRIREF forbids
			// (the same rule as Turtle's).
			if !p.anyIRI && (r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r)) {
				return kb.Term{}, p.errAt(escStart, "escaped character %U is not allowed in an IRI", r)
			}
			b.WriteRune(r)
		case c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`':
			return kb.Term{}, p.errAt(p.pos, "character %q is not allowed in an IRI", rune(c))
		default:
			r, w := utf8.DecodeRune(p.text[p.pos:])
			if r == utf8.RuneError && w == 1 {
				return kb.Term{}, p.errAt(p.pos, "invalid UTF-8 in IRI")
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

// ntIRIPlain marks the bytes an IRI's fast path accepts as they are: ASCII
// that needs no escape and no check.
var ntIRIPlain = func() (t [256]bool) {
	for c := 0x21; c < 0x80; c++ {
		t[c] = !strings.ContainsRune("<>\"{}|^`\\", rune(c))
	}
	return t
}()

// ntStringPlain marks the bytes a string literal's fast path copies as they
// are.
var ntStringPlain = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\' && c != '\r' && c != '\n'
	}
	return t
}()

// uchar parses \uXXXX or \UXXXXXXXX at p.pos.
func (p *LineParser) uchar() (rune, error) {
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

func ntLabelStart(r rune) bool { return r == '_' || r >= '0' && r <= '9' || unicode.IsLetter(r) }
func ntLabelChar(r rune) bool {
	return ntLabelStart(r) || r == '-' || r == '.' || r == 0xB7 || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// ntStringEscapes are the ECHAR escapes of N-Triples strings.
var ntStringEscapes = map[byte]byte{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}

// blank parses _:label.
func (p *LineParser) blank() (kb.Term, error) {
	start := p.pos
	if p.pos+1 >= len(p.text) || p.text[p.pos+1] != ':' {
		return kb.Term{}, p.errAt(start, "expected a blank node '_:label', found %s", p.found())
	}
	p.pos += 2
	labelStart := p.pos
	r, w := utf8.DecodeRune(p.text[p.pos:])
	if p.pos >= len(p.text) || !ntLabelStart(r) {
		return kb.Term{}, p.errAt(p.pos, "expected a blank node label after '_:', found %s", p.found())
	}
	p.pos += w
	for p.pos < len(p.text) {
		r, w := utf8.DecodeRune(p.text[p.pos:])
		if !ntLabelChar(r) {
			break
		}
		p.pos += w
	}
	for p.text[p.pos-1] == '.' { // a label cannot end with '.'
		p.pos--
	}
	return kb.Term{Kind: kb.KindBlank, Value: p.substr(labelStart, p.pos)}, nil
}

// literal parses "…" with an optional ^^<datatype> or @lang.
func (p *LineParser) literal() (kb.Term, error) {
	start := p.pos
	p.pos++ // '"'
	// Fast path: a run of ASCII characters without escapes up to the
	// closing quote is the lexical form as it is.
	i := p.pos
	for i < len(p.text) && ntStringPlain[p.text[i]] {
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
			return kb.Term{}, p.errAt(start, "unterminated string literal: missing closing '\"'")
		}
		c := p.text[p.pos]
		if c == '"' {
			p.pos++
			break
		}
		if c == '\\' {
			if p.pos+1 >= len(p.text) {
				return kb.Term{}, p.errAt(p.pos, "incomplete escape sequence")
			}
			if e, ok := ntStringEscapes[p.text[p.pos+1]]; ok {
				b.WriteByte(e)
				p.pos += 2
				continue
			}
			if p.text[p.pos+1] == 'u' || p.text[p.pos+1] == 'U' {
				r, err := p.uchar()
				if err != nil {
					return kb.Term{}, err
				}
				b.WriteRune(r)
				continue
			}
			return kb.Term{}, p.errAt(p.pos, "invalid escape sequence \\%c in a string literal", p.text[p.pos+1])
		}
		if c == '\r' || c == '\n' {
			return kb.Term{}, p.errAt(p.pos, "raw line break in a string literal (write \\n)")
		}
		r, w := utf8.DecodeRune(p.text[p.pos:])
		if r == utf8.RuneError && w == 1 {
			return kb.Term{}, p.errAt(p.pos, "invalid UTF-8 in string literal")
		}
		b.WriteRune(r)
		p.pos += w
	}
	return p.literalSuffix(b.String())
}

// literalSuffix parses what may follow a literal's closing quote: @lang or
// ^^<datatype>.
func (p *LineParser) literalSuffix(lexical string) (kb.Term, error) {
	// RDF 1.2 N-Triples: the tag or ^^ is a token of its own, which white
	// space may precede.
	if k := p.pos; k < len(p.text) && (p.text[k] == ' ' || p.text[k] == '\t') {
		for k < len(p.text) && (p.text[k] == ' ' || p.text[k] == '\t') {
			k++
		}
		if k < len(p.text) && (p.text[k] == '@' || p.text[k] == '^') {
			p.pos = k
		}
	}
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
		lang, dir, err := splitLangDir(tag)
		if err != nil {
			return kb.Term{}, p.errAt(langStart, "invalid language tag %q: %v", "@"+tag, err)
		}
		if dir != "" {
			return kb.DirLangLiteral(lexical, lang, dir), nil
		}
		return kb.LangLiteral(lexical, lang), nil
	case p.peekIs('^'):
		if p.pos+1 >= len(p.text) || p.text[p.pos+1] != '^' {
			return kb.Term{}, p.errAt(p.pos, "expected ^^<datatype IRI> after the literal, found %s", p.found())
		}
		p.pos += 2
		p.skipSpace()
		dtStart := p.pos
		dt, err := p.iri(roleDatatype)
		if err != nil {
			return kb.Term{}, err
		}
		if err := checkDatatype(dt.Value); err != nil {
			return kb.Term{}, p.errAt(dtStart, "%v", err)
		}
		return kb.Term{Kind: kb.KindLiteral, Value: lexical, Datatype: dt.Value}, nil
	}
	return kb.Term{Kind: kb.KindLiteral, Value: lexical, Datatype: ontology.XSDString}, nil
}

// NTriplesDecoder reads N-Triples or N-Quads as a stream of lines, with
// the parser Load runs in parallel over chunks.
type NTriplesDecoder struct {
	r    *bufio.Reader
	p    LineParser
	src  string
	line int
	buf  []kb.Term
	pos  int
	err  error
}

// NewNTriplesDecoder returns a decoder reading N-Triples from r.
func NewNTriplesDecoder(r io.Reader, opts Options) *NTriplesDecoder {
	return &NTriplesDecoder{r: bufio.NewReaderSize(r, 64<<10), src: opts.Source}
}

// NewNQuadsDecoder returns a decoder reading N-Quads from r; statements
// without a graph have a zero G.
func NewNQuadsDecoder(r io.Reader, opts Options) *NTriplesDecoder {
	d := NewNTriplesDecoder(r, opts)
	d.p.Quads = true
	return d
}

// Next returns the next statement.
func (d *NTriplesDecoder) Next() (kb.TermQuad, error) {
	for d.pos == len(d.buf) {
		if d.err != nil {
			return kb.TermQuad{}, d.err
		}
		d.buf, d.pos = d.buf[:0], 0
		d.err = d.readLine()
	}
	q := kb.TermQuad{S: d.buf[d.pos], P: d.buf[d.pos+1], O: d.buf[d.pos+2], G: d.buf[d.pos+3]}
	d.pos += 4
	return q, nil
}

// readLine parses the next line into d.buf.
func (d *NTriplesDecoder) readLine() error {
	var line []byte
	for {
		chunk, err := d.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return syntaxError(d.src, d.line+1, 1, fmt.Sprintf("line longer than %d bytes", MaxLine))
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: read: %w", sourceName(d.src), d.line+1, err)
		}
		if len(line) == 0 {
			return io.EOF
		}
		break
	}
	d.line++
	var err error
	d.buf, err = d.p.ParseChunk(line, d.line, d.buf)
	if err != nil {
		var se *textpos.Error
		if errors.As(err, &se) {
			se.Pos.Source = d.src
		}
		return err
	}
	return nil
}

// ParseTerm parses one term written in N-Triples syntax (an <IRI>, a
// _:label or a "literal" with its tag or datatype), the inverse of
// kb.AppendTerm: the one N-Triples term decoder. Unlike an N-Triples
// document it accepts every IRI AppendTerm writes (relative ones, and
// escaped characters IRIs forbid), since a store may hold them. Language
// tags are lower-cased (kb.LangLiteral). Surrounding white space is
// allowed; anything else after the term is an error.
func ParseTerm(s string) (kb.Term, error) {
	p := &LineParser{line: 1, text: []byte(s), anyIRI: true}
	p.skipSpace()
	t, err := p.term()
	if err != nil {
		return kb.Term{}, err
	}
	p.skipSpace()
	if p.pos < len(p.text) {
		return kb.Term{}, p.errAt(p.pos, "unexpected %s after the term", p.found())
	}
	return t, nil
}

// ParseTerms parses a run of N-Triples terms separated by spaces or tabs,
// as ParseTerm parses one, such as the terms of one statement without its
// final '.'.
func ParseTerms(s string) ([]kb.Term, error) {
	p := &LineParser{line: 1, text: []byte(s), anyIRI: true}
	var out []kb.Term
	for p.skipSpace(); p.pos < len(p.text); p.skipSpace() {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		if p.pos < len(p.text) && p.text[p.pos] != ' ' && p.text[p.pos] != '\t' {
			return nil, p.errAt(p.pos, "expected white space after the term, found %s", p.found())
		}
		out = append(out, t)
	}
	return out, nil
}

// term parses one term of any kind.
func (p *LineParser) term() (kb.Term, error) {
	if p.peekIs('<') || p.peekIs('_') || p.peekIs('"') {
		return p.object()
	}
	return kb.Term{}, p.errAt(p.pos, "expected an N-Triples term (<IRI>, _:label, \"literal\" or <<( triple term )>>), found %s", p.found())
}

// splitLangDir checks a language tag as N-Triples, Turtle and TriG write
// it, with an RDF 1.2 base direction after "--", and splits the two.
// Subtags are at most 8 characters (BCP 47), the first letters only; the
// direction is "ltr" or "rtl", in lower case.
func splitLangDir(tag string) (lang, dir string, err error) {
	lang = tag
	if i := strings.Index(tag, "--"); i >= 0 {
		lang, dir = tag[:i], tag[i+2:]
		if dir != "ltr" && dir != "rtl" {
			return "", "", fmt.Errorf("the base direction must be ltr or rtl, not %q", dir)
		}
	}
	for i, sub := range strings.Split(lang, "-") {
		if sub == "" || len(sub) > 8 {
			return "", "", errors.New("subtags are 1 to 8 characters")
		}
		for _, c := range []byte(sub) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
				return "", "", fmt.Errorf("unexpected %q", c)
			}
		}
	}
	return lang, dir, nil
}

// checkDatatype refuses the datatypes a literal gets only from a language
// tag (RDF 1.2 Concepts: rdf:langString and rdf:dirLangString literals
// have a language tag, which ^^ cannot give).
func checkDatatype(dt string) error {
	if dt == ontology.RDFLangString || dt == ontology.RDFDirLangString {
		return fmt.Errorf("a literal of datatype <%s> needs a language tag (write \"…\"@tag)", dt)
	}
	return nil
}
