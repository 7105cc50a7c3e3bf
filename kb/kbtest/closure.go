package kbtest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// refClosure walks from start along pred (backwards when inverse) in
// graph (kb.Any: every graph but those in except) breadth first with
// Match: the nodes a ClosureMatcher must visit, sorted.
func refClosure(t *testing.T, ds kb.Dataset, start, pred, graph kb.ID, inverse bool, except ...kb.ID) []kb.ID {
	t.Helper()
	seen := map[kb.ID]bool{}
	frontier := []kb.ID{start}
	for len(frontier) > 0 {
		var next []kb.ID
		for _, n := range frontier {
			p := kb.Pattern{S: n, P: pred, G: graph}
			if inverse {
				p = kb.Pattern{P: pred, O: n, G: graph}
			}
			for _, q := range mustMatch(t, ds, p) {
				if slices.Contains(except, q.G) {
					continue
				}
				y := q.O
				if inverse {
					y = q.S
				}
				if !seen[y] {
					seen[y] = true
					next = append(next, y)
				}
			}
		}
		frontier = next
	}
	out := make([]kb.ID, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// testClosureMatcher checks MatchClosure against a walk with Match over a
// tree of 40 nodes in three graphs, with edges held in two graphs at once,
// a cycle back to an inner node and a self-loop.
func testClosureMatcher(t *testing.T, ds kb.Dataset) {
	cm := capability[kb.ClosureMatcher](t, ds)
	ctx := context.Background()
	var terms []kb.Term
	for i := range 40 {
		terms = append(terms, kb.IRI(fmt.Sprintf("%sn%d", ex, i)))
	}
	terms = append(terms, kb.IRI(ex+"child"), kb.IRI(ex+"other"), kb.IRI(ex+"g1"), kb.IRI(ex+"g2"), kb.IRI(ex+"g3"))
	ids := mustIntern(t, ds, terms...)
	node := ids[:40]
	child, other, g1, g2, g3 := ids[40], ids[41], ids[42], ids[43], ids[44]
	var d kb.Delta
	for i := 1; i < 40; i++ {
		g := g1
		if i%3 == 0 {
			g = g2
		}
		d.Add = append(d.Add, kb.Quad{S: node[i/2], P: child, O: node[i], G: g})
		if i%5 == 0 {
			d.Add = append(d.Add, kb.Quad{S: node[i/2], P: child, O: node[i], G: g3})
		}
		d.Add = append(d.Add, kb.Quad{S: node[i], P: other, O: node[i/2], G: g1})
	}
	d.Add = append(d.Add,
		kb.Quad{S: node[30], P: child, O: node[3], G: g1}, // a cycle through n3
		kb.Quad{S: node[7], P: child, O: node[7], G: g2},  // a self-loop
	)
	mustApply(t, ds, d)
	cases := []struct {
		start   int
		graph   kb.ID
		inverse bool
	}{
		{0, kb.Any, false}, {1, kb.Any, false}, {3, kb.Any, false}, {7, kb.Any, false},
		{1, g1, false}, {1, g2, false}, {2, g3, false},
		{30, kb.Any, true}, {35, kb.Any, true}, {35, g1, true}, {15, g2, true},
		{39, kb.Any, false}, // a leaf: nothing
	}
	for _, tc := range cases {
		name := fmt.Sprintf("from n%d in graph %d, inverse %v", tc.start, tc.graph, tc.inverse)
		want := refClosure(t, ds, node[tc.start], child, tc.graph, tc.inverse)
		var got []kb.ID
		err := cm.MatchClosure(ctx, kb.Closure{Start: node[tc.start], Pred: child, Inverse: tc.inverse, Graphs: []kb.ID{tc.graph}}, func(n kb.ID) bool {
			got = append(got, n)
			return true
		})
		if err != nil {
			t.Errorf("%s: MatchClosure: %v", name, err)
			continue
		}
		slices.Sort(got)
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("%s: MatchClosure visits %v; walking with Match gives %v", name, got, want)
		}
		if tc.start != 39 && len(want) == 0 {
			t.Errorf("%s: the walk reaches nothing; the case checks nothing", name)
		}
		calls := 0
		if err := cm.MatchClosure(ctx, kb.Closure{Start: node[tc.start], Pred: child, Inverse: tc.inverse, Graphs: []kb.ID{tc.graph}}, func(kb.ID) bool { calls++; return false }); err != nil {
			t.Errorf("%s: MatchClosure stopped early: %v", name, err)
		}
		if calls > 1 {
			t.Errorf("%s: MatchClosure called visit %d times after it returned false", name, calls)
		}
	}
	// Several graphs at once: the union of the walk's edges.
	var got []kb.ID
	if err := cm.MatchClosure(ctx, kb.Closure{Start: node[1], Pred: child, Graphs: []kb.ID{g2, g3}}, func(n kb.ID) bool { got = append(got, n); return true }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	// Over g2 and g3 only, node i's children 2i and 2i+1 are there when
	// divisible by 3 (g2) or 5 (g3): n1 → n3; n3 → n6; n6 → n12;
	// n12 → n24, n25; n24 and n25 have no children below 40.
	want := []kb.ID{node[3], node[6], node[12], node[24], node[25]}
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from n1 in g2 and g3: MatchClosure visits %v; want %v (worked out by hand)", got, want)
	}
	// Every graph but some (the union default graph without perfkb's
	// bookkeeping graphs). Without g2, from n0: the edges of g1 and g3
	// reach n1, n2, n4, n5, n8, n10, n11, n16, n17, n20, n22, n23, n32,
	// n34, n35 (n3, n9, n21 and n33 hang by g2 edges only).
	got = got[:0]
	if err := cm.MatchClosure(ctx, kb.Closure{Start: node[0], Pred: child, Graphs: []kb.ID{kb.Any}, Except: []kb.ID{g2}}, func(n kb.ID) bool { got = append(got, n); return true }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want = nil
	for _, i := range []int{1, 2, 4, 5, 8, 10, 11, 16, 17, 20, 22, 23, 32, 34, 35} {
		want = append(want, node[i])
	}
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from n0 in every graph but g2: MatchClosure visits %v; want %v (worked out by hand)", got, want)
	}
	for _, tc := range []struct {
		start   int
		inverse bool
		except  []kb.ID
	}{{1, false, []kb.ID{g1}}, {0, false, []kb.ID{g1, g3}}, {35, true, []kb.ID{g3}}, {30, true, []kb.ID{g2}}} {
		want := refClosure(t, ds, node[tc.start], child, kb.Any, tc.inverse, tc.except...)
		var got []kb.ID
		if err := cm.MatchClosure(ctx, kb.Closure{Start: node[tc.start], Pred: child, Inverse: tc.inverse, Graphs: []kb.ID{kb.Any}, Except: tc.except}, func(n kb.ID) bool { got = append(got, n); return true }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("from n%d (inverse %v) in every graph but %v: MatchClosure visits %v; walking with Match gives %v", tc.start, tc.inverse, tc.except, got, want)
		}
	}
}
