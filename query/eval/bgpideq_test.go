package eval

import (
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestIDEqualFilters checks FILTER (?a = ?b) and (?a != ?b) inside a BGP,
// where ?a is a subject or predicate (decided on IDs, bgpideq.go), against
// answers worked by hand over testdata/ideq.trig, on both in-memory
// stores, optimized (the filter placed in the BGP) and not optimized (the
// filter over the whole group, evaluated on terms).
//
// Default graph: a p a; a p b; b p "b"; _:x p _:x; _:y p _:x; e p p;
// e r e; t p <<( a p a )>>; n v 1; n w 01; n w 1; a zz a; b zz a.
// Graph g: c p2 c; c p2 d.
func TestIDEqualFilters(t *testing.T) {
	const pre = "PREFIX : <http://ex/> "
	tests := []struct {
		name, query string
		want        []string // cells space-separated; "-" unbound, "_" a blank node, "<<>>" a triple term
	}{
		{"subject = object", "SELECT ?s ?o { ?s :p ?o FILTER(?s = ?o) }", []string{":a :a", "_ _"}},
		{"object = subject", "SELECT ?s ?o { ?s :p ?o FILTER(?o = ?s) }", []string{":a :a", "_ _"}},
		// A literal and a triple term differ from every subject: != holds.
		{"subject != object", "SELECT ?s ?o { ?s :p ?o FILTER(?s != ?o) }",
			[]string{":a :b", `:b "b"`, "_ _", ":e :p", ":t <<>>"}},
		{"predicate = object", "SELECT ?s { ?s ?p ?o FILTER(?p = ?o) }", []string{":e"}},
		{"predicate != object, one subject", "SELECT ?p ?o { :e ?p ?o FILTER(?p != ?o) }", []string{":r :e"}},
		// Two literals: equal by value under different IDs, not decided on IDs.
		{"literals by value", "SELECT ?x ?y { :n :v ?x . :n :w ?y FILTER(?x = ?y) }", []string{`"1" "01"`, `"1" "1"`}},
		{"literals by value, !=", "SELECT ?x ?y { :n :v ?x . :n :w ?y FILTER(?x != ?y) }", nil},
		// A subject against a literal: RDFterm-equal is false, not an error.
		{"subject = literal", "SELECT ?s { ?s :p ?o . :n :v ?l FILTER(?s = ?l) }", nil},
		{"subject != literal", "SELECT ?s { ?s :p ?o . :n :v ?l FILTER(?s != ?l) }",
			[]string{":a", ":a", ":b", "_", "_", ":e", ":t"}},
		// Across two patterns: s -> o -> o2 with o2 = s.
		{"chain back to the subject", "SELECT ?s ?o { ?s :p ?o . ?o :p ?o2 FILTER(?s = ?o2) }", []string{":a :a", "_ _"}},
		// Both branches of a UNION keep their rows: duplicates stay.
		{"union with a filter over both branches", "SELECT ?s { { ?s :p ?o } UNION { ?s :p ?o } FILTER(?s = ?o) }",
			[]string{":a", ":a", "_", "_"}},
		{"union count", "SELECT (COUNT(*) AS ?n) { { ?s :p ?o } UNION { ?s :zz ?o } FILTER(?s = ?o) }", []string{`"3"`}},
		{"named graph", "SELECT ?g ?s { GRAPH ?g { ?s :p2 ?o FILTER(?s = ?o) } }", []string{":g :c"}},
		// ?z unbound: the comparison is an error and the row goes.
		{"unbound operand from values", "SELECT ?s ?z { VALUES ?z { UNDEF :a } ?s :p ?o FILTER(?s = ?z) }",
			[]string{":a :a", ":a :a"}},
		{"unbound operand from optional", "SELECT ?s ?z { ?s :p ?o OPTIONAL { ?s :zz ?z } FILTER(?s = ?z) }",
			[]string{":a :a", ":a :a"}},
		{"sameTerm beside =", "SELECT ?s { ?s :p ?o FILTER(?s = ?o && sameTerm(?o, ?s)) }", []string{":a", "_"}},
	}
	for sname, ds := range loadedStores(t, "testdata/ideq.trig", rdfio.TriG) {
		for _, way := range []struct {
			name string
			opts Options
		}{{"optimized", Options{}}, {"not-optimized", Options{NoOptimize: true}}} {
			for _, tc := range tests {
				t.Run(sname+"/"+way.name+"/"+tc.name, func(t *testing.T) {
					rows, err := run(t, ds, pre+tc.query, way.opts)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]string, 0, len(rows))
					for _, r := range rows {
						cells := make([]string, len(r))
						for i, c := range r {
							switch {
							case c.IsZero():
								cells[i] = "-"
							case c.Kind == kb.KindIRI:
								cells[i] = strings.Replace(c.Value, "http://ex/", ":", 1)
							case c.Kind == kb.KindBlank:
								cells[i] = "_"
							case c.Kind == kb.KindTriple:
								cells[i] = "<<>>"
							default:
								cells[i] = `"` + c.Value + `"`
							}
						}
						got = append(got, strings.Join(cells, " "))
					}
					sort.Strings(got)
					want := append([]string{}, tc.want...)
					sort.Strings(want)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s\ngot  %q\nwant %q", tc.query, got, want)
					}
				})
			}
		}
		ds.Close()
	}
}
