package results

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestReadStreams checks what the row-by-row readers give on documents
// whose answers are written out by hand: a JSON head after its bindings,
// a binding of a variable the head does not name, triple terms and base
// directions, and the same rows in every format.
func TestReadStreams(t *testing.T) {
	ex := func(s string) kb.Term { return kb.IRI("http://ex.org/" + s) }
	cases := []struct {
		name   string
		format Format
		doc    string
		vars   []string
		rows   [][]kb.Term
	}{
		{"json head last", JSON,
			`{"results":{"bindings":[{"b":{"type":"uri","value":"http://ex.org/1"}},{"a":{"type":"literal","value":"x","xml:lang":"en"}}]},"head":{"vars":["a","b"]}}`,
			[]string{"a", "b"}, [][]kb.Term{{{}, ex("1")}, {kb.LangLiteral("x", "en"), {}}}},
		{"json head last, naming a variable twice", JSON,
			`{"results":{"bindings":[{"x":{"type":"uri","value":"http://ex.org/1"}}]},"head":{"vars":["y","x","y"]}}`,
			[]string{"y", "x"}, [][]kb.Term{{{}, ex("1")}}},
		{"json undeclared variable", JSON,
			`{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"bnode","value":"b0"},"z":{"type":"literal","value":"1","datatype":"http://www.w3.org/2001/XMLSchema#integer"}}]}}`,
			[]string{"a", "z"}, [][]kb.Term{{kb.Blank("b0"), kb.Literal("1", "http://www.w3.org/2001/XMLSchema#integer")}}},
		{"json triple term and direction", JSON,
			`{"head":{"vars":["t","l"]},"results":{"bindings":[{"t":{"type":"triple","value":{"subject":{"type":"uri","value":"http://ex.org/s"},"predicate":{"type":"uri","value":"http://ex.org/p"},"object":{"type":"uri","value":"http://ex.org/o"}}},"l":{"type":"literal","value":"x","xml:lang":"ar","its:dir":"rtl"}}]}}`,
			[]string{"t", "l"}, [][]kb.Term{{kb.TripleTerm(ex("s"), ex("p"), ex("o")), kb.DirLangLiteral("x", "ar", "rtl")}}},
		{"xml", XML,
			`<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="a"/><variable name="b"/></head><results><result><binding name="b"><uri>http://ex.org/1</uri></binding></result><result><binding name="a"><literal xml:lang="en">x</literal></binding></result></results></sparql>`,
			[]string{"a", "b"}, [][]kb.Term{{{}, ex("1")}, {kb.LangLiteral("x", "en"), {}}}},
		{"tsv", TSV, "?a\t?b\n\t<http://ex.org/1>\n\"x\"@en\t\n",
			[]string{"a", "b"}, [][]kb.Term{{{}, ex("1")}, {kb.LangLiteral("x", "en"), {}}}},
		{"csv", CSV, "a,b\r\n,http://ex.org/1\r\nx,\r\n",
			[]string{"a", "b"}, [][]kb.Term{{{}, ex("1")}, {kb.String("x"), {}}}},
		{"sniffed xml", "", ` <sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="a"/></head><results><result><binding name="a"><bnode>b1</bnode></binding></result></results></sparql>`,
			[]string{"a"}, [][]kb.Term{{kb.Blank("b1")}}},
	}
	for _, c := range cases {
		rs, err := Read(strings.NewReader(c.doc), c.format, ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if strings.Join(rs.Vars, ",") != strings.Join(c.vars, ",") {
			t.Errorf("%s: vars %v, want %v", c.name, rs.Vars, c.vars)
		}
		for i, row := range rs.Rows {
			if len(row) != len(rs.Vars) {
				t.Errorf("%s: row %d has %d terms for %d variables", c.name, i, len(row), len(rs.Vars))
			}
		}
		if len(rs.Rows) != len(c.rows) {
			t.Errorf("%s: %d rows, want %d", c.name, len(rs.Rows), len(c.rows))
			continue
		}
		for i := range c.rows {
			for j := range c.rows[i] {
				if j >= len(rs.Rows[i]) || rs.Rows[i][j] != c.rows[i][j] {
					t.Errorf("%s: row %d = %v, want %v", c.name, i, rs.Rows[i], c.rows[i])
					break
				}
			}
		}
	}
}

// TestReadStopsOnCharge checks that a charge error ends reading at the row
// that crossed the budget and comes back unchanged, in every format.
func TestReadStopsOnCharge(t *testing.T) {
	var js, xs, ts, cs strings.Builder
	js.WriteString(`{"head":{"vars":["a"]},"results":{"bindings":[`)
	xs.WriteString(`<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="a"/></head><results>`)
	ts.WriteString("?a\n")
	cs.WriteString("a\n")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			js.WriteString(",")
		}
		js.WriteString(`{"a":{"type":"uri","value":"http://ex.org/x"}}`)
		xs.WriteString(`<result><binding name="a"><uri>http://ex.org/x</uri></binding></result>`)
		ts.WriteString("<http://ex.org/x>\n")
		cs.WriteString("http://ex.org/x\n")
	}
	js.WriteString(`]}}`)
	xs.WriteString(`</results></sparql>`)
	budget := errors.New("over budget")
	for _, c := range []struct {
		f   Format
		doc string
	}{{JSON, js.String()}, {XML, xs.String()}, {TSV, ts.String()}, {CSV, cs.String()}} {
		// Counting only, nothing is held, but the charge still sees
		// every row (0 bytes; CSV's text is held and charged): a server
		// paces the reading there.
		for _, countOnly := range []bool{false, true} {
			calls := 0
			var bytes int64
			_, err := Read(strings.NewReader(c.doc), c.f, ReadOptions{CountOnly: countOnly, Charge: func(n int64) error {
				calls++
				bytes += n
				if calls == 10 {
					return budget
				}
				return nil
			}})
			if err != budget && !errors.Is(err, budget) {
				t.Errorf("%s (count only %v): error %v, want the charge's error", c.f, countOnly, err)
			}
			if calls != 10 {
				t.Errorf("%s (count only %v): %d charges, want reading to stop at the 10th", c.f, countOnly, calls)
			}
			if countOnly && c.f != CSV && bytes != 0 {
				t.Errorf("%s: counting only charged %d bytes, want 0", c.f, bytes)
			}
			if !countOnly && bytes == 0 {
				t.Errorf("%s: nothing charged for the rows kept", c.f)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Read(strings.NewReader(c.doc), c.f, ReadOptions{Context: ctx}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled read gave %v, want context.Canceled", c.f, err)
		}
	}
	if _, err := Read(strings.NewReader("  \n"), "", ReadOptions{}); !errors.Is(err, ErrEmptyDocument) {
		t.Errorf("empty sniffed document: %v, want ErrEmptyDocument", err)
	}
}
