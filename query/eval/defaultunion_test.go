package eval

import (
	"context"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestDefaultGraphsAreUnion checks that a default graph listing every
// graph of the store is evaluated as the union default graph
// (defaultunion.go) and one listing fewer, or a hidden graph, is not,
// with counts by hand. testdata/defaultunion.trig: g1 holds a p b, a p c,
// b q c; g2 a p b, c q d; their union 4 triples, and the chain ?s p ?x .
// ?x q ?o matches a-b-c and a-c-d (1 in g1 alone: a-b-c).
// testdata/pathcount.trig: g1 holds 8 triples, g2 two of them again, the
// hidden rules graph 1 (d child e): listing all three gives 9, the union
// default graph (which leaves the hidden graph out) 8.
func TestDefaultGraphsAreUnion(t *testing.T) {
	two := trigStores(t, "testdata/defaultunion.trig", "")
	hidden := trigStores(t, "testdata/pathcount.trig", "")
	g := func(names ...string) []kb.Term {
		var out []kb.Term
		for _, n := range names {
			out = append(out, kb.IRI(n))
		}
		return out
	}
	const (
		all   = `SELECT (COUNT(*) AS ?n) { ?s ?p ?o }`
		chain = `SELECT (COUNT(*) AS ?n) { ?s <http://e/p> ?x . ?x <http://e/q> ?o }`
	)
	cases := []struct {
		hidden  bool
		query   string
		spec    DatasetSpec
		want    int
		asUnion bool
	}{
		{false, all, DatasetSpec{Default: g("http://e/g1", "http://e/g2")}, 4, true},
		{false, all, DatasetSpec{Default: g("http://e/g2", "http://e/g1", "http://e/g1")}, 4, true},
		{false, all, DatasetSpec{Default: g("http://e/g1", "http://e/g2", "http://e/none")}, 4, true},
		{false, all, DatasetSpec{Default: g("http://e/g1")}, 3, false},
		{false, chain, DatasetSpec{Default: g("http://e/g1", "http://e/g2")}, 2, true},
		{false, chain, DatasetSpec{Default: g("http://e/g1")}, 1, false},
		{false, chain, DatasetSpec{}, 2, true},
		{true, all, DatasetSpec{Default: g("http://e/g1", "http://e/g2", kb.RulesInternalGraphIRI)}, 9, false},
		{true, all, DatasetSpec{Default: g("http://e/g1", "http://e/g2")}, 8, false},
		{true, all, DatasetSpec{}, 8, true},
	}
	for _, c := range cases {
		stores := two
		if c.hidden {
			stores = hidden
		}
		q, err := syntax.ParseQuery(c.query, syntax.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for name, ds := range stores {
			for _, noOpt := range []bool{false, true} {
				res, err := Query(context.Background(), ds, q, Options{Dataset: c.spec, NoOptimize: noOpt})
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.query, err)
				}
				if res.ex.unionAll != c.asUnion {
					t.Errorf("%s %s %v: evaluated as the union default graph %v, want %v", name, c.query, c.spec.Default, res.ex.unionAll, c.asUnion)
				}
				r, ok := res.Next()
				if !ok {
					t.Fatalf("%s %s: no row: %v", name, c.query, res.Err())
				}
				if got, _ := strconv.Atoi(r[0].Value); got != c.want {
					t.Errorf("%s %s %v noOpt=%v: got %v, want (by hand) %d", name, c.query, c.spec.Default, noOpt, r[0], c.want)
				}
				res.Close()
			}
		}
	}
}
