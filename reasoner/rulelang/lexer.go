package rulelang

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfkb/perfkb/textpos"
)

type tokenKind uint8

const (
	tEOF tokenKind = iota
	tLBrack
	tRBrack
	tLParen
	tRParen
	tComma
	tDot
	tArrow     // ->
	tBackArrow // <-
	tIRI       // <...>, text without brackets
	tString    // '...' or "...", text unescaped
	tDTSep     // ^^
	tLang      // @en right after a string, text without '@'
	tDirective // @prefix, @include, @define; text without '@'
	tVar       // ?x, text without '?'
	tNumber
	tName // qname, bare name, or "name:" (rule name)
	tIllegal
)

var tokenNames = [...]string{
	tEOF: "end of file", tLBrack: "'['", tRBrack: "']'", tLParen: "'('", tRParen: "')'",
	tComma: "','", tDot: "'.'", tArrow: "'->'", tBackArrow: "'<-'", tIRI: "IRI",
	tString: "string", tDTSep: "'^^'", tLang: "language tag", tDirective: "directive",
	tVar: "variable", tNumber: "number", tName: "name", tIllegal: "illegal character",
}

func (k tokenKind) String() string { return tokenNames[k] }

type token struct {
	kind tokenKind
	text string
	pos  textpos.Position
}

func (t token) describe() string {
	switch t.kind {
	case tEOF, tLBrack, tRBrack, tLParen, tRParen, tComma, tDot, tArrow, tBackArrow, tDTSep:
		return t.kind.String()
	case tIRI:
		return "<" + t.text + ">"
	case tString:
		return strconv.Quote(t.text)
	case tVar:
		return "?" + t.text
	case tDirective:
		return "@" + t.text
	case tLang:
		return "@" + t.text
	}
	return "'" + t.text + "'"
}

// lexer turns a rule file into tokens; errors go to errs.
type lexer struct {
	file      string
	src       string
	off       int
	line, col int
	errs      *textpos.ErrorList
	prev      tokenKind
}

func newLexer(file, src string, errs *textpos.ErrorList) *lexer {
	return &lexer{file: file, src: src, line: 1, col: 1, errs: errs, prev: tEOF}
}

func (l *lexer) pos() textpos.Position {
	return textpos.Position{Source: l.file, Line: l.line, Column: l.col}
}

func (l *lexer) peekByte(ahead int) byte {
	if l.off+ahead < len(l.src) {
		return l.src[l.off+ahead]
	}
	return 0
}

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.off < len(l.src); i++ {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
		} else if l.src[l.off]&0xC0 != 0x80 {
			l.col++
		}
		l.off++
	}
}

func (l *lexer) skipSpaceAndComments() {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			l.advance(1)
		case c == '#' || (c == '/' && l.peekByte(1) == '/'):
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
		default:
			return
		}
	}
}

func isNameStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isNameChar(r rune) bool {
	return r == '_' || r == '-' || r == ':' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func (l *lexer) next() token {
	t := l.scan()
	l.prev = t.kind
	return t
}

func (l *lexer) scan() token {
	adjacentToString := l.prev == tString && l.off < len(l.src) && l.src[l.off] == '@'
	l.skipSpaceAndComments()
	start := l.pos()
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: start}
	}
	c := l.src[l.off]
	single := func(k tokenKind) token { l.advance(1); return token{kind: k, text: string(c), pos: start} }
	switch c {
	case '[':
		return single(tLBrack)
	case ']':
		return single(tRBrack)
	case '(':
		return single(tLParen)
	case ')':
		return single(tRParen)
	case ',':
		return single(tComma)
	case '.':
		return single(tDot)
	case '-':
		if l.peekByte(1) == '>' {
			l.advance(2)
			return token{kind: tArrow, text: "->", pos: start}
		}
		if d := l.peekByte(1); d >= '0' && d <= '9' {
			return l.number(start)
		}
	case '<':
		if l.peekByte(1) == '-' {
			l.advance(2)
			return token{kind: tBackArrow, text: "<-", pos: start}
		}
		end := strings.IndexAny(l.src[l.off+1:], ">\n")
		if end < 0 || l.src[l.off+1+end] != '>' {
			l.errs.Add(start, "unterminated IRI: missing '>'")
			l.advance(len(l.src) - l.off)
			return token{kind: tIllegal, pos: start}
		}
		text := l.src[l.off+1 : l.off+1+end]
		l.advance(end + 2)
		return token{kind: tIRI, text: text, pos: start}
	case '"', '\'':
		return l.str(start, c)
	case '^':
		if l.peekByte(1) == '^' {
			l.advance(2)
			return token{kind: tDTSep, text: "^^", pos: start}
		}
	case '?':
		l.advance(1)
		s := l.off
		for l.off < len(l.src) {
			r, n := utf8.DecodeRuneInString(l.src[l.off:])
			if r != '_' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			l.advance(n)
		}
		if l.off == s {
			l.errs.Add(start, "expected a variable name after '?'")
			return token{kind: tIllegal, pos: start}
		}
		return token{kind: tVar, text: l.src[s:l.off], pos: start}
	case '@':
		l.advance(1)
		s := l.off
		for l.off < len(l.src) {
			r, n := utf8.DecodeRuneInString(l.src[l.off:])
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			l.advance(n)
		}
		if l.off == s {
			l.errs.Add(start, "expected a directive or language tag after '@'")
			return token{kind: tIllegal, pos: start}
		}
		if adjacentToString {
			return token{kind: tLang, text: l.src[s:l.off], pos: start}
		}
		return token{kind: tDirective, text: l.src[s:l.off], pos: start}
	}
	if c >= '0' && c <= '9' || (c == '+' && l.peekByte(1) >= '0' && l.peekByte(1) <= '9') {
		return l.number(start)
	}
	r, n := utf8.DecodeRuneInString(l.src[l.off:])
	if isNameStart(r) {
		s := l.off
		l.advance(n)
		for l.off < len(l.src) {
			r, n := utf8.DecodeRuneInString(l.src[l.off:])
			if isNameChar(r) {
				l.advance(n)
				continue
			}
			// a '.' inside a local name, followed by another name character
			if r == '.' {
				r2, _ := utf8.DecodeRuneInString(l.src[l.off+1:])
				if isNameChar(r2) && r2 != ':' {
					l.advance(1)
					continue
				}
			}
			break
		}
		return token{kind: tName, text: l.src[s:l.off], pos: start}
	}
	l.errs.Add(start, "unexpected character %q", r)
	l.advance(n)
	return token{kind: tIllegal, text: string(r), pos: start}
}

func (l *lexer) number(start textpos.Position) token {
	s := l.off
	if c := l.src[l.off]; c == '-' || c == '+' {
		l.advance(1)
	}
	digits := func() {
		for l.off < len(l.src) && l.src[l.off] >= '0' && l.src[l.off] <= '9' {
			l.advance(1)
		}
	}
	digits()
	if l.peekByte(0) == '.' && l.peekByte(1) >= '0' && l.peekByte(1) <= '9' {
		l.advance(1)
		digits()
	}
	if c := l.peekByte(0); c == 'e' || c == 'E' {
		d := l.peekByte(1)
		if d >= '0' && d <= '9' || ((d == '-' || d == '+') && l.peekByte(2) >= '0' && l.peekByte(2) <= '9') {
			l.advance(2)
			digits()
		}
	}
	return token{kind: tNumber, text: l.src[s:l.off], pos: start}
}

func (l *lexer) str(start textpos.Position, quote byte) token {
	l.advance(1)
	var b strings.Builder
	for {
		if l.off >= len(l.src) || l.src[l.off] == '\n' {
			l.errs.Add(start, "unterminated string")
			return token{kind: tIllegal, pos: start}
		}
		c := l.src[l.off]
		if c == quote {
			l.advance(1)
			return token{kind: tString, text: b.String(), pos: start}
		}
		if c != '\\' {
			r, n := utf8.DecodeRuneInString(l.src[l.off:])
			b.WriteRune(r)
			l.advance(n)
			continue
		}
		escPos := l.pos()
		e := l.peekByte(1)
		l.advance(2)
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"', '\'', '\\':
			b.WriteByte(e)
		case 'u', 'U':
			width := 4
			if e == 'U' {
				width = 8
			}
			if l.off+width > len(l.src) {
				l.errs.Add(escPos, "short \\%c escape", e)
				continue
			}
			v, err := strconv.ParseUint(l.src[l.off:l.off+width], 16, 32)
			if err != nil {
				l.errs.Add(escPos, "bad \\%c escape %q", e, l.src[l.off:l.off+width])
			} else {
				b.WriteRune(rune(v))
			}
			l.advance(width)
		default:
			l.errs.Add(escPos, "unknown escape \\%c", e)
		}
	}
}
