package eval

import "testing"

// TestPathLinkWalk checks closures over one link walked by alpLink
// (pathlink.go) against answers by hand over testdata/pathcount.trig
// (the tree r → a, b; a → c; c → d of child links, parent links back up;
// d → e only in a hidden graph) and testdata/pathforest.trig (x → y, z →
// w of link; the cycle p → q → p with t → p of loop), with it on and
// off, optimized and not, on every store; the native stores scan through
// a QuadScanner, so there alpLink walks.
func TestPathLinkWalk(t *testing.T) {
	stores := trigStores(t, "testdata/pathcount.trig", "")
	forest := trigStores(t, "testdata/pathforest.trig", "")
	defer func() { alpLinkOn = true }()
	cases := []struct {
		forest bool
		query  string
		want   string
	}{
		{false, `SELECT ?o { <http://e/r> <http://e/child>+ ?o }`, "a b c d"},
		{false, `SELECT ?o { <http://e/r> <http://e/child>* ?o }`, "a b c d r"},
		{false, `SELECT ?o { <http://e/d> (^<http://e/child>)+ ?o }`, "a c r"},
		{false, `SELECT ?o { ?o <http://e/child>+ <http://e/d> }`, "a c r"},
		{false, `SELECT ?o { <http://e/d> <http://e/parent>* ?o }`, "a c d r"},
		{false, `SELECT ?o { <http://e/c> ^(<http://e/parent>+) ?o }`, "d"},
		{false, `SELECT ?o { GRAPH <http://e/g2> { <http://e/a> <http://e/child>+ ?o } }`, "c"},
		{false, `SELECT ?o { GRAPH <urn:x-perfkb:rules-internal> { <http://e/d> <http://e/child>+ ?o } }`, "e"},
		{false, `SELECT ?o { <http://e/r> <http://e/nothing>* ?o }`, "r"},
		{true, `SELECT ?o { <http://e/x> <http://e/link>+ ?o }`, "w y z"},
		{true, `SELECT ?o { <http://e/w> (^<http://e/link>)+ ?o }`, "x y z"},
		{true, `SELECT ?o { <http://e/t> <http://e/loop>+ ?o }`, "p q"},
		{true, `SELECT ?o { <http://e/p> <http://e/loop>+ ?o }`, "p q"},
		{true, `SELECT ?o { <http://e/p> <http://e/loop>* ?o }`, "p q"},
	}
	for _, c := range cases {
		on := stores
		if c.forest {
			on = forest
		}
		for name, ds := range on {
			for _, way := range []struct{ on, noOpt bool }{{true, false}, {true, true}, {false, false}, {false, true}} {
				alpLinkOn = way.on
				before := alpLinkRuns.Load()
				if got := firstColumn(t, ds, c.query, Options{NoOptimize: way.noOpt}); got != c.want {
					t.Errorf("%s %s %+v: got %q, want (by hand) %q", name, c.query, way, got, c.want)
				}
				walked := alpLinkRuns.Load() > before
				if want := way.on && name != "kbtest"; walked != want {
					t.Errorf("%s %s %+v: alpLink walked %v, want %v", name, c.query, way, walked, want)
				}
			}
		}
	}
}
