package convert

import (
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/textpos"
)

// Error is invalid source data: a syntax error, a missing table or column,
// a dangling reference. Commands exit with status 1 on it (InvalidInput).
type Error struct {
	// Source names the input: a file name, a DSN without its password, a
	// listening address.
	Source string
	// Position says where in the source: "FILE:LINE:COLUMN" for text
	// (TextPosition), "table T key=K column=C" for SQL (SQLPosition),
	// "connection #N byte B" for streams (StreamPosition).
	Position string
	// Reason says what is wrong and what was expected.
	Reason string
	// Err is the underlying error, if any; for a position in a text file
	// (TextErrorf) it is the *textpos.Error at that position.
	Err error
}

// Errorf returns an *Error with a formatted reason; a %w verb in format
// sets Err.
func Errorf(source, position, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Source: source, Position: position, Reason: err.Error()}
	if u, ok := err.(interface{ Unwrap() error }); ok {
		e.Err = u.Unwrap()
	}
	return e
}

func (e *Error) Error() string {
	var parts []string
	// A text position already starts with the file name.
	if e.Source != "" && !strings.HasPrefix(e.Position, e.Source+":") {
		parts = append(parts, e.Source)
	}
	if e.Position != "" {
		parts = append(parts, e.Position)
	}
	if e.Reason != "" {
		parts = append(parts, e.Reason)
	} else if e.Err != nil {
		parts = append(parts, e.Err.Error())
	}
	return strings.Join(parts, ": ")
}

// WithCause sets the underlying error and returns e: below the
// *textpos.Error of a text position (TextErrorf), so both stay reachable
// with errors.As and errors.Is.
func (e *Error) WithCause(cause error) *Error {
	if tp, ok := e.Err.(*textpos.Error); ok {
		tp.Err = cause
		return e
	}
	e.Err = cause
	return e
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// InvalidInput marks the error as bad input data (exit status 1).
func (e *Error) InvalidInput() bool { return true }

// TextPosition formats a position in a text file: FILE:LINE:COLUMN
// (1-based; a zero column is left out), as textpos.Position does.
func TextPosition(file string, line, column int) string {
	return textpos.Position{Source: file, Line: line, Column: column}.String()
}

// TextErrorf returns an *Error at a line (and column, when not 0) of a
// text file. Its Err is the *textpos.Error every perfkb parser reports, so
// the CLI and the server find the position with one errors.As, whatever
// parsed the text; a %w verb in format sets the cause below it.
func TextErrorf(source string, pos textpos.Position, format string, args ...any) *Error {
	e := Errorf(source, pos.String(), format, args...)
	e.Err = &textpos.Error{Pos: pos, Msg: e.Reason, Err: e.Err}
	return e
}

// SQLPosition formats a position in a database: "table T key=K column=C";
// an empty key or column is left out.
func SQLPosition(table, key, column string) string {
	s := "table " + table
	if key != "" {
		s += " key=" + key
	}
	if column != "" {
		s += " column=" + column
	}
	return s
}

// StreamPosition formats a position in a network stream: "connection #N
// byte B" (connections are numbered from 1 in accept order, bytes from 0).
func StreamPosition(conn int, offset int64) string {
	return fmt.Sprintf("connection #%d byte %d", conn, offset)
}
