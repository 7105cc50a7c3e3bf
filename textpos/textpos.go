// Package textpos is the one positioned-error type of perfkb's parsers.
//
// Every parser of user text — SPARQL and RDQL (query/syntax), rule files
// (reasoner/rulelang), every RDF syntax (kb/rdfio) and the converters'
// text inputs — reports a syntax error as a *Error carrying a Position
// (source, line, column), or an ErrorList of them when it recovers and goes
// on. Consumers need one errors.As to find where the input is wrong:
//
//	var perr *textpos.Error
//	if errors.As(err, &perr) {
//		p := perr.Position() // p.Source, p.Line, p.Column
//	}
//
// errors.As finds the first error of an ErrorList too (the list unwraps to
// its members, in position order).
//
// The package is a leaf: it imports nothing of perfkb, so every parser can
// use it without import cycles.
package textpos

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Position is a place in a text: the source's name, a 1-based line and a
// 1-based column counting Unicode code points (characters), as editors and
// compilers report them. A zero Line or Column means the parser does not
// know it (JSON-LD through a library that reports no position); an empty
// Source means the text has no name (a query sent over HTTP).
type Position struct {
	Source string
	Line   int
	Column int
}

// String renders the position as compilers do: "file:line:col", leaving out
// the parts that are unknown ("file:line", "line:col", "file").
func (p Position) String() string {
	var b strings.Builder
	b.WriteString(p.Source)
	if p.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(p.Line))
		if p.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Column))
		}
	}
	return b.String()
}

// IsValid reports whether the position names a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// Compare orders positions by source, then line, then column.
func (p Position) Compare(q Position) int {
	if c := strings.Compare(p.Source, q.Source); c != 0 {
		return c
	}
	if p.Line != q.Line {
		return p.Line - q.Line
	}
	return p.Column - q.Column
}

// Error is malformed input at a position: a syntax error, or a static error
// a parser finds (an unknown builtin in a rule, a variable bound twice in a
// query). Every such error means the user's input is wrong, so the CLI exits
// with status 1 and the server answers 400.
type Error struct {
	// Pos is where the input is wrong.
	Pos Position
	// Msg says what was found and what was expected ("expected '}', found
	// end of input").
	Msg string
	// Err is the underlying cause, if any (a read error, a library's
	// error); Msg usually already includes its text.
	Err error
}

// Errorf returns an *Error at pos with a formatted message; a %w verb in
// format also sets Err, so errors.Is and errors.As see the cause.
func Errorf(pos Position, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Pos: pos, Msg: err.Error()}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		e.Err = u.Unwrap()
	case interface{ Unwrap() []error }:
		e.Err = errors.Join(u.Unwrap()...)
	}
	return e
}

// Wrap returns err as an *Error at pos with err's text as the message and
// err as the cause (nil for a nil err).
func Wrap(pos Position, err error) *Error {
	if err == nil {
		return nil
	}
	return &Error{Pos: pos, Msg: err.Error(), Err: err}
}

// Error renders "file:line:col: message" ("<input>" stands for a source
// with neither name nor line).
func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	pos := e.Pos.String()
	if pos == "" {
		pos = "<input>"
	}
	return pos + ": " + msg
}

// Position returns where the input is wrong.
func (e *Error) Position() Position { return e.Pos }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// InvalidInput marks the error as the user's input being wrong (exit status
// 1 in the CLI, HTTP 400 in the server).
func (e *Error) InvalidInput() bool { return true }

// ErrorList is the errors of a parser that reports several: it recovers
// after an error and goes on, as go/parser does.
type ErrorList []*Error

// Add appends an error at pos with a formatted message.
func (l *ErrorList) Add(pos Position, format string, args ...any) {
	*l = append(*l, Errorf(pos, format, args...))
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

// Unwrap lets errors.As find the individual *Error values, first to last.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// InvalidInput marks the errors as the user's input being wrong.
func (l ErrorList) InvalidInput() bool { return true }

// Sort orders the errors by position (stable, so errors at one position
// keep the order they were found in).
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int { return a.Pos.Compare(b.Pos) })
}

// Err returns nil for an empty list, else the list sorted by position (a
// list of one reads as its one error; errors.As finds the *Error in it).
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
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

// All returns every positioned error in err's tree, in the order errors.As
// would visit them: the members of an ErrorList, an *Error wrapped with
// fmt.Errorf("...: %w"), or several joined with errors.Join. A *Error's own
// cause is not searched (its position is the one that counts).
func All(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *Error:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, u := range e.Unwrap() {
				walk(u)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// SetSource names the source of every positioned error in err that has no
// source yet (see All) and returns err: a parser of a string (a query text)
// does not know which file it came from, its caller does. It modifies the
// errors in place, so call it only on errors a parser just returned.
func SetSource(err error, source string) error {
	if source == "" {
		return err
	}
	for _, e := range All(err) {
		if e.Pos.Source == "" {
			e.Pos.Source = source
		}
	}
	return err
}
