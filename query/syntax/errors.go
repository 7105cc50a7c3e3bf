package syntax

import (
	"fmt"
	"sort"
	"strings"
)

// Error is a syntax or static error in a query or update, at a 1-based line
// and column (columns count Unicode code points).
type Error struct {
	Line, Column int
	Msg          string
}

// Error prints "line:col: message", e.g. "3:14: expected '}', found end of input".
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// InvalidInput marks the error as the user's input being invalid (exit code 1
// in the CLI, HTTP 400 in the server).
func (e *Error) InvalidInput() bool { return true }

// ErrorList is a list of errors sorted by position.
type ErrorList []*Error

// Error prints the first error and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// InvalidInput marks the errors as the user's input being invalid.
func (l ErrorList) InvalidInput() bool { return true }

// Sort sorts the list by position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Column < l[j].Column
	})
}

// Err returns nil for an empty list, the single error for a list of one, and
// the sorted list otherwise.
func (l ErrorList) Err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	l.Sort()
	return l
}

// String lists every error, one per line.
func (l ErrorList) String() string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Error())
		b.WriteByte('\n')
	}
	return b.String()
}
