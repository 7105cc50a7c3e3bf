package scalea

import (
	"strings"
	"testing"
)

// COPY's text format escapes (PostgreSQL docs, COPY "Text Format").
func TestCopyTextColumns(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`gsr410`, "gsr410"},
		{`a\tb`, "a\tb"},
		{`line\nbreak\r`, "line\nbreak\r"},
		{`back\\slash`, `back\slash`},
		{`\b\f\v`, "\b\f\v"},
		{`oct\101\60x`, "octA0x"},
		{`hex\x41\x4a\x4`, "hexAJ\x04"},
		{`\x`, "x"},
		{`ümlaut`, "ümlaut"},
		{`\q`, "q"},
	} {
		if got := text([]byte(c.in)); got != c.want {
			t.Errorf("text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCopyIntegerColumns(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  int64
		valid bool
		err   bool
	}{
		{"0", 0, true, false}, {"42", 42, true, false}, {"-7", -7, true, false},
		{"9223372036854775807", 9223372036854775807, true, false}, {"-9223372036854775808", -9223372036854775808, true, false},
		{"9223372036854775808", 0, false, true}, {`\N`, 0, false, false}, {"", 0, false, true}, {"1.5", 0, false, true}, {"-", 0, false, true},
	} {
		v, valid, err := int64Col([]byte(c.in))
		if (err != nil) != c.err || (err == nil && (v != c.want || valid != c.valid)) {
			t.Errorf("int64Col(%q) = %d, %v, %v; want %d, %v, error %v", c.in, v, valid, err, c.want, c.valid, c.err)
		}
	}
}

// Rows split across chunks (which COPY does not do, but a stream must
// not depend on) are put back together, and columns are split at tabs.
func TestCopyStreamRows(t *testing.T) {
	s := &copyStream{chunks: make(chan []byte, 4), free: make(chan []byte, 4), done: make(chan struct{}), cancel: func() {}}
	for _, c := range []string{"1\tgsr410\t\\N\n2\tgsr", "411\tx\n", "3\t\t\n"} {
		s.chunks <- []byte(c)
	}
	close(s.chunks)
	close(s.done)
	var got []string
	for {
		cols, ok, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = string(c)
		}
		got = append(got, strings.Join(parts, "|"))
	}
	want := []string{`1|gsr410|\N`, "2|gsr411|x", "3||"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// A stream whose data ends inside a row fails rather than dropping it.
func TestCopyStreamTruncated(t *testing.T) {
	s := &copyStream{chunks: make(chan []byte, 1), free: make(chan []byte, 1), done: make(chan struct{}), cancel: func() {}}
	s.chunks <- []byte("1\tx\n2\ty")
	close(s.chunks)
	close(s.done)
	if _, ok, err := s.next(); !ok || err != nil {
		t.Fatalf("first row: ok=%v err=%v", ok, err)
	}
	if _, _, err := s.next(); err == nil || !strings.Contains(err.Error(), "inside a row") {
		t.Fatalf("got %v, want an error about a truncated row", err)
	}
}
