package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestPathsLeaveOutHiddenGraphs checks that property paths over the union
// default graph leave out perfkb's bookkeeping graphs, as BGPs do, and see
// them when a query names them. The answers are worked out by hand from
// testdata/pathhidden.trig: the data graph holds a→b→c over ex:p and
// a ex:name "x"; the rule-internal graph adds c→d, a→z and h ex:q h2.
func TestPathsLeaveOutHiddenGraphs(t *testing.T) {
	data, err := os.ReadFile("testdata/pathhidden.trig")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, query string
		want        [][]string
	}{
		{"plus", `SELECT ?y { <http://e/a> <http://e/p>+ ?y } ORDER BY ?y`,
			[][]string{{`<http://e/b>`}, {`<http://e/c>`}}},
		{"plus-inverse", `SELECT ?y { <http://e/c> ^<http://e/p>+ ?y } ORDER BY ?y`,
			[][]string{{`<http://e/a>`}, {`<http://e/b>`}}},
		{"plus-unbound", `SELECT ?x ?y { ?x <http://e/p>+ ?y } ORDER BY ?x ?y`,
			[][]string{{`<http://e/a>`, `<http://e/b>`}, {`<http://e/a>`, `<http://e/c>`}, {`<http://e/b>`, `<http://e/c>`}}},
		// Zero-length pairs relate the nodes of the data graph only: a, b,
		// c and "x" (not d, z, h, h2).
		{"star-count", `SELECT (COUNT(*) AS ?n) { ?x <http://e/p>* ?y }`,
			[][]string{{`"7"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
		{"negated", `SELECT ?s ?o { ?s !<http://e/p> ?o }`,
			[][]string{{`<http://e/a>`, `"x"`}}},
		{"alt", `SELECT ?o { <http://e/c> (<http://e/p>|<http://e/q>) ?o }`, nil},
		{"bgp", `SELECT ?o { <http://e/c> <http://e/p> ?o }`, nil},
		// Naming a hidden graph sees it.
		{"named", `SELECT ?y { GRAPH <urn:x-perfkb:rules-internal> { <http://e/c> <http://e/p>+ ?y } }`,
			[][]string{{`<http://e/d>`}}},
		{"from", `SELECT ?y FROM <http://e/g1> FROM <urn:x-perfkb:rules-internal> { <http://e/a> <http://e/p>+ ?y } ORDER BY ?y`,
			[][]string{{`<http://e/b>`}, {`<http://e/c>`}, {`<http://e/d>`}, {`<http://e/z>`}}},
	}
	for name, ds := range map[string]kb.Dataset{"kbtest": kbtest.NewMemory(), "native": native.OpenMemory()} {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.TriG, BaseIRI: "http://e/"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range cases {
			got, err := run(t, ds, c.query, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.name, err)
			}
			text := rowsText(got)
			if !sameText(text, c.want) {
				t.Errorf("%s %s: got %v, want (by hand) %v", name, c.name, text, c.want)
			}
		}
	}
}
