package pg_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// treeData is a call tree in two graphs, with a cycle and edges held in
// both graphs (the union default graph must count them once), plus
// metrics on some nodes: enough rows that OPTIONAL, NOT EXISTS and MINUS
// pass the evaluator's threshold for hashing on a round-trip store.
func treeData() string {
	var b strings.Builder
	for i := 1; i < 60; i++ {
		g := "<http://e/g1>"
		if i%3 == 0 {
			g = "<http://e/g2>"
		}
		fmt.Fprintf(&b, "<http://e/n%d> <http://e/child> <http://e/n%d> %s .\n", i/2, i, g)
		if i%5 == 0 {
			// the same edge in the other graph too
			fmt.Fprintf(&b, "<http://e/n%d> <http://e/child> <http://e/n%d> <http://e/g3> .\n", i/2, i)
		}
		fmt.Fprintf(&b, "<http://e/n%d> <http://e/a> <http://e/Node> %s .\n", i, g)
		if i%4 != 0 {
			fmt.Fprintf(&b, "<http://e/n%d> <http://e/metric> <http://e/m%d> %s .\n", i, i, g)
			fmt.Fprintf(&b, "<http://e/m%d> <http://e/name> \"%s\" %s .\n", i, []string{"wtime", "cyc"}[i%2], g)
			fmt.Fprintf(&b, "<http://e/m%d> <http://e/value> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> %s .\n", i, i*10, g)
		}
	}
	// a cycle n40 -> n2 (n2 is an ancestor of n40), and a self-loop
	b.WriteString("<http://e/n40> <http://e/child> <http://e/n2> <http://e/g1> .\n")
	b.WriteString("<http://e/n7> <http://e/child> <http://e/n7> <http://e/g2> .\n")
	b.WriteString("<http://e/n0> <http://e/a> <http://e/Node> <http://e/g1> .\n")
	return b.String()
}

// TestRoundTripPushdown: property paths walked by a recursive SQL query
// (kb.ClosureMatcher), and OPTIONAL, NOT EXISTS and MINUS over BGPs sent
// to the store whole and hashed early (kb.RoundTripLookups), answer as the
// in-memory reference store does through the query engine alone.
func TestRoundTripPushdown(t *testing.T) {
	ctx := context.Background()
	ds := newStore(t)
	ref := kbtest.NewMemory()
	data := treeData()
	for _, target := range []kb.Dataset{ds, ref} {
		if _, err := rdfio.Load(ctx, target, strings.NewReader(data), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		`SELECT ?d WHERE { <http://e/n1> <http://e/child>+ ?d }`,
		`SELECT ?d WHERE { <http://e/n2> <http://e/child>+ ?d }`,
		`SELECT ?d WHERE { <http://e/n7> <http://e/child>+ ?d }`,
		`SELECT ?d WHERE { <http://e/n3> <http://e/child>* ?d }`,
		`SELECT ?a WHERE { ?a <http://e/child>+ <http://e/n40> }`,
		`SELECT ?a WHERE { ?a ^<http://e/child>+ <http://e/n5> }`,
		`SELECT ?a WHERE { <http://e/n45> ^<http://e/child>* ?a }`,
		`SELECT ?r (COUNT(?d) AS ?n) WHERE { ?r <http://e/a> <http://e/Node> . ?r <http://e/child>+ ?d } GROUP BY ?r`,
		`SELECT ?r ?d WHERE { ?r <http://e/a> <http://e/Node> FILTER NOT EXISTS { ?p <http://e/child> ?r } ?r <http://e/child>+ ?d }`,
		`SELECT ?g ?d WHERE { GRAPH ?g { <http://e/n1> <http://e/child>+ ?d } }`,
		`SELECT ?d FROM <http://e/g1> WHERE { <http://e/n1> <http://e/child>+ ?d }`,
		`SELECT ?d WHERE { <http://e/nope> <http://e/child>+ ?d }`,
		`SELECT ?d WHERE { <http://e/n1> <http://e/nope>* ?d }`,
		`SELECT ?r ?v WHERE { ?r <http://e/a> <http://e/Node> OPTIONAL { ?r <http://e/metric> ?m . ?m <http://e/name> "wtime" ; <http://e/value> ?v } }`,
		`SELECT ?r ?c WHERE { ?r <http://e/a> <http://e/Node> OPTIONAL { ?r <http://e/child> ?c . ?c <http://e/metric> ?m } FILTER NOT EXISTS { ?r <http://e/metric> ?x . ?x <http://e/name> "cyc" } }`,
		`SELECT ?r WHERE { ?r <http://e/a> <http://e/Node> MINUS { ?r <http://e/metric> ?m . ?m <http://e/name> "wtime" } }`,
		`SELECT ?p ?c WHERE { ?p <http://e/child> ?c . ?c <http://e/child> ?gc }`,
		`SELECT ?g ?p ?c WHERE { GRAPH ?g { ?p <http://e/child> ?c . ?c <http://e/a> ?k } }`,
	}
	for _, q := range queries {
		got, _ := runSorted(t, ds, q)
		want, _ := runSorted(t, ref, q)
		if len(want) == 0 && !strings.Contains(q, "nope") {
			t.Errorf("%s: the reference store has no answer; the query tests nothing", q)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s\nthe PostgreSQL store answers (%d rows)\n %v\nthe reference store (%d rows)\n %v", q, len(got), got, len(want), want)
		}
	}
}
