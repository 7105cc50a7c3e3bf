package eval

import (
	"strconv"
	"testing"
)

// TestPathCount checks COUNT(*) over a join with a property path
// (pathcount.go) and walks over the union default graph that drop a
// triple's repeat in a second graph by its neighbour (path.go), against
// counts by hand over testdata/pathcount.trig. child+ reaches from r: a,
// b, c, d (4); from a: c, d (2); from b: nothing; from c: d (1); from d:
// nothing (d → e is hidden). So ?s parent/child+ ?o: a and b (parent r)
// 4 each, c (parent a) 2, d (parent c) 1: 11. ?s parent/child ?o: a, b
// 2 each, c 1 (a child c once, though in two graphs), d 1: 6. ?o parent
// ?x . ?x child+ ?o: each of a, b, c, d is reached from its parent: 4.
// ?s !parent ?o: the four child edges of the union default graph.
// With the shortcut on and off, optimized and not, on every store.
func TestPathCount(t *testing.T) {
	stores := trigStores(t, "testdata/pathcount.trig", "")
	defer func() { pathCountOn = true }()
	cases := []struct {
		query    string
		want     int
		shortcut bool // answered by runPathCount when on
	}{
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent>/<http://e/child>+ ?o }`, 11, true},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 11, true},
		{`SELECT (COUNT(*) AS ?n) { ?o <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 4, true},
		// COUNT of a path end counts every row, as COUNT(*) does; of a
		// variable the path does not bind, or DISTINCT, it does not
		// take the shortcut (?o distinct: a, b, c, d).
		{`SELECT (COUNT(?o) AS ?n) { ?s <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 11, true},
		{`SELECT (COUNT(?x) AS ?n) (COUNT(*) AS ?m) { ?s <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 11, true},
		{`SELECT (COUNT(?o) AS ?n) { ?o <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 4, true},
		{`SELECT (COUNT(?s) AS ?n) { ?s <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 11, false},
		{`SELECT (COUNT(DISTINCT ?o) AS ?n) { ?s <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 4, false},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent>/<http://e/child> ?o }`, 6, false},
		{`SELECT (COUNT(*) AS ?n) { ?s !<http://e/parent> ?o }`, 4, false},
	}
	for name, ds := range stores {
		for _, c := range cases {
			for _, way := range []struct{ on, noOpt bool }{{true, false}, {true, true}, {false, false}, {false, true}} {
				pathCountOn = way.on
				before := pathCountRuns.Load()
				rows, err := run(t, ds, c.query, Options{NoOptimize: way.noOpt})
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.query, err)
				}
				if len(rows) != 1 {
					t.Fatalf("%s %s: %d rows", name, c.query, len(rows))
				}
				for _, v := range rows[0] {
					if got, _ := strconv.Atoi(v.Value); got != c.want {
						t.Errorf("%s %s %+v: got %v, want (by hand) %d", name, c.query, way, v, c.want)
					}
				}
				if ran := pathCountRuns.Load() > before; way.on && !way.noOpt && ran != c.shortcut {
					t.Errorf("%s %s: shortcut ran %v, want %v", name, c.query, ran, c.shortcut)
				}
			}
		}
	}
}
