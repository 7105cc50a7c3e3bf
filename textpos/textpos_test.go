package textpos

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestPositionString(t *testing.T) {
	for _, tc := range []struct {
		pos  Position
		want string
	}{
		{Position{"a.ttl", 3, 14}, "a.ttl:3:14"},
		{Position{"a.ttl", 3, 0}, "a.ttl:3"},
		{Position{"a.ttl", 0, 0}, "a.ttl"},
		{Position{"", 3, 14}, "3:14"},
		{Position{"", 0, 0}, ""},
	} {
		if got := tc.pos.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.pos, got, tc.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Pos: Position{"q.rq", 1, 8}, Msg: "expected '}', found end of input"}, "q.rq:1:8: expected '}', found end of input"},
		{&Error{Pos: Position{"", 2, 1}, Msg: "bad"}, "2:1: bad"},
		{&Error{Msg: "bad"}, "<input>: bad"},
		{&Error{Pos: Position{"x.jsonld", 0, 0}, Err: errors.New("invalid JSON")}, "x.jsonld: invalid JSON"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestErrorfWraps(t *testing.T) {
	e := Errorf(Position{"f", 1, 1}, "cannot read: %w", fs.ErrNotExist)
	if !errors.Is(e, fs.ErrNotExist) {
		t.Errorf("Errorf with %%w: errors.Is(ErrNotExist) = false")
	}
	if e.Msg != "cannot read: "+fs.ErrNotExist.Error() {
		t.Errorf("Msg = %q", e.Msg)
	}
	if Errorf(Position{}, "plain %d", 1).Err != nil {
		t.Errorf("Errorf without %%w has a cause")
	}
	if Wrap(Position{}, nil) != nil {
		t.Errorf("Wrap(nil) is not nil")
	}
}

func TestErrorListAs(t *testing.T) {
	var l ErrorList
	l.Add(Position{"b", 1, 1}, "third")
	l.Add(Position{"a", 2, 5}, "second")
	l.Add(Position{"a", 2, 1}, "first")
	err := fmt.Errorf("loading: %w", l.Err())
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(*Error) found nothing in %v", err)
	}
	if e.Msg != "first" || e.Position() != (Position{"a", 2, 1}) {
		t.Errorf("errors.As found %v, want the first by position", e)
	}
	if got, want := err.Error(), "loading: a:2:1: first (and 2 more errors)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	all := All(err)
	if len(all) != 3 || all[2].Msg != "third" {
		t.Errorf("All = %v", all)
	}
	var one ErrorList
	one.Add(Position{"", 1, 1}, "only")
	if got := one.Err(); got.Error() != "1:1: only" || !errors.As(got, &e) || e.Msg != "only" {
		t.Errorf("a list of one: %v, want it to read as its error", got)
	}
	if (ErrorList{}).Err() != nil {
		t.Errorf("an empty list is not nil")
	}
}

func TestSetSource(t *testing.T) {
	var l ErrorList
	l.Add(Position{"", 1, 1}, "a")
	l.Add(Position{"other.rq", 2, 1}, "b")
	err := SetSource(fmt.Errorf("x: %w", errors.Join(l.Err(), &Error{Pos: Position{Line: 3}})), "q.rq")
	var got []string
	for _, e := range All(err) {
		got = append(got, e.Pos.String())
	}
	if fmt.Sprint(got) != "[q.rq:1:1 other.rq:2:1 q.rq:3]" {
		t.Errorf("positions after SetSource = %v", got)
	}
}
