package syntax

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/textpos"
)

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tokEOF     tokKind = iota
	tokIRI             // <…>; text is the IRI with \u escapes decoded, not yet resolved
	tokPName           // prefix:local; text is the prefix, local the decoded local part
	tokBNode           // _:label; text is the label
	tokVar             // ?x or $x; text is the name
	tokString          // text is the decoded string
	tokLang            // @en-US; text is the tag without '@'
	tokInteger         // text is the lexical form, possibly signed
	tokDecimal         // text is the lexical form, possibly signed
	tokDouble          // text is the lexical form, possibly signed
	tokWord            // keyword, built-in name, 'a', true/false; text as written
	tokPunct           // punctuation or operator; text is the symbol
)

// token is one lexical token with its position.
type token struct {
	kind  tokKind
	text  string
	local string // tokPName only
	line  int
	col   int
	off   int // byte offset of the first byte
	end   int // byte offset just past the token
}

// describe names the token for "found …" in error messages.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokIRI:
		return "IRI <" + t.text + ">"
	case tokPName:
		return "prefixed name " + t.text + ":" + t.local
	case tokBNode:
		return "blank node _:" + t.text
	case tokVar:
		return "variable ?" + t.text
	case tokString:
		return "string " + strconv.Quote(t.text)
	case tokLang:
		return "language tag @" + t.text
	case tokInteger, tokDecimal, tokDouble:
		return "number " + t.text
	case tokWord:
		return "'" + t.text + "'"
	case tokPunct:
		return "'" + t.text + "'"
	}
	return "token"
}

// is reports whether t is the punctuation p.
func (t token) is(p string) bool { return t.kind == tokPunct && t.text == p }

// isWord reports whether t is the keyword w (case-insensitive).
func (t token) isWord(w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

// lexer turns query text into tokens.
type lexer struct {
	src  string
	pos  int
	line int
	col  int
	// rdql enables RDQL-only tokens (==, =~, !~, eq/ne are words anyway).
	rdql bool
}

func (l *lexer) errorf(line, col int, format string, args ...any) *textpos.Error {
	return errorAt(line, col, format, args...)
}

// tokenize returns every token of src, ending with tokEOF.
func tokenize(src string, rdql bool) ([]token, error) {
	return tokenizeContext(nil, src, rdql)
}

// tokenizeContext is tokenize that stops when ctx (if not nil) ends.
func tokenizeContext(ctx context.Context, src string, rdql bool) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1, rdql: rdql}
	// About one token per six bytes, but a huge text grows the slice as
	// it is read rather than allocating for all of it up front.
	toks := make([]token, 0, min(len(src)/6+1, 1<<16))
	for {
		if ctx != nil && len(toks)&8191 == 8191 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("parsing stopped: %w", err)
			}
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tokEOF {
			return toks, nil
		}
	}
}

func (l *lexer) peekByte(i int) byte {
	if l.pos+i < len(l.src) {
		return l.src[l.pos+i]
	}
	return 0
}

// advance moves over n bytes, keeping line and column.
func (l *lexer) advance(n int) {
	end := l.pos + n
	for l.pos < end {
		r, size := utf8.DecodeRuneInString(l.src[l.pos:])
		l.pos += size
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			l.advance(1)
		case c == '#' || (l.rdql && c == '/' && l.peekByte(1) == '/'):
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
		default:
			return
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// isPNCharsBase implements PN_CHARS_BASE.
func isPNCharsBase(r rune) bool {
	switch {
	case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		return true
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// isPNCharsU implements PN_CHARS_U.
func isPNCharsU(r rune) bool { return r == '_' || isPNCharsBase(r) }

// isPNChars implements PN_CHARS.
func isPNChars(r rune) bool {
	return isPNCharsU(r) || r == '-' || (r >= '0' && r <= '9') || r == 0xB7 ||
		(r >= 0x300 && r <= 0x36F) || (r >= 0x203F && r <= 0x2040)
}

// isVarChar implements the characters after the first of VARNAME.
func isVarChar(r rune) bool {
	return isPNCharsU(r) || (r >= '0' && r <= '9') || r == 0xB7 ||
		(r >= 0x300 && r <= 0x36F) || (r >= 0x203F && r <= 0x2040)
}

func (l *lexer) runeAt(off int) (rune, int) {
	if off >= len(l.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(l.src[off:])
}

func (l *lexer) next() (token, error) {
	l.skipSpace()
	t := token{line: l.line, col: l.col, off: l.pos}
	finish := func(kind tokKind, text string, n int) (token, error) {
		l.advance(n)
		t.kind, t.text, t.end = kind, text, l.pos
		return t, nil
	}
	if l.pos >= len(l.src) {
		t.kind, t.end = tokEOF, l.pos
		return t, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '<':
		if iri, n, ok := l.scanIRIRef(); ok {
			return finish(tokIRI, iri, n)
		}
		if l.peekByte(1) == '=' {
			return finish(tokPunct, "<=", 2)
		}
		if l.rdql && l.peekByte(1) == '<' {
			return finish(tokPunct, "<<", 2)
		}
		// SPARQL 1.2: '<<(' opens a triple term, '<<' a reified triple;
		// '<' followed by an IRI stays a comparison with that IRI.
		if l.peekByte(1) == '<' {
			if l.peekByte(2) == '(' {
				return finish(tokPunct, "<<(", 3)
			}
			l.pos++
			_, _, isIRI := l.scanIRIRef()
			l.pos--
			if !isIRI {
				return finish(tokPunct, "<<", 2)
			}
		}
		return finish(tokPunct, "<", 1)
	case c == '?' || c == '$':
		r, size := l.runeAt(l.pos + 1)
		if r >= 0 && (isPNCharsU(r) || (r >= '0' && r <= '9')) {
			n := 1 + size
			for {
				r, size := l.runeAt(l.pos + n)
				if r < 0 || !isVarChar(r) {
					break
				}
				n += size
			}
			return finish(tokVar, l.src[l.pos+1:l.pos+n], n)
		}
		if c == '$' {
			return t, l.errorf(t.line, t.col, "expected variable name after '$'")
		}
		return finish(tokPunct, "?", 1)
	case c == '"' || c == '\'':
		return l.scanString(t)
	case c == '@':
		n := 1
		for l.pos+n < len(l.src) && isLetter(l.src[l.pos+n]) {
			n++
		}
		if n == 1 {
			return t, l.errorf(t.line, t.col, "expected language tag after '@'")
		}
		for l.pos+n+1 < len(l.src) && l.src[l.pos+n] == '-' && (isLetter(l.src[l.pos+n+1]) || isDigit(l.src[l.pos+n+1])) {
			n += 2
			for l.pos+n < len(l.src) && (isLetter(l.src[l.pos+n]) || isDigit(l.src[l.pos+n])) {
				n++
			}
		}
		// SPARQL 1.2 LANG_DIR: a base direction after "--".
		if l.pos+n+2 < len(l.src) && l.src[l.pos+n] == '-' && l.src[l.pos+n+1] == '-' && isLetter(l.src[l.pos+n+2]) {
			n += 3
			for l.pos+n < len(l.src) && isLetter(l.src[l.pos+n]) {
				n++
			}
		}
		return finish(tokLang, l.src[l.pos+1:l.pos+n], n)
	case isDigit(c) || (c == '.' && isDigit(l.peekByte(1))):
		kind, n := l.scanNumber(0)
		return finish(kind, l.src[l.pos:l.pos+n], n)
	case (c == '+' || c == '-') && (isDigit(l.peekByte(1)) || (l.peekByte(1) == '.' && isDigit(l.peekByte(2)))):
		kind, n := l.scanNumber(1)
		return finish(kind, l.src[l.pos:l.pos+n], n)
	case c == '_' && l.peekByte(1) == ':':
		r, size := l.runeAt(l.pos + 2)
		if r < 0 || !(isPNCharsU(r) || (r >= '0' && r <= '9')) {
			return t, l.errorf(t.line, t.col, "expected blank node label after '_:'")
		}
		n := 2 + size
		n = l.scanNameTail(n, false)
		return finish(tokBNode, l.src[l.pos+2:l.pos+n], n)
	}
	r, size := utf8.DecodeRuneInString(l.src[l.pos:])
	if r == utf8.RuneError && size == 1 {
		return t, l.errorf(t.line, t.col, "invalid UTF-8 encoding")
	}
	if c == ':' || isPNCharsBase(r) {
		return l.scanName(t)
	}
	for _, p := range punctuation {
		if strings.HasPrefix(l.src[l.pos:], p) {
			if !l.rdql && rdqlOnly[p] || l.rdql && sparql12Only[p] {
				continue
			}
			return finish(tokPunct, p, len(p))
		}
	}
	return t, l.errorf(t.line, t.col, "unexpected character %q", r)
}

// punctuation lists operators longest first.
var punctuation = []string{
	")>>", "{|", "|}", "^^", "<=", ">=", "!=", "&&", "||", "==", "=~", "!~", ">>",
	"{", "}", "(", ")", "[", "]", ";", ",", ".", "=", ">", "!", "+", "-", "*", "/",
	"^", "|", "%", "&", "~",
}

// rdqlOnly lists the operators of RDQL that SPARQL does not have (SPARQL
// 1.2 uses '>>' and '~' for reified triples).
var rdqlOnly = map[string]bool{"==": true, "=~": true, "!~": true, "%": true, "&": true}

// sparql12Only lists the SPARQL 1.2 delimiters of triple terms and
// annotations, which RDQL expressions could otherwise contain.
var sparql12Only = map[string]bool{")>>": true, "{|": true, "|}": true}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// scanIRIRef tries IRIREF at the current '<'.
func (l *lexer) scanIRIRef() (string, int, bool) {
	var b strings.Builder
	i := l.pos + 1
	for i < len(l.src) {
		c := l.src[i]
		switch {
		case c == '>':
			return b.String(), i + 1 - l.pos, true
		case c == '\\':
			r, n, ok := decodeUEscape(l.src[i:])
			if !ok {
				return "", 0, false
			}
			if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) {
				return "", 0, false
			}
			b.WriteRune(r)
			i += n
		case c <= 0x20 || strings.IndexByte("<\"{}|^`", c) >= 0:
			return "", 0, false
		default:
			r, size := utf8.DecodeRuneInString(l.src[i:])
			b.WriteRune(r)
			i += size
		}
	}
	return "", 0, false
}

// decodeUEscape decodes \uXXXX or \UXXXXXXXX at the start of s.
func decodeUEscape(s string) (rune, int, bool) {
	if len(s) < 2 || s[0] != '\\' {
		return 0, 0, false
	}
	var n int
	switch s[1] {
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return 0, 0, false
	}
	if len(s) < 2+n {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[2:2+n], 16, 32)
	if err != nil || v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
		return 0, 0, false
	}
	return rune(v), 2 + n, true
}

// scanNumber scans INTEGER, DECIMAL or DOUBLE starting at pos+start.
func (l *lexer) scanNumber(start int) (tokKind, int) {
	s := l.src[l.pos:]
	i := start
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	kind := tokInteger
	if i < len(s) && s[i] == '.' {
		switch {
		case i+1 < len(s) && isDigit(s[i+1]):
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			kind = tokDecimal
		case i > start && hasExponent(s[i+1:]):
			i++
			kind = tokDecimal
		}
	}
	if hasExponent(s[i:]) {
		i++
		if s[i] == '+' || s[i] == '-' {
			i++
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		kind = tokDouble
	}
	return kind, i
}

func hasExponent(s string) bool {
	if len(s) < 2 || (s[0] != 'e' && s[0] != 'E') {
		return false
	}
	if isDigit(s[1]) {
		return true
	}
	return (s[1] == '+' || s[1] == '-') && len(s) > 2 && isDigit(s[2])
}

// scanNameTail extends a name over (PN_CHARS|'.')* PN_CHARS (plus ':' and
// PLX when local is set), returning the new length; a trailing '.' is not
// part of the name.
func (l *lexer) scanNameTail(n int, local bool) int {
	last := n // length after the last non-'.' character
	for {
		r, size := l.runeAt(l.pos + n)
		switch {
		case r < 0:
			return last
		case r == '.':
			n += size
			continue
		case isPNChars(r) || (local && r == ':'):
			n += size
		case local && r == '%' && isHex(l.peekByte(n+1)) && isHex(l.peekByte(n+2)):
			n += 3
		case local && r == '\\' && l.pos+n+1 < len(l.src) && strings.IndexByte(localEscapes, l.src[l.pos+n+1]) >= 0:
			n += 2
		default:
			return last
		}
		last = n
	}
}

const localEscapes = "_~.-!$&'()*+,;=/?#@%"

// scanName scans PNAME_NS, PNAME_LN or a bare word (keyword).
func (l *lexer) scanName(t token) (token, error) {
	n := 0
	if l.src[l.pos] != ':' {
		_, size := l.runeAt(l.pos)
		n = l.scanNameTail(size, false)
	}
	if l.pos+n < len(l.src) && l.src[l.pos+n] == ':' {
		prefix := l.src[l.pos : l.pos+n]
		n++
		start := n
		r, size := l.runeAt(l.pos + n)
		switch {
		case r < 0:
		case isPNCharsU(r) || r == ':' || (r >= '0' && r <= '9'):
			n = l.scanNameTail(n+size, true)
		case r == '%' && isHex(l.peekByte(n+1)) && isHex(l.peekByte(n+2)):
			n = l.scanNameTail(n+3, true)
		case r == '\\' && l.pos+n+1 < len(l.src) && strings.IndexByte(localEscapes, l.src[l.pos+n+1]) >= 0:
			n = l.scanNameTail(n+2, true)
		}
		raw := l.src[l.pos+start : l.pos+n]
		l.advance(n)
		t.kind, t.text, t.local, t.end = tokPName, prefix, unescapeLocal(raw), l.pos
		return t, nil
	}
	// A keyword: ASCII letters, digits and '_'.
	n = 0
	for l.pos+n < len(l.src) {
		c := l.src[l.pos+n]
		if !(isLetter(c) || isDigit(c) || c == '_') {
			break
		}
		n++
	}
	if n == 0 {
		r, _ := l.runeAt(l.pos)
		return t, l.errorf(t.line, t.col, "unexpected character %q", r)
	}
	word := l.src[l.pos : l.pos+n]
	l.advance(n)
	t.kind, t.text, t.end = tokWord, word, l.pos
	return t, nil
}

// unescapeLocal removes the backslashes of PN_LOCAL_ESC (percent escapes
// stay as written, as the grammar requires).
func unescapeLocal(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// scanString scans the four string forms with their escapes.
func (l *lexer) scanString(t token) (token, error) {
	q := l.src[l.pos]
	long := l.pos+2 < len(l.src) && l.src[l.pos+1] == q && l.src[l.pos+2] == q
	i := l.pos + 1
	if long {
		i = l.pos + 3
	}
	var b strings.Builder
	for {
		if i >= len(l.src) {
			return t, l.errorf(t.line, t.col, "unterminated string")
		}
		c := l.src[i]
		switch {
		case c == q && !long:
			i++
			n := i - l.pos
			l.advance(n)
			t.kind, t.text, t.end = tokString, b.String(), l.pos
			return t, nil
		case c == q && long && i+2 < len(l.src) && l.src[i+1] == q && l.src[i+2] == q:
			// A long string may end with up to two quotes of its kind.
			for i+3 < len(l.src) && l.src[i+3] == q {
				b.WriteByte(q)
				i++
			}
			i += 3
			n := i - l.pos
			l.advance(n)
			t.kind, t.text, t.end = tokString, b.String(), l.pos
			return t, nil
		case c == '\\':
			if i+1 >= len(l.src) {
				return t, l.errorf(t.line, t.col, "unterminated string")
			}
			switch e := l.src[i+1]; e {
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			case '"', '\'', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				r, n, ok := decodeUEscape(l.src[i:])
				if !ok {
					line, col := l.positionAt(i)
					return t, l.errorf(line, col, "invalid \\%c escape in string", e)
				}
				b.WriteRune(r)
				i += n
				continue
			default:
				line, col := l.positionAt(i)
				return t, l.errorf(line, col, "invalid escape \\%c in string", e)
			}
			i += 2
		case !long && (c == '\n' || c == '\r'):
			line, col := l.positionAt(i)
			return t, l.errorf(line, col, "line break in short string")
		default:
			r, size := utf8.DecodeRuneInString(l.src[i:])
			if r == utf8.RuneError && size == 1 {
				line, col := l.positionAt(i)
				return t, l.errorf(line, col, "invalid UTF-8 encoding")
			}
			b.WriteRune(r)
			i += size
		}
	}
}

// positionAt computes the line and column of a byte offset at or after the
// lexer's position.
func (l *lexer) positionAt(off int) (int, int) {
	line, col := l.line, l.col
	for i := l.pos; i < off && i < len(l.src); {
		r, size := utf8.DecodeRuneInString(l.src[i:])
		i += size
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
