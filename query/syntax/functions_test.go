package syntax

import (
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// callArgs writes n arguments.
func callArgs(n int) string { return strings.TrimSuffix(strings.Repeat("?o, ", n), ", ") }

// TestArityFromRegistry calls every built-in keyword (aliases included)
// with the fewest and the most arguments its declaration allows and with
// one too few and one too many: the parser must accept exactly what
// function.Builtin declares and report the rest at the call's position
// with the declaration's message.
func TestArityFromRegistry(t *testing.T) {
	reg := function.Builtin()
	words := 0
	for _, d := range reg.Defs() {
		if d.IsIRI() {
			continue
		}
		if algebra.Builtin(d.Name) == algebra.BuiltinBound {
			// BOUND's argument is a variable by grammar, not an
			// expression list: "BOUND(?o, ?o)" fails at the comma.
			continue
		}
		for _, word := range append([]string{d.Name}, d.Aliases...) {
			words++
			counts := []int{d.Min}
			if d.Max != function.Variadic {
				counts = append(counts, d.Max, d.Max+1)
			} else {
				counts = append(counts, d.Min+5)
			}
			if d.Min > 0 {
				counts = append(counts, d.Min-1)
			}
			for _, n := range counts {
				src := "SELECT * { ?s ?p ?o FILTER(" + word + "(" + callArgs(n) + ")) }"
				_, err := ParseQuery(src, Options{})
				arityErr := d.CheckArity(n)
				switch {
				case arityErr == nil && err != nil:
					t.Errorf("%s: %v", src, err)
				case arityErr != nil && err == nil:
					t.Errorf("%s: parsed, want %q", src, arityErr)
				case arityErr != nil && err.Error() != "1:28: "+arityErr.Error():
					t.Errorf("%s: error %q, want %q", src, err, "1:28: "+arityErr.Error())
				}
			}
		}
	}
	if words < 50 {
		t.Errorf("checked %d keywords, want every SPARQL 1.1 built-in", words)
	}
}

// TestFunctionCalls checks calls by keyword and IRI against a registry
// with an extension function and a closed namespace.
func TestFunctionCalls(t *testing.T) {
	const ns = "http://example.org/fn#"
	reg := function.Builtin().Clone()
	if err := reg.Register(function.Def{Name: ns + "grade", Min: 2, Max: 3, Call: func(a []kb.Term) (kb.Term, error) { return a[0], nil }}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(ns); err != nil {
		t.Fatal(err)
	}
	const prologue = "PREFIX fn: <" + ns + ">\nPREFIX ex: <http://example.org/other#>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
	tests := []struct {
		name, where string
		want        string // "" to parse; else the error
	}{
		{"extension", "FILTER(fn:grade(?o, 1))", ""},
		{"extension full IRI", "FILTER(<" + ns + "grade>(?o, 1, 2))", ""},
		{"extension arity", "FILTER(fn:grade(?o))", "4:28: <" + ns + "grade> takes 2 or 3 arguments, found 1"},
		{"closed namespace", "FILTER(fn:grde(?o, 1))", "4:28: unknown function <" + ns + "grde>"},
		{"open namespace", "FILTER(ex:anything(?o, 1, 2, 3))", ""},
		{"unsupported cast", "FILTER(xsd:date(?o))", "4:28: unknown function <http://www.w3.org/2001/XMLSchema#date>"},
		{"derived cast", "FILTER(xsd:unsignedByte(?o) > 1)", ""},
		{"in BIND", "BIND(fn:grade(?o, 1, 2, 3) AS ?g)", "4:26: <" + ns + "grade> takes 2 or 3 arguments, found 4"},
		{"unknown keyword", "FILTER(GRADE(?o))", "4:28: unknown function or keyword \"GRADE\" in expression"},
		{"keyword lower case", "FILTER(strlen(?o) > 1)", ""},
		{"alias", "FILTER(isUri(uri(?o)))", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := prologue + "SELECT * { ?s ?p ?o " + tc.where + " }"
			q, err := ParseQuery(src, Options{Functions: reg})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%v", err)
				}
				if q == nil {
					t.Fatal("no query")
				}
				return
			}
			if err == nil {
				t.Fatalf("parsed, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error %q\nwant      %q", err, tc.want)
			}
		})
	}
	// Without the registry the extension function is unknown in an open
	// namespace: it parses (the grammar allows any IRI).
	if _, err := ParseQuery(prologue+"SELECT * { ?s ?p ?o FILTER(fn:grade(?o)) }", Options{}); err != nil {
		t.Errorf("with the built-in registry: %v", err)
	}
}
