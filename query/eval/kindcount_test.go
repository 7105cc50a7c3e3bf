package eval

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestKindCount checks COUNTs of a whole store's triples by the kind of
// their object (kindcount.go, kb/native/kindcount.go) against hand
// counts over testdata/valueorder.trig: 23 literals, one IRI object and no
// blank node in ex:g1; ex:i5's triple, also in ex:g2, counts once in the
// union default graph. A hidden graph's triples are left out of the union
// default graph and counted when the query names the graph. Each query
// runs with the store's count on and off, optimized and not, on every
// store, twice (the second reads the count kept for the snapshot), and
// again after a write adds a literal and a blank node.
func TestKindCount(t *testing.T) {
	stores := trigStores(t, "testdata/valueorder.trig", "http://e/")
	defer func() { kindCountOn = true }()
	hidden := `<http://e/h1> <http://e/w> "hidden" <` + kb.RulesInternalGraphIRI + `> .
<http://e/h2> <http://e/w> <http://e/thing> <` + kb.RulesInternalGraphIRI + `> .
`
	cases := []struct {
		name, query string
		want, after int // by hand: before and after the write
	}{
		{"literals", `SELECT (COUNT(?o) AS ?n) { ?s ?p ?o FILTER isLiteral(?o) }`, 23, 24},
		{"literals-star", `SELECT (COUNT(*) AS ?n) (COUNT(?s) AS ?m) { ?s ?p ?o FILTER(isLiteral(?o)) }`, 23, 24},
		{"iris", `SELECT (COUNT(?o) AS ?n) { ?s ?p ?o FILTER isIRI(?o) }`, 1, 1},
		{"blanks", `SELECT (COUNT(?o) AS ?n) { ?s ?p ?o FILTER isBlank(?o) }`, 0, 1},
		{"graph-g2", `SELECT (COUNT(?o) AS ?n) FROM <http://e/g2> { ?s ?p ?o FILTER isLiteral(?o) }`, 1, 1},
		{"graph-hidden", `SELECT (COUNT(?o) AS ?n) FROM <` + kb.RulesInternalGraphIRI + `> { ?s ?p ?o FILTER isLiteral(?o) }`, 1, 1},
		{"named-graph", `SELECT (COUNT(?o) AS ?n) { GRAPH <http://e/g1> { ?s ?p ?o FILTER isLiteral(?o) } }`, 23, 24},
	}
	for name, ds := range stores {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(hidden), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check := func(stage string, after bool) {
			for _, c := range cases {
				want := c.want
				if after {
					want = c.after
				}
				for _, way := range []struct{ on, noOpt bool }{{true, false}, {true, false}, {true, true}, {false, false}, {false, true}} {
					kindCountOn = way.on
					rows, err := run(t, ds, c.query, Options{NoOptimize: way.noOpt})
					if err != nil {
						t.Fatalf("%s %s: %v", name, c.name, err)
					}
					if len(rows) != 1 {
						t.Fatalf("%s %s: %d rows", name, c.name, len(rows))
					}
					for _, v := range rows[0] {
						if got, _ := strconv.Atoi(v.Value); got != want {
							t.Errorf("%s %s %s %+v: got %v, want (by hand) %d", name, stage, c.name, way, v, want)
						}
					}
				}
			}
		}
		before := kindCountRuns.Load()
		check("before", false)
		// GRAPH <g> { … } is not an AggregateScan: every other case, three
		// ways each, is answered by the store's count.
		if runs := kindCountRuns.Load() - before; name != "kbtest" && runs != 3*int64(len(cases)-1) {
			t.Errorf("%s: the store's counts answered %d queries, want %d", name, runs, 3*(len(cases)-1))
		}
		more := `@prefix ex: <http://e/> . ex:g1 { ex:new ex:w "z" . ex:new2 ex:w [] . }`
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(more), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check("after a write", true)
	}
	if _, ok := stores["native-disk"].(objectKindCounter); !ok {
		t.Error("the native store does not count by kind: the test checks only the scan")
	}
}
