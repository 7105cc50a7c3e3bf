package query_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/textpos"
)

const pf = "PREFIX pf: <" + function.Namespace + ">\nPREFIX ex: <http://example.org/fn#>\n"

// TestFunctionRegistry runs queries that call functions through
// query.Options.Functions: an extension function registered on a clone of
// DefaultFunctions, perfkb's fuzzy functions, and the errors a call gets
// at its position from the same declarations.
func TestFunctionRegistry(t *testing.T) {
	reg := query.DefaultFunctions().Clone()
	err := reg.Register(function.Def{Name: "http://example.org/fn#shout", Min: 1, Max: 2, Doc: "upper case with a suffix",
		Call: func(a []kb.Term) (kb.Term, error) {
			if !a[0].IsLiteral() {
				return kb.Term{}, function.Errorf("shout: not a literal: %s", a[0])
			}
			suffix := "!"
			if len(a) == 2 {
				suffix = a[1].Value
			}
			return kb.String(strings.ToUpper(a[0].Value) + suffix), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, expr string
		want       string // N-Triples form of ?x; "" for unbound
		wantErr    string // a prepare error instead
	}{
		{"extension", `ex:shout("hi")`, `"HI!"`, ""},
		{"extension 2 args", `ex:shout("hi", "?")`, `"HI?"`, ""},
		{"extension error", `ex:shout(<http://example.org/x>)`, "", ""},
		{"extension arity", `ex:shout()`, "", "4:9: <http://example.org/fn#shout> takes 1 or 2 arguments, found 0"},
		{"builtin", `STRLEN("abc")`, `"3"^^<http://www.w3.org/2001/XMLSchema#integer>`, ""},
		{"fuzzy triangle", `pf:fuzzyTriangle(1.25, 1, 1.5, 2)`, `"0.5"^^<http://www.w3.org/2001/XMLSchema#double>`, ""},
		{"fuzzy very", `pf:fuzzyVery(pf:fuzzyShoulderRight(4.5, 4, 5))`, `"0.25"^^<http://www.w3.org/2001/XMLSchema#double>`, ""},
		{"fuzzy hedges", `pf:fuzzyExtremely(pf:fuzzySomewhat(0.25))`, `"0.125"^^<http://www.w3.org/2001/XMLSchema#double>`, ""},
		{"fuzzy and", `pf:fuzzyAnd(0.5, 0.25, 1)`, `"0.25"^^<http://www.w3.org/2001/XMLSchema#double>`, ""},
		{"fuzzy out of order", `pf:fuzzyTriangle(1.5, 2, 1.5, 1)`, "", ""},
		{"fuzzy not a number", `pf:fuzzyS("x", 0, 4)`, "", ""},
		{"fuzzy arity", `pf:fuzzyTriangle(1, 2, 3)`, "", "4:9: <" + function.Namespace + "fuzzyTriangle> takes 4 arguments, found 3"},
		{"fuzzy misspelt", `pf:fuzzyTriangel(1, 2, 3, 4)`, "", "4:9: unknown function <" + function.Namespace + "fuzzyTriangel>"},
	}
	ctx := context.Background()
	ds := native.OpenMemory()
	defer ds.Close()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := pf + "SELECT ?x {\n  BIND (" + tc.expr + " AS ?x) }"
			opts := query.Options{Functions: reg}
			p, err := query.Prepare(text, opts)
			if tc.wantErr != "" {
				var se *textpos.Error
				if err == nil || err.Error() != tc.wantErr || !errors.As(err, &se) {
					t.Fatalf("Prepare error = %v, want the *textpos.Error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := query.Exec(ctx, ds, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := res.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 {
				t.Fatalf("%d rows, want 1", len(rows))
			}
			got := ""
			if !rows[0][0].IsZero() {
				got = rows[0][0].String()
			}
			if got != tc.want {
				t.Errorf("?x = %s, want %s", got, tc.want)
			}
		})
	}
	// The same query with the default registry: the extension function is
	// not declared there, and its namespace is open, so it parses and
	// evaluates to an error (?x unbound); the fuzzy functions are there.
	res, err := query.Run(ctx, ds, pf+`SELECT ?x ?y { BIND (ex:shout("hi") AS ?x) BIND (pf:fuzzyNot(0.25) AS ?y) }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := res.Rows()
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if !rows[0][0].IsZero() || rows[0][1].Value != "0.75" {
		t.Errorf("default registry: ?x = %v, ?y = %v; want unbound and 0.75", rows[0][0], rows[0][1])
	}
}

// TestEveryDeclaredFunctionRuns parses and evaluates a call of every
// function DefaultFunctions declares, by keyword (and alias) or IRI, with
// its fewest and most arguments: what the parser accepts from a
// declaration, the evaluator must resolve from the same declaration (an
// expression error on the unbound arguments is fine, a failed query is
// not).
func TestEveryDeclaredFunctionRuns(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	defer ds.Close()
	n := 0
	for _, d := range query.DefaultFunctions().Defs() {
		names := append([]string{d.Name}, d.Aliases...)
		if d.IsIRI() {
			names = []string{"<" + d.Name + ">"}
		}
		counts := []int{d.Min}
		if d.Max != function.Variadic && d.Max != d.Min {
			counts = append(counts, d.Max)
		}
		for _, name := range names {
			for _, c := range counts {
				n++
				args := strings.TrimSuffix(strings.Repeat("?o, ", c), ", ")
				text := "SELECT ?x { BIND (" + name + "(" + args + ") AS ?x) }"
				res, err := query.Run(ctx, ds, text, query.Options{})
				if err != nil {
					t.Errorf("%s: %v", text, err)
					continue
				}
				if _, err := res.Rows(); err != nil {
					t.Errorf("%s: %v", text, err)
				}
			}
		}
	}
	if n < 80 {
		t.Errorf("ran %d calls, want every declared function", n)
	}
}

// TestConstantCalls checks that calls of constants, which the evaluator
// computes once per query, keep their per-row meaning: the same value or
// the same error on every row, and a fresh value per row for RAND, UUID,
// STRUUID and BNODE, which are never folded.
func TestConstantCalls(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	defer ds.Close()
	const prologue = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
	tests := []struct {
		name, expr string
		same       bool   // every row gets the same value
		want       string // that value's lexical form; "" for unbound
	}{
		{"cast", `xsd:dateTime(CONCAT("2020-01-01", "T00:00:00Z"))`, true, "2020-01-01T00:00:00Z"},
		{"nested", `STRLEN(UCASE(SUBSTR("abcdef", 2, 3)))`, true, "3"},
		{"error", `xsd:integer("x")`, true, ""},
		{"now", `STR(NOW())`, true, "*"},
		{"struuid", `STRUUID()`, false, ""},
		{"uuid", `UUID()`, false, ""},
		{"rand", `RAND()`, false, ""},
		{"bnode", `BNODE("x")`, false, ""},
		{"in a constant", `STRLEN(STRUUID())`, true, "36"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := prologue + "SELECT ?x { VALUES ?i { 1 2 3 } BIND (" + tc.expr + " AS ?x) }"
			res, err := query.Run(ctx, ds, text, query.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := res.Rows()
			if err != nil || len(rows) != 3 {
				t.Fatalf("%d rows, %v", len(rows), err)
			}
			vals := map[string]bool{}
			for _, r := range rows {
				vals[r[0].String()] = true
			}
			switch {
			case tc.same && len(vals) != 1:
				t.Errorf("values %v, want one value on every row", vals)
			case !tc.same && len(vals) != 3:
				t.Errorf("values %v, want a fresh value per row", vals)
			case tc.same && tc.want != "*" && rows[0][0].Value != tc.want:
				t.Errorf("?x = %v, want %q", rows[0][0], tc.want)
			}
		})
	}
}
