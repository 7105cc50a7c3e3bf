package convert

import (
	"fmt"
	"strings"
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
	// Err is the underlying error, if any.
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

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// InvalidInput marks the error as bad input data (exit status 1).
func (e *Error) InvalidInput() bool { return true }

// TextPosition formats a position in a text file: FILE:LINE:COLUMN
// (1-based; a zero column is left out).
func TextPosition(file string, line, column int) string {
	if column <= 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return fmt.Sprintf("%s:%d:%d", file, line, column)
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
