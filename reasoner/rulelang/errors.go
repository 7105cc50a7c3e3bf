package rulelang

import (
	"fmt"
	"sort"
)

// Error is a syntax or semantic error in a rule file, at a position.
type Error struct {
	Pos Pos
	Msg string
}

// Error renders file:line:col: message.
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// InvalidInput marks rule-file errors as bad user input (CLI exit code 1).
func (e *Error) InvalidInput() bool { return true }

// ErrorList is a list of errors sorted by position.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Error renders the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// InvalidInput marks rule-file errors as bad user input.
func (l ErrorList) InvalidInput() bool { return true }

// Unwrap lets errors.As find the individual *Error values.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Sort orders the errors by file, line and column.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns nil for an empty list, else the list itself.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
