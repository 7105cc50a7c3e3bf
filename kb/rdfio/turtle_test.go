package rdfio

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/textpos"
)

// decodeAll reads every statement of a Turtle (or TriG) document.
func decodeAll(t testing.TB, doc string, trig bool) ([]kb.TermQuad, error) {
	t.Helper()
	opts := Options{Base: "http://example.org/dir/doc.ttl", Source: "in.ttl"}
	var dec Decoder = NewTurtleDecoder(strings.NewReader(doc), opts)
	if trig {
		dec = NewTriGDecoder(strings.NewReader(doc), opts)
	}
	var out []kb.TermQuad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q)
	}
}

// TestTurtleRejects holds the inputs that crashed or were wrongly
// accepted by the knakk/rdf Turtle parser used before (issue 16), each
// with where the error must be reported.
func TestTurtleRejects(t *testing.T) {
	for _, tc := range []struct {
		name      string
		doc       string
		line, col int
		msg       string
	}{
		// Crashed the process (knakk's lexer goroutine panicked).
		{"line starting with .5", "<http://a/s> <http://a/p> <http://a/o> .\n.5\n", 2, 1, "expected a subject"},
		{"four quotes", `<a> <b> """"x"`, 1, 9, "unterminated string"},
		// Unclosed brackets in the last statement were accepted.
		{"unclosed [ before .", "@prefix ex: <http://ex/> .\nex:s ex:p [ ex:p ex:o .", 2, 23, "expected ']' to close the '[' at 2:11, found '.'"},
		{"unclosed [", "@prefix ex: <http://ex/> .\nex:s ex:p [ ex:p ex:o", 2, 11, "unclosed '['"},
		{"unclosed (", "@prefix ex: <http://ex/> .\nex:s ex:p ( ex:o", 2, 11, "unclosed '('"},
		// One Unicode policy with N-Triples: no lone surrogates, no invalid UTF-8.
		{"lone surrogate escape", `<http://a/s> <http://a/p> "x\uD800y" .`, 1, 29, "surrogate"},
		{"lone surrogate in IRI", `<http://a/s\uDC00> <http://a/p> "x" .`, 1, 12, "surrogate"},
		{"invalid UTF-8 in string", "<http://a/s> <http://a/p> \"x\xffy\" .", 1, 29, "invalid UTF-8"},
		{"invalid UTF-8 in IRI", "<http://a/s\xc3> <http://a/p> \"x\" .", 1, 12, "invalid UTF-8"},
		{"encoded surrogate", "<http://a/s> <http://a/p> \"\xed\xa0\x80\" .", 1, 28, "invalid UTF-8"},
		{"escaped space in IRI", `<http://a/s\u0020> <http://a/p> "x" .`, 1, 1, "not allowed in an IRI"},
		{"bad number", "<http://a/s> <http://a/p> + .", 1, 27, "expected a number"},
		{"missing object", "<http://a/s> <http://a/p> .", 1, 27, "expected an object"},
		{"undeclared prefix", "<http://a/s> <http://a/p> ex:o .", 1, 27, `undeclared prefix "ex:"`},
		{"too deep", strings.Repeat("[ <http://a/p> ", maxNesting+5), 1, 3 + 15*maxNesting, "nested more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAll(t, tc.doc, false)
			var se *textpos.Error
			if !errors.As(err, &se) {
				t.Fatalf("error = %v; want a *textpos.Error", err)
			}
			if se.Pos.Line != tc.line || se.Pos.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("error = %q at %d:%d; want %d:%d containing %q", se.Error(), se.Pos.Line, se.Pos.Column, tc.line, tc.col, tc.msg)
			}
			if !strings.HasPrefix(se.Error(), "in.ttl:") {
				t.Errorf("error %q does not name the source", se.Error())
			}
		})
	}
}

// TestTurtleAccepts holds legal forms the knakk/rdf parser rejected, with
// the statements they mean (N-Quads lines, blank nodes as the parser names
// them).
func TestTurtleAccepts(t *testing.T) {
	const ex = "@prefix ex: <http://ex/> .\n"
	for _, tc := range []struct {
		name string
		doc  string
		want []string
	}{
		{"byte order mark", "\xEF\xBB\xBF" + ex + "ex:s ex:p ex:o .", []string{"<http://ex/s> <http://ex/p> <http://ex/o> ."}},
		{"trailing ; in [ ]", ex + "ex:s ex:p [ ex:q ex:o ; ] .", []string{
			"_:g_1 <http://ex/q> <http://ex/o> .", "<http://ex/s> <http://ex/p> _:g_1 ."}},
		{"(.5)", ex + "ex:s ex:p (.5) .", []string{
			`_:g_1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ".5"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
			"_:g_1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .",
			"<http://ex/s> <http://ex/p> _:g_1 ."}},
		{"signed numbers", ex + "ex:s ex:p -.5, +1, -1.5e-3, 1. ", []string{
			`<http://ex/s> <http://ex/p> "-.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .`,
			`<http://ex/s> <http://ex/p> "+1"^^<http://www.w3.org/2001/XMLSchema#integer> .`,
			`<http://ex/s> <http://ex/p> "-1.5e-3"^^<http://www.w3.org/2001/XMLSchema#double> .`,
			`<http://ex/s> <http://ex/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`}},
		// [] and collections never take an explicit label's name.
		{"anonymous vs explicit labels", ex + "_:b1 ex:p [] . _:g_1 ex:p ( ex:o ) . _:g_g_1 ex:p _:g_2 .", []string{
			"_:b1 <http://ex/p> _:g_1 .",
			"_:g_2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://ex/o> .",
			"_:g_2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .",
			"_:g_g_1 <http://ex/p> _:g_2 .",
			"_:g_g_g_1 <http://ex/p> _:g_g_2 ."}},
		{"relative IRIs per RFC 3986", "<../a> <?q> <#f>, <//h/p>, <.>, <g;x=1/../y> .", []string{
			"<http://example.org/a> <http://example.org/dir/doc.ttl?q> <http://example.org/dir/doc.ttl#f> .",
			"<http://example.org/a> <http://example.org/dir/doc.ttl?q> <http://h/p> .",
			"<http://example.org/a> <http://example.org/dir/doc.ttl?q> <http://example.org/dir/> .",
			"<http://example.org/a> <http://example.org/dir/doc.ttl?q> <http://example.org/dir/y> ."}},
		// Language tags are lower-cased (kb.Term's policy).
		{"non-ASCII IRI kept as written", "<http://ex/Dürst> <http://ex/p> \"é\"@FR-be .", []string{
			"<http://ex/Dürst> <http://ex/p> \"é\"@fr-be ."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quads, err := decodeAll(t, tc.doc, false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range quads {
				got = append(got, q.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestTriGGraphs(t *testing.T) {
	doc := "@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\nex:g { ex:s ex:p ex:o . ex:s ex:p ex:o2 }\nGRAPH _:x { ex:s ex:p 1 }\n{ ex:d ex:e ex:f }\n[] { ex:s ex:p ex:o }"
	quads, err := decodeAll(t, doc, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range quads {
		got = append(got, q.String())
	}
	want := []string{
		"<http://ex/a> <http://ex/b> <http://ex/c> .",
		"<http://ex/s> <http://ex/p> <http://ex/o> <http://ex/g> .",
		"<http://ex/s> <http://ex/p> <http://ex/o2> <http://ex/g> .",
		`<http://ex/s> <http://ex/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> _:x .`,
		"<http://ex/d> <http://ex/e> <http://ex/f> .",
		"<http://ex/s> <http://ex/p> <http://ex/o> _:g_1 .",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := decodeAll(t, "<http://ex/g> { <http://ex/s> <http://ex/p> <http://ex/o> ", true); err == nil || !strings.Contains(err.Error(), "in.ttl:1:59: expected '.' or '}' after the triples, found end of input") {
		t.Errorf("unclosed graph block: err = %v; want in.ttl:1:59: expected '.' or '}'", err)
	}
}
