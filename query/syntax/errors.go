package syntax

import (
	"fmt"

	"github.com/perfkb/perfkb/textpos"
)

// Errors in query and update text are *textpos.Error values (several
// static errors come as a textpos.ErrorList): the one positioned-error type
// of every perfkb parser. Columns count Unicode code points. The source is
// Options.Source (empty for a text with no name, such as a query sent over
// HTTP).

// errorAt returns a syntax error at a 1-based line and column; the Parse
// functions name its source.
func errorAt(line, col int, format string, args ...any) *textpos.Error {
	return &textpos.Error{Pos: textpos.Position{Line: line, Column: col}, Msg: fmt.Sprintf(format, args...)}
}

// located names the source of a parse error (nil stays nil).
func located(err error, opts Options) error {
	return textpos.SetSource(err, opts.Source)
}
