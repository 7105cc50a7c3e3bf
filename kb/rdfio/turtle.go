package rdfio

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Options configure a decoder.
type Options struct {
	// Base is the absolute IRI relative IRIs are resolved against; with
	// none, a relative IRI is an error.
	Base string
	// Source names the input in errors (usually the file name).
	Source string
}

// Decoder yields the statements of an RDF document one at a time.
type Decoder interface {
	// Next returns the next statement, io.EOF after the last one, or
	// the error (a *textpos.Error for malformed input) that stopped the
	// parse; after an error it keeps returning it.
	Next() (kb.TermQuad, error)
}

// maxNesting bounds how deeply blank node property lists and collections
// nest, so that hostile input cannot exhaust the stack.
const maxNesting = 2048

// anonPrefix starts the labels of blank nodes written without one ([] and
// collections). Explicit labels that start with it are given it twice, so
// the two can never meet: an anonymous label is anonPrefix and digits, a
// renamed explicit one continues with "g_".
const anonPrefix = "g_"

// TurtleDecoder reads Turtle or TriG. It is a hand-written recursive
// descent parser over a sliding buffer: it holds one statement (in TriG,
// one statement of a graph block) at a time, and runs on the caller's
// goroutine.
type TurtleDecoder struct {
	in       *reader
	trig     bool
	src      string
	base     string
	prefixes map[string]string

	out    []kb.TermQuad // statements of the current statement not yet returned
	outPos int
	err    error

	inBlock bool    // inside a TriG { … }
	graph   kb.Term // the graph of the block (zero: default graph)
	anon    int     // anonymous blank nodes made so far
	depth   int

	tok []byte // scratch for the token being read
}

// NewTurtleDecoder returns a decoder reading Turtle from r.
func NewTurtleDecoder(r io.Reader, opts Options) *TurtleDecoder {
	return &TurtleDecoder{in: newReader(r), src: opts.Source, base: opts.Base, prefixes: make(map[string]string)}
}

// NewTriGDecoder returns a decoder reading TriG from r; statements outside
// a named graph have a zero G.
func NewTriGDecoder(r io.Reader, opts Options) *TurtleDecoder {
	d := NewTurtleDecoder(r, opts)
	d.trig = true
	return d
}

// Next returns the next statement.
func (d *TurtleDecoder) Next() (kb.TermQuad, error) {
	for d.outPos == len(d.out) {
		if d.err != nil {
			return kb.TermQuad{}, d.err
		}
		d.out, d.outPos = d.out[:0], 0
		if err := d.statement(); err != nil {
			d.err = err
		}
	}
	q := d.out[d.outPos]
	d.outPos++
	return q, nil
}

// errorf returns a *textpos.Error at the given position; a read error of the
// underlying reader wins, since it is the real cause.
func (d *TurtleDecoder) errorf(line, col int, format string, args ...any) error {
	if d.in.rerr != nil {
		return fmt.Errorf("%s:%d:%d: read: %w", sourceName(d.src), d.in.line, d.in.col, d.in.rerr)
	}
	return syntaxError(d.src, line, col, fmt.Sprintf(format, args...))
}

// errHere is errorf at the next character.
func (d *TurtleDecoder) errHere(format string, args ...any) error {
	return d.errorf(d.in.line, d.in.col, format, args...)
}

// expected reports that what is next is not what the grammar needs.
func (d *TurtleDecoder) expected(what string) error {
	return d.errHere("expected %s, found %s", what, d.found())
}

func sourceName(s string) string {
	if s == "" {
		return "<input>"
	}
	return s
}

// found describes the next character (or the end of the input).
func (d *TurtleDecoder) found() string {
	c := d.in.peek()
	if c < 0 {
		return "end of input"
	}
	if c < 0x80 {
		return strconv.QuoteRune(rune(c))
	}
	d.in.fill(utf8.UTFMax)
	r, w := utf8.DecodeRune(d.in.buf[d.in.pos:d.in.end])
	if r == utf8.RuneError && w <= 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02X", c)
	}
	return strconv.QuoteRune(r)
}

func (d *TurtleDecoder) emit(s, p, o kb.Term) {
	d.out = append(d.out, kb.TermQuad{S: s, P: p, O: o, G: d.graph})
}

// skipWS skips white space and comments.
func (d *TurtleDecoder) skipWS() error {
	in := d.in
	for {
		c := in.peek()
		switch c {
		case ' ', '\t', '\r':
			in.skipASCII(1)
		case '\n':
			in.advance()
		case '#':
			for {
				c = in.peek()
				if c < 0 || c == '\n' || c == '\r' {
					break
				}
				if c >= 0x80 {
					if _, err := d.rune("a comment"); err != nil {
						return err
					}
					continue
				}
				in.skipASCII(1)
			}
		default:
			return nil
		}
	}
}

// rune decodes and consumes the (non-ASCII) character at the current
// position, rejecting invalid UTF-8.
func (d *TurtleDecoder) rune(where string) (rune, error) {
	in := d.in
	in.fill(utf8.UTFMax)
	r, w := utf8.DecodeRune(in.buf[in.pos:in.end])
	if r == utf8.RuneError && w <= 1 {
		return 0, d.errHere("invalid UTF-8 in %s", where)
	}
	in.skipRune(w)
	return r, nil
}

// peekRune decodes the character k bytes ahead without consuming it; w is
// 0 at the end of the input and r is utf8.RuneError for invalid UTF-8.
func (d *TurtleDecoder) peekRune(k int) (r rune, w int) {
	in := d.in
	in.fill(k + utf8.UTFMax)
	if in.pos+k >= in.end {
		return 0, 0
	}
	if c := in.buf[in.pos+k]; c < 0x80 {
		return rune(c), 1
	}
	return utf8.DecodeRune(in.buf[in.pos+k : in.end])
}

// keyword reports whether the next bytes are the word kw (ASCII, compared
// case-insensitively when fold) not followed by a name character or ':'.
func (d *TurtleDecoder) keyword(kw string, fold bool) bool {
	in := d.in
	if !in.fill(len(kw)) {
		return false
	}
	word := in.buf[in.pos : in.pos+len(kw)]
	if fold {
		if !strings.EqualFold(string(word), kw) {
			return false
		}
	} else if string(word) != kw {
		return false
	}
	r, w := d.peekRune(len(kw))
	return w == 0 || !(isPNChars(r) || r == ':' || r == '.' && d.dotContinues(len(kw)+1))
}

// statement parses one statement (in TriG, one statement of a graph block,
// or a block's end), appending its triples to d.out; io.EOF at the end.
func (d *TurtleDecoder) statement() error {
	if err := d.skipWS(); err != nil {
		return err
	}
	in := d.in
	c := in.peek()
	if d.inBlock {
		switch c {
		case -1:
			return d.expected("'}' to close the graph block")
		case '}':
			in.skipASCII(1)
			d.inBlock, d.graph = false, kb.Term{}
			return nil
		}
		if err := d.triples(); err != nil {
			return err
		}
		if err := d.skipWS(); err != nil {
			return err
		}
		switch in.peek() {
		case '.':
			in.skipASCII(1)
		case '}':
		default:
			return d.expected("'.' or '}' after the triples")
		}
		return nil
	}
	switch {
	case c < 0:
		if in.rerr != nil {
			return d.errHere("")
		}
		return io.EOF
	case c == '@':
		return d.atDirective()
	case (c == 'P' || c == 'p') && d.keyword("PREFIX", true):
		in.skipASCII(6)
		return d.prefixDecl(false)
	case (c == 'B' || c == 'b') && d.keyword("BASE", true):
		in.skipASCII(4)
		return d.baseDecl(false)
	case (c == 'V' || c == 'v') && d.keyword("VERSION", true):
		in.skipASCII(7)
		return d.versionDecl(false)
	}
	if d.trig {
		return d.trigBlock()
	}
	if err := d.triples(); err != nil {
		return err
	}
	return d.dot("the triples")
}

// dot expects the '.' that ends a statement.
func (d *TurtleDecoder) dot(after string) error {
	if err := d.skipWS(); err != nil {
		return err
	}
	if d.in.peek() != '.' {
		return d.expected("'.' after " + after)
	}
	d.in.skipASCII(1)
	return nil
}

// atDirective parses @prefix or @base.
func (d *TurtleDecoder) atDirective() error {
	in := d.in
	line, col := in.line, in.col
	switch {
	case d.keywordAt("@prefix"):
		in.skipASCII(7)
		return d.prefixDecl(true)
	case d.keywordAt("@base"):
		in.skipASCII(5)
		return d.baseDecl(true)
	case d.keywordAt("@version"):
		in.skipASCII(8)
		return d.versionDecl(true)
	}
	return d.errorf(line, col, "expected @prefix, @base or @version, found %s", d.found())
}

// versionDecl parses the rest of a version declaration (RDF 1.2): a short
// quoted string, and the '.' when at. Every version is read the same way.
func (d *TurtleDecoder) versionDecl(at bool) error {
	if err := d.skipWS(); err != nil {
		return err
	}
	in := d.in
	q := in.peek()
	if q != '"' && q != '\'' || in.peekAt(1) == q && in.peekAt(2) == q {
		return d.expected("a version string in single or double quotes (not a long string)")
	}
	line, col := in.line, in.col
	v, err := d.literal()
	if err != nil {
		return err
	}
	if v.Datatype != ontology.XSDString {
		return d.errorf(line, col, "a version is a plain string, not %s", v)
	}
	if at {
		return d.dot("@version")
	}
	return nil
}

func (d *TurtleDecoder) keywordAt(kw string) bool {
	in := d.in
	if !in.fill(len(kw)) || string(in.buf[in.pos:in.pos+len(kw)]) != kw {
		return false
	}
	r, w := d.peekRune(len(kw))
	return w == 0 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
}

// prefixDecl parses the rest of a prefix declaration: PNAME_NS IRIREF,
// and the '.' when at (the @prefix form).
func (d *TurtleDecoder) prefixDecl(at bool) error {
	if err := d.skipWS(); err != nil {
		return err
	}
	prefix, err := d.prefixName()
	if err != nil {
		return err
	}
	if d.in.peek() != ':' {
		return d.expected("':' after the prefix name")
	}
	d.in.skipASCII(1)
	if err := d.skipWS(); err != nil {
		return err
	}
	if d.in.peek() != '<' {
		return d.expected("the <IRI> of prefix " + strconv.Quote(prefix+":"))
	}
	iri, err := d.iriRef()
	if err != nil {
		return err
	}
	d.prefixes[prefix] = iri
	if at {
		return d.dot("the @prefix declaration")
	}
	return nil
}

// baseDecl parses the rest of a base declaration.
func (d *TurtleDecoder) baseDecl(at bool) error {
	if err := d.skipWS(); err != nil {
		return err
	}
	if d.in.peek() != '<' {
		return d.expected("the base <IRI>")
	}
	iri, err := d.iriRef()
	if err != nil {
		return err
	}
	d.base = iri
	if at {
		return d.dot("the @base declaration")
	}
	return nil
}

// trigBlock parses a TriG block outside braces: a graph block (opening it),
// or triples in the default graph.
func (d *TurtleDecoder) trigBlock() error {
	in := d.in
	c := in.peek()
	switch {
	case c == '{':
		in.skipASCII(1)
		d.inBlock, d.graph = true, kb.Term{}
		return nil
	case (c == 'G' || c == 'g') && d.keyword("GRAPH", true):
		in.skipASCII(5)
		if err := d.skipWS(); err != nil {
			return err
		}
		label, err := d.graphLabel()
		if err != nil {
			return err
		}
		if err := d.skipWS(); err != nil {
			return err
		}
		if in.peek() != '{' {
			return d.expected("'{' after the graph name")
		}
		in.skipASCII(1)
		d.inBlock, d.graph = true, label
		return nil
	case c == '[':
		subj, plist, err := d.blankNodeOrList()
		if err != nil {
			return err
		}
		if err := d.skipWS(); err != nil {
			return err
		}
		if !plist && in.peek() == '{' {
			in.skipASCII(1)
			d.inBlock, d.graph = true, subj
			return nil
		}
		if err := d.afterSubject(subj, plist); err != nil {
			return err
		}
		return d.dot("the triples")
	case c == '(' || c == '<' && in.peekAt(1) == '<':
		if err := d.triples(); err != nil {
			return err
		}
		return d.dot("the triples")
	}
	// labelOrSubject: an IRI or a blank node label.
	subj, err := d.graphLabel()
	if err != nil {
		return err
	}
	if err := d.skipWS(); err != nil {
		return err
	}
	if in.peek() == '{' {
		in.skipASCII(1)
		d.inBlock, d.graph = true, subj
		return nil
	}
	if err := d.predicateObjectList(subj); err != nil {
		return err
	}
	return d.dot("the triples")
}

// graphLabel parses a graph name: an IRI, a blank node label or [].
func (d *TurtleDecoder) graphLabel() (kb.Term, error) {
	switch d.in.peek() {
	case '_':
		return d.blankLabel()
	case '[':
		t, plist, err := d.blankNodeOrList()
		if err == nil && plist {
			return kb.Term{}, d.expected("a graph name (an IRI or a blank node)")
		}
		return t, err
	}
	iri, err := d.iri("a graph name or subject (an IRI or a blank node)")
	return kb.Term{Kind: kb.KindIRI, Value: iri}, err
}

// triples parses subject predicateObjectList, or a blank node property
// list with an optional predicateObjectList.
func (d *TurtleDecoder) triples() error {
	in := d.in
	switch in.peek() {
	case '[':
		subj, plist, err := d.blankNodeOrList()
		if err != nil {
			return err
		}
		if err := d.skipWS(); err != nil {
			return err
		}
		return d.afterSubject(subj, plist)
	case '(':
		subj, err := d.collection()
		if err != nil {
			return err
		}
		return d.predicateObjectList(subj)
	case '_':
		subj, err := d.blankLabel()
		if err != nil {
			return err
		}
		return d.predicateObjectList(subj)
	case '<':
		if in.peekAt(1) == '<' {
			if in.peekAt(2) == '(' {
				return d.expected("a subject (a triple term <<( … )>> may only be an object)")
			}
			subj, err := d.reifiedTriple()
			if err != nil {
				return err
			}
			if err := d.skipWS(); err != nil {
				return err
			}
			return d.afterSubject(subj, true)
		}
	}
	iri, err := d.iri("a subject (an IRI, a blank node or a collection)")
	if err != nil {
		return err
	}
	return d.predicateObjectList(kb.Term{Kind: kb.KindIRI, Value: iri})
}

// afterSubject parses what follows a subject written with brackets: a
// property list "[ … ]" may stand alone, "[]" needs predicates.
func (d *TurtleDecoder) afterSubject(subj kb.Term, plist bool) error {
	if plist {
		switch d.in.peek() {
		case '.', -1:
			return nil
		case '}':
			if d.inBlock {
				return nil
			}
		}
	}
	return d.predicateObjectList(subj)
}

// predicateObjectList parses verb objectList (';' (verb objectList)?)*.
func (d *TurtleDecoder) predicateObjectList(subj kb.Term) error {
	in := d.in
	for {
		if err := d.skipWS(); err != nil {
			return err
		}
		var pred kb.Term
		if in.peek() == 'a' && d.keyword("a", false) {
			in.skipASCII(1)
			pred = kb.Term{Kind: kb.KindIRI, Value: ontology.RDFType}
		} else {
			iri, err := d.iri("a predicate (an IRI or 'a')")
			if err != nil {
				return err
			}
			pred = kb.Term{Kind: kb.KindIRI, Value: iri}
		}
		for {
			if err := d.skipWS(); err != nil {
				return err
			}
			obj, err := d.object()
			if err != nil {
				return err
			}
			d.emit(subj, pred, obj)
			if err := d.annotation(subj, pred, obj); err != nil {
				return err
			}
			if err := d.skipWS(); err != nil {
				return err
			}
			if in.peek() != ',' {
				break
			}
			in.skipASCII(1)
		}
		if in.peek() != ';' {
			return nil
		}
		for in.peek() == ';' {
			in.skipASCII(1)
			if err := d.skipWS(); err != nil {
				return err
			}
		}
		switch in.peek() {
		case '.', ']', '}', -1:
			return nil
		case '|':
			if in.peekAt(1) == '}' { // the end of an annotation block
				return nil
			}
		}
	}
}

// object parses an object, emitting the triples of nested blank nodes and
// collections.
func (d *TurtleDecoder) object() (kb.Term, error) {
	in := d.in
	c := in.peek()
	switch {
	case c == '<' && in.peekAt(1) == '<':
		if in.peekAt(2) == '(' {
			return d.tripleTerm()
		}
		return d.reifiedTriple()
	case c == '<':
		iri, err := d.iriRef()
		return kb.Term{Kind: kb.KindIRI, Value: iri}, err
	case c == '_':
		return d.blankLabel()
	case c == '[':
		t, _, err := d.blankNodeOrList()
		return t, err
	case c == '(':
		return d.collection()
	case c == '"' || c == '\'':
		return d.literal()
	case c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' && isDigit(in.peekAt(1)):
		return d.number()
	case c == 't' && d.keyword("true", false):
		in.skipASCII(4)
		return kb.Term{Kind: kb.KindLiteral, Value: "true", Datatype: ontology.XSDBoolean}, nil
	case c == 'f' && d.keyword("false", false):
		in.skipASCII(5)
		return kb.Term{Kind: kb.KindLiteral, Value: "false", Datatype: ontology.XSDBoolean}, nil
	}
	iri, err := d.iri("an object (an IRI, a blank node, a collection or a literal)")
	return kb.Term{Kind: kb.KindIRI, Value: iri}, err
}

// newAnon returns a fresh blank node for [] and collections.
func (d *TurtleDecoder) newAnon() kb.Term {
	d.anon++
	return kb.Term{Kind: kb.KindBlank, Value: anonPrefix + strconv.Itoa(d.anon)}
}

// nest guards the nesting depth.
func (d *TurtleDecoder) nest() error {
	d.depth++
	if d.depth > maxNesting {
		return d.errHere("blank nodes and collections nested more than %d deep", maxNesting)
	}
	return nil
}

// blankNodeOrList parses "[]" (plist false) or "[ predicateObjectList ]".
func (d *TurtleDecoder) blankNodeOrList() (kb.Term, bool, error) {
	in := d.in
	line, col := in.line, in.col
	in.skipASCII(1) // '['
	if err := d.skipWS(); err != nil {
		return kb.Term{}, false, err
	}
	node := d.newAnon()
	if in.peek() == ']' {
		in.skipASCII(1)
		return node, false, nil
	}
	if err := d.nest(); err != nil {
		return kb.Term{}, false, err
	}
	if err := d.predicateObjectList(node); err != nil {
		return kb.Term{}, false, err
	}
	d.depth--
	if err := d.skipWS(); err != nil {
		return kb.Term{}, false, err
	}
	if in.peek() != ']' {
		if in.peek() < 0 {
			return kb.Term{}, false, d.errorf(line, col, "unclosed '[': expected ']' before the end of input")
		}
		return kb.Term{}, false, d.expected("']' to close the '[' at " + strconv.Itoa(line) + ":" + strconv.Itoa(col))
	}
	in.skipASCII(1)
	return node, true, nil
}

// collection parses "( object* )".
func (d *TurtleDecoder) collection() (kb.Term, error) {
	in := d.in
	line, col := in.line, in.col
	in.skipASCII(1) // '('
	if err := d.nest(); err != nil {
		return kb.Term{}, err
	}
	first, rest, nilT := kb.Term{Kind: kb.KindIRI, Value: ontology.RDFFirst}, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFRest}, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFNil}
	head, prev := nilT, kb.Term{}
	for {
		if err := d.skipWS(); err != nil {
			return kb.Term{}, err
		}
		switch in.peek() {
		case ')':
			in.skipASCII(1)
			if !prev.IsZero() {
				d.emit(prev, rest, nilT)
			}
			d.depth--
			return head, nil
		case -1:
			return kb.Term{}, d.errorf(line, col, "unclosed '(': expected ')' before the end of input")
		}
		node := d.newAnon()
		if prev.IsZero() {
			head = node
		} else {
			d.emit(prev, rest, node)
		}
		obj, err := d.object()
		if err != nil {
			return kb.Term{}, err
		}
		d.emit(node, first, obj)
		prev = node
	}
}

// blankLabel parses _:label.
func (d *TurtleDecoder) blankLabel() (kb.Term, error) {
	in := d.in
	if in.peekAt(1) != ':' {
		return kb.Term{}, d.expected("a blank node label '_:…'")
	}
	in.skipASCII(2)
	d.tok = d.tok[:0]
	r, w := d.peekRune(0)
	if w == 0 || !(isPNCharsU(r) || r >= '0' && r <= '9') {
		return kb.Term{}, d.expected("a blank node label after '_:'")
	}
	if err := d.nameChars(false); err != nil {
		return kb.Term{}, err
	}
	label := string(d.tok)
	if strings.HasPrefix(label, anonPrefix) {
		label = anonPrefix + label
	}
	return kb.Term{Kind: kb.KindBlank, Value: label}, nil
}

// nameChars reads (PN_CHARS | '.')* not ending in '.' into d.tok (with
// local, also ':' and the %XX and \-escapes of PN_LOCAL).
func (d *TurtleDecoder) nameChars(local bool) error {
	in := d.in
	for {
		// Fast path: a run of ASCII name characters in the buffer.
		i := in.pos
		for i < in.end && in.buf[i] < 0x80 && asciiPNChars[in.buf[i]] {
			i++
		}
		if i > in.pos {
			d.tok = append(d.tok, in.buf[in.pos:i]...)
			in.skipASCII(i - in.pos)
		}
		c := in.peek()
		if c < 0 {
			return nil
		}
		if c < 0x80 {
			switch {
			case asciiPNChars[c]:
				d.tok = append(d.tok, byte(c))
				in.skipASCII(1)
				continue
			case c == '.':
				if !d.dotContinuesName(local) {
					return nil
				}
				d.tok = append(d.tok, '.')
				in.skipASCII(1)
				continue
			case local && c == ':':
				d.tok = append(d.tok, ':')
				in.skipASCII(1)
				continue
			case local && c == '%':
				h1, h2 := in.peekAt(1), in.peekAt(2)
				if !isHex(h1) || !isHex(h2) {
					return d.errHere("'%%' in a prefixed name must be followed by two hex digits")
				}
				d.tok = append(d.tok, '%', byte(h1), byte(h2))
				in.skipASCII(3)
				continue
			case local && c == '\\':
				e := in.peekAt(1)
				if e < 0 || !strings.ContainsRune(localEscapes, rune(e)) {
					return d.errHere("invalid escape in a prefixed name (only \\ followed by one of %s is allowed)", localEscapes)
				}
				d.tok = append(d.tok, byte(e))
				in.skipASCII(2)
				continue
			}
			return nil
		}
		r, w := d.peekRune(0)
		if r == utf8.RuneError && w <= 1 {
			return d.errHere("invalid UTF-8 in a name")
		}
		if !isPNChars(r) {
			return nil
		}
		d.tok = utf8.AppendRune(d.tok, r)
		in.skipRune(w)
	}
}

// localEscapes are the characters PN_LOCAL_ESC may escape.
const localEscapes = "_~.-!$&'()*+,;=/?#@%"

// dotContinuesName reports whether the '.' (or run of dots) at the current
// position is inside a name, i.e. followed by a name character.
func (d *TurtleDecoder) dotContinuesName(local bool) bool {
	k := 1
	for d.in.peekAt(k) == '.' {
		k++
	}
	r, w := d.peekRune(k)
	if w == 0 {
		return false
	}
	return isPNChars(r) || local && (r == ':' || r == '%' || r == '\\')
}

// dotContinues is dotContinuesName for a prefix at offset k.
func (d *TurtleDecoder) dotContinues(k int) bool {
	for d.in.peekAt(k) == '.' {
		k++
	}
	r, w := d.peekRune(k)
	return w > 0 && isPNChars(r)
}

// prefixName reads PN_PREFIX (possibly empty) before the ':'.
func (d *TurtleDecoder) prefixName() (string, error) {
	if err := d.prefixChars(); err != nil {
		return "", err
	}
	return string(d.tok), nil
}

// prefixChars reads PN_PREFIX (possibly empty) into d.tok.
func (d *TurtleDecoder) prefixChars() error {
	d.tok = d.tok[:0]
	r, w := d.peekRune(0)
	if w == 0 || r == ':' {
		return nil
	}
	if !isPNCharsBase(r) {
		if r == utf8.RuneError && w == 1 {
			return d.errHere("invalid UTF-8 in a name")
		}
		return d.expected("a prefix name")
	}
	return d.nameChars(false)
}

// iri parses an IRI: <…> or a prefixed name; what names the expected
// term for errors.
func (d *TurtleDecoder) iri(what string) (string, error) {
	in := d.in
	c := in.peek()
	if c == '<' {
		return d.iriRef()
	}
	r, w := d.peekRune(0)
	if w == 0 || !(r == ':' || isPNCharsBase(r)) {
		if r == utf8.RuneError && w == 1 {
			return "", d.errHere("invalid UTF-8")
		}
		return "", d.expected(what)
	}
	line, col := in.line, in.col
	if err := d.prefixChars(); err != nil {
		return "", err
	}
	if in.peek() != ':' {
		return "", d.errorf(line, col, "expected %s, found %q (a prefixed name needs ':')", what, d.tok)
	}
	in.skipASCII(1)
	ns, ok := d.prefixes[string(d.tok)] // no allocation for the lookup
	if !ok {
		return "", d.errorf(line, col, "undeclared prefix %q", string(d.tok)+":")
	}
	d.tok = d.tok[:0]
	r, w = d.peekRune(0)
	if w > 0 && (isPNCharsU(r) || r == ':' || r >= '0' && r <= '9' || r == '%' || r == '\\') {
		if err := d.nameChars(true); err != nil {
			return "", err
		}
	}
	return ns + string(d.tok), nil
}

// iriRef parses <…>, resolving it against the base.
func (d *TurtleDecoder) iriRef() (string, error) {
	in := d.in
	line, col := in.line, in.col
	in.skipASCII(1) // '<'
	d.tok = d.tok[:0]
	for {
		// Fast path: a run of plain ASCII.
		i := in.pos
		for i < in.end && iriPlain[in.buf[i]] {
			i++
		}
		if i > in.pos {
			d.tok = append(d.tok, in.buf[in.pos:i]...)
			in.skipASCII(i - in.pos)
		}
		c := in.peek()
		switch {
		case c < 0:
			return "", d.errorf(line, col, "unterminated IRI: expected '>' before the end of input")
		case c == '>':
			in.skipASCII(1)
			return d.resolve(string(d.tok), line, col)
		case c == '\\':
			r, err := d.uchar(true)
			if err != nil {
				return "", err
			}
			if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) {
				return "", d.errorf(line, col, "escaped character %U is not allowed in an IRI", r)
			}
			d.tok = utf8.AppendRune(d.tok, r)
		case c >= 0x80:
			r, err := d.rune("an IRI")
			if err != nil {
				return "", err
			}
			d.tok = utf8.AppendRune(d.tok, r)
		case iriPlain[c]:
			// the buffer ended inside a run; go round again
		default:
			return "", d.errHere("character %q is not allowed in an IRI", rune(c))
		}
	}
}

// resolve makes iri absolute against the base (kb.ResolveRelative).
func (d *TurtleDecoder) resolve(iri string, line, col int) (string, error) {
	if d.base == "" && !kb.IsAbsoluteIRI(iri) {
		return "", d.errorf(line, col, "relative IRI <%s> and no base IRI to resolve it against", iri)
	}
	return kb.ResolveRelative(d.base, iri), nil
}

// uchar parses \uXXXX or \UXXXXXXXX (only those when iri) and, in strings,
// the ECHAR escapes.
func (d *TurtleDecoder) uchar(iri bool) (rune, error) {
	in := d.in
	line, col := in.line, in.col
	e := in.peekAt(1)
	n := 0
	switch e {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		if !iri {
			if r, ok := stringEscapes[e]; ok {
				in.skipASCII(2)
				return r, nil
			}
		}
		if iri {
			return 0, d.errHere("invalid escape in an IRI (only \\u and \\U are allowed)")
		}
		return 0, d.errHere("invalid escape sequence in a string (want \\t \\b \\n \\r \\f \\\" \\' \\\\ \\u or \\U)")
	}
	var v rune
	for k := 2; k < 2+n; k++ {
		h := in.peekAt(k)
		if !isHex(h) {
			return 0, d.errorf(line, col, "\\%c needs %d hex digits", e, n)
		}
		v = v<<4 | rune(hexVal(h))
	}
	if v >= 0xD800 && v <= 0xDFFF {
		return 0, d.errorf(line, col, "escape \\%c%0*X is a surrogate code point, not a character", e, n, v)
	}
	if v > utf8.MaxRune {
		return 0, d.errorf(line, col, "escape \\%c%0*X is beyond the last Unicode character", e, n, v)
	}
	in.skipASCII(2 + n)
	return v, nil
}

var stringEscapes = map[int]rune{'t': '\t', 'b': '\b', 'n': '\n', 'r': '\r', 'f': '\f', '"': '"', '\'': '\'', '\\': '\\'}

// literal parses a quoted string with its language tag or datatype.
func (d *TurtleDecoder) literal() (kb.Term, error) {
	in := d.in
	line, col := in.line, in.col
	q := byte(in.peek())
	long := in.peekAt(1) == int(q) && in.peekAt(2) == int(q)
	if long {
		in.skipASCII(3)
	} else {
		in.skipASCII(1)
	}
	d.tok = d.tok[:0]
	for {
		i := in.pos
		for i < in.end && stringPlain[in.buf[i]] && in.buf[i] != q {
			i++
		}
		if i > in.pos {
			d.tok = append(d.tok, in.buf[in.pos:i]...)
			in.skipASCII(i - in.pos)
		}
		c := in.peek()
		switch {
		case c < 0:
			return kb.Term{}, d.errorf(line, col, "unterminated string: expected the closing quote before the end of input")
		case c == int(q):
			if !long {
				in.skipASCII(1)
				return d.literalSuffix(string(d.tok))
			}
			if in.peekAt(1) == int(q) && in.peekAt(2) == int(q) {
				in.skipASCII(3)
				return d.literalSuffix(string(d.tok))
			}
			d.tok = append(d.tok, q)
			in.skipASCII(1)
		case c == '\\':
			r, err := d.uchar(false)
			if err != nil {
				return kb.Term{}, err
			}
			d.tok = utf8.AppendRune(d.tok, r)
		case c == '\n' || c == '\r':
			if !long {
				return kb.Term{}, d.errHere("line break in a string (use a long string \"\"\"…\"\"\" or \\n)")
			}
			d.tok = append(d.tok, byte(c))
			in.advance()
		case c >= 0x80:
			r, err := d.rune("a string")
			if err != nil {
				return kb.Term{}, err
			}
			d.tok = utf8.AppendRune(d.tok, r)
		default:
			// the other quote character, or the buffer ended in a run
			if c != '"' && c != '\'' {
				continue
			}
			d.tok = append(d.tok, byte(c))
			in.skipASCII(1)
		}
	}
}

// literalSuffix parses what may follow a string: @lang or ^^datatype.
func (d *TurtleDecoder) literalSuffix(lexical string) (kb.Term, error) {
	in := d.in
	switch in.peek() {
	case '@':
		line, col := in.line, in.col
		in.skipASCII(1)
		start := len(d.tok)
		d.tok = append(d.tok, "@"...)
		n := 0
		for c := in.peek(); c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'; c = in.peek() {
			d.tok = append(d.tok, byte(c))
			in.skipASCII(1)
			n++
		}
		if n == 0 {
			return kb.Term{}, d.errorf(line, col, "expected a language tag after '@', found %s", d.found())
		}
		for in.peek() == '-' {
			c := in.peekAt(1)
			if c == '-' { // RDF 1.2: "--" and the base direction
				d.tok = append(d.tok, "--"...)
				in.skipASCII(2)
				for c := in.peek(); c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'; c = in.peek() {
					d.tok = append(d.tok, byte(c))
					in.skipASCII(1)
				}
				break
			}
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return kb.Term{}, d.errHere("expected a language subtag after '-', found %s", d.found())
			}
			d.tok = append(d.tok, '-')
			in.skipASCII(1)
			for c := in.peek(); c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'; c = in.peek() {
				d.tok = append(d.tok, byte(c))
				in.skipASCII(1)
			}
		}
		lang, dir, err := splitLangDir(string(d.tok[start+1:]))
		if err != nil {
			return kb.Term{}, d.errorf(line, col, "invalid language tag %q: %v", string(d.tok[start:]), err)
		}
		if dir != "" {
			return kb.DirLangLiteral(lexical, lang, dir), nil
		}
		return kb.LangLiteral(lexical, lang), nil
	case '^':
		if in.peekAt(1) != '^' {
			return kb.Term{}, d.expected("'^^' before the datatype")
		}
		in.skipASCII(2)
		line, col := in.line, in.col
		dt, err := d.iri("a datatype IRI after '^^'")
		if err != nil {
			return kb.Term{}, err
		}
		if err := checkDatatype(dt); err != nil {
			return kb.Term{}, d.errorf(line, col, "%v", err)
		}
		return kb.Term{Kind: kb.KindLiteral, Value: lexical, Datatype: dt}, nil
	}
	return kb.Term{Kind: kb.KindLiteral, Value: lexical, Datatype: ontology.XSDString}, nil
}

// number parses INTEGER, DECIMAL or DOUBLE, keeping the lexical form.
func (d *TurtleDecoder) number() (kb.Term, error) {
	in := d.in
	line, col := in.line, in.col
	d.tok = d.tok[:0]
	if c := in.peek(); c == '+' || c == '-' {
		d.tok = append(d.tok, byte(c))
		in.skipASCII(1)
	}
	intDigits := d.digits()
	dt := ontology.XSDInteger
	if in.peek() == '.' {
		next := in.peekAt(1)
		switch {
		case next >= '0' && next <= '9':
			in.skipASCII(1)
			d.tok = append(d.tok, '.')
			d.digits()
			dt = ontology.XSDDecimal
		case (next == 'e' || next == 'E') && intDigits > 0 && d.exponentAt(2):
			in.skipASCII(1)
			d.tok = append(d.tok, '.')
		}
	}
	if c := in.peek(); (c == 'e' || c == 'E') && d.exponentAt(1) && (intDigits > 0 || dt == ontology.XSDDecimal) {
		d.tok = append(d.tok, byte(c))
		in.skipASCII(1)
		if c := in.peek(); c == '+' || c == '-' {
			d.tok = append(d.tok, byte(c))
			in.skipASCII(1)
		}
		d.digits()
		dt = ontology.XSDDouble
	}
	if intDigits == 0 && dt == ontology.XSDInteger {
		return kb.Term{}, d.errorf(line, col, "expected a number, found %s", strconv.Quote(string(d.tok)+d.found()))
	}
	return kb.Term{Kind: kb.KindLiteral, Value: string(d.tok), Datatype: dt}, nil
}

// digits reads [0-9]* into d.tok, returning how many.
func (d *TurtleDecoder) digits() int {
	n := 0
	for c := d.in.peek(); c >= '0' && c <= '9'; c = d.in.peek() {
		d.tok = append(d.tok, byte(c))
		d.in.skipASCII(1)
		n++
	}
	return n
}

// exponentAt reports whether an exponent's digits follow the 'e' at
// offset k-1: [+-]?[0-9].
func (d *TurtleDecoder) exponentAt(k int) bool {
	c := d.in.peekAt(k)
	if c == '+' || c == '-' {
		c = d.in.peekAt(k + 1)
	}
	return c >= '0' && c <= '9'
}

func isDigit(c int) bool { return c >= '0' && c <= '9' }

func isHex(c int) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c int) int {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// iriPlain marks the ASCII bytes an IRI holds as they are.
var iriPlain = func() (t [256]bool) {
	for c := 0x21; c < 0x80; c++ {
		t[c] = !strings.ContainsRune("<>\"{}|^`\\", rune(c))
	}
	return t
}()

// stringPlain marks the ASCII bytes a string holds as they are (the
// closing quote is checked separately).
var stringPlain = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = c != '"' && c != '\'' && c != '\\' && c != '\r' && c != '\n'
	}
	return t
}()

// asciiPNChars marks the ASCII characters of PN_CHARS.
var asciiPNChars = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	return t
}()

// isPNCharsBase is PN_CHARS_BASE of the Turtle grammar.
func isPNCharsBase(r rune) bool {
	switch {
	case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		return true
	case r < 0xC0:
		return false
	}
	return r <= 0xD6 || r >= 0xD8 && r <= 0xF6 || r >= 0xF8 && r <= 0x2FF ||
		r >= 0x370 && r <= 0x37D || r >= 0x37F && r <= 0x1FFF || r >= 0x200C && r <= 0x200D ||
		r >= 0x2070 && r <= 0x218F || r >= 0x2C00 && r <= 0x2FEF || r >= 0x3001 && r <= 0xD7FF ||
		r >= 0xF900 && r <= 0xFDCF || r >= 0xFDF0 && r <= 0xFFFD || r >= 0x10000 && r <= 0xEFFFF
}

// isPNCharsU is PN_CHARS_U.
func isPNCharsU(r rune) bool { return r == '_' || isPNCharsBase(r) }

// isPNChars is PN_CHARS.
func isPNChars(r rune) bool {
	return isPNCharsU(r) || r == '-' || r >= '0' && r <= '9' || r == 0xB7 ||
		r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

// The RDF 1.2 forms: triple terms <<( s p o )>>, reified triples
// << s p o ~ r >> and annotations ~ r {| … |} after an object.

// tripleTerm parses <<( ttSubject verb ttObject )>>.
func (d *TurtleDecoder) tripleTerm() (kb.Term, error) {
	in := d.in
	line, col := in.line, in.col
	s, p, o, err := d.tripleParts(3, "the subject of a triple term (an IRI or a blank node)", false,
		"the object of a triple term (an IRI, a blank node, a literal or a triple term)")
	if err != nil {
		return kb.Term{}, err
	}
	if err := d.skipWS(); err != nil {
		return kb.Term{}, err
	}
	if !(in.peek() == ')' && in.peekAt(1) == '>' && in.peekAt(2) == '>') {
		if in.peek() < 0 {
			return kb.Term{}, d.errorf(line, col, "unclosed '<<(': expected ')>>' before the end of input")
		}
		return kb.Term{}, d.expected("')>>' to close the triple term")
	}
	in.skipASCII(3)
	d.depth--
	return kb.TripleTerm(s, p, o), nil
}

// tripleParts reads the opening of a triple term ('<<(', open 3) or of a
// reified triple ('<<', open 2) and the subject, verb and object after it.
// A reified triple's subject and object may be reified triples; a triple
// term's may not, nor may either's object be a collection.
func (d *TurtleDecoder) tripleParts(open int, subject string, reified bool, object string) (s, p, o kb.Term, err error) {
	in := d.in
	in.skipASCII(open)
	if err = d.nest(); err != nil {
		return
	}
	if err = d.skipWS(); err != nil {
		return
	}
	if s, err = d.simpleNode(subject, reified); err != nil {
		return
	}
	if p, err = d.verb(); err != nil {
		return
	}
	if err = d.skipWS(); err != nil {
		return
	}
	switch c := in.peek(); {
	case c == '(', !reified && c == '<' && in.peekAt(1) == '<' && in.peekAt(2) != '(':
		err = d.expected(object)
	case c == '[':
		o, err = d.simpleNode("", false)
	default:
		o, err = d.object()
	}
	return
}

// reifiedTriple parses << rtSubject verb rtObject reifier? >>: it emits
// "reifier rdf:reifies <<( s p o )>>" and returns the reifier (a fresh
// blank node when none is written).
func (d *TurtleDecoder) reifiedTriple() (kb.Term, error) {
	in := d.in
	line, col := in.line, in.col
	s, p, o, err := d.tripleParts(2, "the subject of a reified triple (an IRI, a blank node or a reified triple)", true,
		"the object of a reified triple (an IRI, a blank node, a literal, a triple term or a reified triple)")
	if err != nil {
		return kb.Term{}, err
	}
	if err := d.skipWS(); err != nil {
		return kb.Term{}, err
	}
	var r kb.Term
	if in.peek() == '~' {
		in.skipASCII(1)
		if err := d.skipWS(); err != nil {
			return kb.Term{}, err
		}
		if !(in.peek() == '>' && in.peekAt(1) == '>') {
			if r, err = d.simpleNode("a reifier (an IRI or a blank node)", false); err != nil {
				return kb.Term{}, err
			}
			if err := d.skipWS(); err != nil {
				return kb.Term{}, err
			}
		}
	}
	if !(in.peek() == '>' && in.peekAt(1) == '>') {
		if in.peek() < 0 {
			return kb.Term{}, d.errorf(line, col, "unclosed '<<': expected '>>' before the end of input")
		}
		return kb.Term{}, d.expected("'>>' to close the reified triple")
	}
	in.skipASCII(2)
	d.depth--
	if r.IsZero() {
		r = d.newAnon()
	}
	d.emit(r, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFReifies}, kb.TripleTerm(s, p, o))
	return r, nil
}

// simpleNode parses an IRI, a blank node label or [] (and, when reified
// is set, a reified triple).
func (d *TurtleDecoder) simpleNode(what string, reified bool) (kb.Term, error) {
	in := d.in
	switch c := in.peek(); {
	case c == '_':
		return d.blankLabel()
	case c == '[':
		line, col := in.line, in.col
		t, plist, err := d.blankNodeOrList()
		if err == nil && plist {
			return kb.Term{}, d.errorf(line, col, "a blank node property list [ … ] cannot stand here: use [] or a _:label")
		}
		return t, err
	case c == '<' && in.peekAt(1) == '<':
		if reified && in.peekAt(2) != '(' {
			return d.reifiedTriple()
		}
		return kb.Term{}, d.expected(what)
	case c == '<' || c == ':' || isPNCharsBase(rune(c)) || c >= 0x80:
		iri, err := d.iri(what)
		return kb.Term{Kind: kb.KindIRI, Value: iri}, err
	}
	return kb.Term{}, d.expected(what)
}

// verb parses a predicate: an IRI or 'a'.
func (d *TurtleDecoder) verb() (kb.Term, error) {
	if err := d.skipWS(); err != nil {
		return kb.Term{}, err
	}
	if d.in.peek() == 'a' && d.keyword("a", false) {
		d.in.skipASCII(1)
		return kb.Term{Kind: kb.KindIRI, Value: ontology.RDFType}, nil
	}
	iri, err := d.iri("a predicate (an IRI or 'a')")
	return kb.Term{Kind: kb.KindIRI, Value: iri}, err
}

// annotation parses the reifiers (~ r) and annotation blocks ({| … |})
// after the object of s p o. Each reifier emits "r rdf:reifies <<( s p o )>>";
// a block describes the reifier just before it, or a fresh blank node
// that reifies the triple.
func (d *TurtleDecoder) annotation(s, p, o kb.Term) error {
	in := d.in
	var cur kb.Term
	reifies := kb.Term{Kind: kb.KindIRI, Value: ontology.RDFReifies}
	for {
		if err := d.skipWS(); err != nil {
			return err
		}
		switch {
		case in.peek() == '~':
			in.skipASCII(1)
			if err := d.skipWS(); err != nil {
				return err
			}
			var err error
			switch c := in.peek(); {
			case c == '_' || c == '[' || c == '<' && in.peekAt(1) != '<' || c == ':' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80:
				cur, err = d.simpleNode("a reifier (an IRI or a blank node)", false)
			default:
				cur = d.newAnon()
			}
			if err != nil {
				return err
			}
			d.emit(cur, reifies, kb.TripleTerm(s, p, o))
		case in.peek() == '{' && in.peekAt(1) == '|':
			line, col := in.line, in.col
			in.skipASCII(2)
			if cur.IsZero() {
				cur = d.newAnon()
				d.emit(cur, reifies, kb.TripleTerm(s, p, o))
			}
			if err := d.nest(); err != nil {
				return err
			}
			if err := d.predicateObjectList(cur); err != nil {
				return err
			}
			if err := d.skipWS(); err != nil {
				return err
			}
			if !(in.peek() == '|' && in.peekAt(1) == '}') {
				if in.peek() < 0 {
					return d.errorf(line, col, "unclosed '{|': expected '|}' before the end of input")
				}
				return d.expected("'|}' to close the annotation block")
			}
			in.skipASCII(2)
			d.depth--
			cur = kb.Term{}
		default:
			return nil
		}
	}
}
