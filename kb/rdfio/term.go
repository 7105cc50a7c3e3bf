package rdfio

import "github.com/perfkb/perfkb/textpos"

// syntaxError returns malformed RDF input at a position: the
// *textpos.Error every perfkb parser reports. Line and Column are 1-based;
// Column counts characters and is 0 only when no column is known.
func syntaxError(source string, line, col int, msg string) *textpos.Error {
	return &textpos.Error{Pos: textpos.Position{Source: source, Line: line, Column: col}, Msg: msg}
}
