package eval

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestPathForest checks the closure counts of pathforest.go against
// counts by hand over testdata/pathcount.trig (see TestPathCount for
// its tree) and testdata/pathforest.trig, with the counts read from the
// first left row, after 64 (so walked here), from the first row but only
// once the walks have cost more than any scan (so walked here too) and
// with the shortcut off.
//
//   - parent/child+ follows child links down the tree (a forest): 11
//     as in TestPathCount.
//   - child/parent+ follows parent links up (chains): ?s child ?x gives
//     a, b (from r), c (from a), d (from c); parent+ from a reaches r
//     (1), from b r (1), from c a and r (2), from d c, a and r (3): 7.
//   - parent/^parent+ steps parent links backwards (a forest again):
//     ?x is r for a and b (^parent+ reaches a, b, c, d: 4 each), a for c
//     (c, d: 2), c for d (d: 1): 11.
//   - from/link+ over steps that are neither (w is reached from y and
//     from z): link+ from x reaches y, z, w (3), from y w (1): 4.
//   - from/loop+ over chains with a cycle t → p → q → p: from p (s3's)
//     q and p, from t (s4's) p and q: 4.
func TestPathForest(t *testing.T) {
	stores := trigStores(t, "testdata/pathcount.trig", "")
	more, err := os.ReadFile("testdata/pathforest.trig")
	if err != nil {
		t.Fatal(err)
	}
	for name, ds := range stores {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(more)), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	defer func(share float64) { pathCountOn, forestAfter, forestWalkShare = true, 64, share }(forestWalkShare)
	cases := []struct {
		query  string
		want   int
		counts bool // the path is fed its start: closure counts are read
	}{
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent>/<http://e/child>+ ?o }`, 11, true},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/child>/<http://e/parent>+ ?o }`, 7, true},
		// ^(parent+) is evaluated from its other end: walked.
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent>/^<http://e/parent>+ ?o }`, 11, false},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent>/(^<http://e/parent>)+ ?o }`, 11, true},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/from>/<http://e/link>+ ?o }`, 4, true},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/from>/<http://e/loop>+ ?o }`, 4, true},
		{`SELECT (COUNT(*) AS ?n) { ?s <http://e/parent> ?x . ?x <http://e/child>+ ?o }`, 11, true},
	}
	for name, ds := range stores {
		for _, c := range cases {
			for _, way := range []struct {
				on    bool
				after int
				share float64
			}{{true, 1, 0}, {true, 64, 0}, {true, 1, math.Inf(1)}, {false, 1, 0}} {
				pathCountOn, forestAfter, forestWalkShare = way.on, way.after, way.share
				before := forestRuns.Load()
				rows, err := run(t, ds, c.query, Options{})
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.query, err)
				}
				if len(rows) != 1 {
					t.Fatalf("%s %s: %d rows", name, c.query, len(rows))
				}
				if got, _ := strconv.Atoi(rows[0][0].Value); got != c.want {
					t.Errorf("%s %s %+v: got %v, want (by hand) %d", name, c.query, way, rows[0][0], c.want)
				}
				if ran := forestRuns.Load() > before; ran != (c.counts && way.on && way.after == 1 && way.share == 0) {
					t.Errorf("%s %s %+v: closure counts read: %v", name, c.query, way, ran)
				}
			}
		}
	}
}
