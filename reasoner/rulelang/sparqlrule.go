package rulelang

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfkb/perfkb/textpos"
)

// sparqlRule reads "[name: CONSTRUCT … ]" from the CONSTRUCT keyword (the
// current token) to the ']' that closes the rule: the text between is
// SPARQL, kept as written but for the file's constants (@define, or the
// caller's overrides), which are written in where their name stands as a
// word outside strings, IRIs and comments.
func (fp *fileParser) sparqlRule(open token, name string) {
	var b strings.Builder
	l := fp.lex
	// qLine and qCol are where the next character of b stands in the
	// rule's own text, counted as the SPARQL parser counts (runes).
	qLine, qCol := 1, 1
	var anchors []anchor
	mark := func(at textpos.Position, verbatim bool) {
		anchors = append(anchors, anchor{q: textpos.Position{Line: qLine, Column: qCol}, file: at, verbatim: verbatim})
	}
	write := func(s string) {
		b.WriteString(s)
		for _, r := range s {
			if r == '\n' {
				qLine++
				qCol = 1
			} else {
				qCol++
			}
		}
	}
	mark(fp.tok.pos, true)
	write("CONSTRUCT")
	depth := 0
	closed := false
	for l.off < len(l.src) && !closed {
		c := l.src[l.off]
		switch {
		case c == '[' || c == '{' || c == '(':
			depth++
			write(string(c))
			l.advance(1)
		case c == ']' && depth == 0:
			l.advance(1)
			closed = true
		case c == ']' || c == '}' || c == ')':
			depth--
			write(string(c))
			l.advance(1)
		case c == '#':
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
		case c == '"' || c == '\'':
			write(l.rawString())
		case c == '<' && l.iriAhead():
			for l.off < len(l.src) && l.src[l.off] != '>' {
				write(l.src[l.off : l.off+1])
				l.advance(1)
			}
			write(">")
			l.advance(1)
		default:
			r, size := utf8.DecodeRuneInString(l.src[l.off:])
			if !isNameStart(r) || l.off > 0 && strings.ContainsRune("?$:_.-", rune(l.src[l.off-1])) {
				write(l.src[l.off : l.off+size])
				l.advance(size)
				continue
			}
			end := l.off
			for end < len(l.src) {
				r, n := utf8.DecodeRuneInString(l.src[end:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				end += n
			}
			word := l.src[l.off:end]
			followedByColon := end < len(l.src) && l.src[end] == ':'
			if v, ok := fp.constant(word); ok && !followedByColon {
				mark(l.pos(), false)
				write(v)
				l.advance(end - l.off)
				mark(l.pos(), true)
			} else {
				write(word)
				l.advance(end - l.off)
			}
		}
	}
	if !closed {
		fp.fail(open.pos, "the SPARQL rule opened here is not closed with ']'")
	}
	var q strings.Builder
	keys := make([]string, 0, len(fp.prefixes))
	for k := range fp.prefixes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q.WriteString("PREFIX " + k + ": <" + fp.prefixes[k] + ">\n")
	}
	for i := range anchors {
		// The PREFIX lines come first in the query.
		anchors[i].q.Line += len(keys)
	}
	fp.set.SPARQLRules = append(fp.set.SPARQLRules, &SPARQLRule{
		Name: name, Query: q.String() + b.String(), Pos: open.pos, anchors: anchors,
	})
	fp.next()
}

// constant returns the SPARQL text of constant name, if the file defines
// it (or the caller overrides it).
func (fp *fileParser) constant(name string) (string, bool) {
	n, ok := fp.overrides[name]
	if !ok {
		n, ok = fp.defines[name]
	}
	if !ok || n.Kind != NodeTerm {
		return "", false
	}
	return n.Term.String(), true
}

// rawString consumes a SPARQL string literal ('…', "…", or the long forms)
// and returns it as written.
func (l *lexer) rawString() string {
	start := l.off
	q := l.src[l.off]
	long := strings.HasPrefix(l.src[l.off:], strings.Repeat(string(q), 3))
	if long {
		l.advance(3)
	} else {
		l.advance(1)
	}
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == '\\':
			l.advance(2)
		case long && strings.HasPrefix(l.src[l.off:], strings.Repeat(string(q), 3)):
			l.advance(3)
			return l.src[start:l.off]
		case !long && c == q:
			l.advance(1)
			return l.src[start:l.off]
		default:
			l.advance(1)
		}
	}
	return l.src[start:l.off]
}

// iriAhead reports whether the '<' at the lexer's offset opens an IRI (no
// space before its '>'), not a less-than.
func (l *lexer) iriAhead() bool {
	for i := l.off + 1; i < len(l.src); i++ {
		switch c := l.src[i]; {
		case c == '>':
			return true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '<' || c == '"' || c == '{' || c == '}':
			return false
		}
	}
	return false
}
