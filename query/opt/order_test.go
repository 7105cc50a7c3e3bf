package opt

import (
	"context"
	"testing"
)

// TestStatsOrder checks the start and order statsOrder picks from
// per-predicate statistics.
func TestStatsOrder(t *testing.T) {
	const (
		hasCrType = iota + 1
		ofCodeRegion
		hasMetric
		hasMetricName
		hasMetricValue
		knows
	)
	// Variables: 0 ?rs, 1 ?cr, 2 ?crtype, 3 ?m, 4 ?v, 5 ?x, 6 ?y
	const c = -1
	// The counts of `perfkb sample --triples 1000000`.
	shapes := map[int][2]float64{
		hasCrType:      {1140, 38},
		ofCodeRegion:   {29510, 1140},
		hasMetric:      {29438, 206197},
		hasMetricName:  {206197, 9},
		hasMetricValue: {206197, 180000},
		knows:          {100, 100},
	}
	// pred[i] is the predicate of the pattern with index i.
	var pred []int
	pat := func(base float64, s, p, o, predicate int) pattern {
		pred = append(pred, predicate)
		return pattern{pos: [3]int{s, p, o}, base: base, i: len(pred) - 1}
	}
	shape := func(i int) (float64, float64, bool) {
		s, ok := shapes[pred[i]]
		return s[0], s[1], ok
	}
	groupBy := []pattern{
		pat(29510, 0, c, 1, ofCodeRegion),
		pat(1140, 1, c, 2, hasCrType),
		pat(206197, 0, c, 3, hasMetric),
		pat(29438, 3, c, c, hasMetricName),
		pat(206197, 3, c, 4, hasMetricValue),
	}
	empty := pat(0, 5, c, 6, knows)
	varPred := pat(10, 5, 6, 0, 0)
	bound := func(vs ...int) []bool {
		b := make([]bool, 7)
		for _, v := range vs {
			b[v] = true
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		pats  []pattern
		seed  []bool
		first int // predicate of the first pattern
		ok    bool
	}{
		// Cheapest-first starts from hasCrType (1,140) and fans out to
		// 206,197 metrics; the 29,438 wtime metrics are the cheaper start.
		{"group-by-crtype", groupBy, bound(), hasMetricName, true},
		// With ?cr bound from outside, its type and summaries come first.
		{"seeded", groupBy, bound(1), hasCrType, true},
		// An empty pattern goes first: nothing to join.
		{"empty", append([]pattern{empty}, groupBy...), bound(), knows, true},
		// A variable predicate: no statistics, the caller falls back.
		{"variable predicate", []pattern{varPred, groupBy[0]}, bound(), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := statsOrder(tc.pats, tc.seed, shape)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if len(got) != len(tc.pats) {
				t.Fatalf("%d patterns ordered, want %d", len(got), len(tc.pats))
			}
			if p := pred[got[0].i]; p != tc.first {
				t.Fatalf("starts with predicate %d, want %d (order %v)", p, tc.first, got)
			}
			// Every later pattern shares a variable with the ones before it.
			b := append([]bool(nil), tc.seed...)
			for i, p := range got {
				conn := false
				for _, q := range p.pos {
					if q >= 0 && b[q] {
						conn = true
					}
				}
				if i > 0 && !conn && tc.name != "empty" {
					t.Fatalf("step %d (%v) is a cross product", i, p.pos)
				}
				for _, q := range p.pos {
					if q >= 0 {
						b[q] = true
					}
				}
			}
		})
	}
}

// TestLargeOrderMatchesExact: the heap-based planner picks the same
// order as the exact one on BGPs both can handle.
func TestLargeOrderMatchesExact(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{2, 5, 20, 60} {
		pats := make([]pattern, n)
		for i := range pats {
			// a chain ?v_i p_i ?v_{i+1} with distinct sizes
			pats[i] = pattern{pos: [3]int{i, -1, i + 1}, i: i, base: float64(1000 + (i*7919)%997)}
		}
		bound := make([]bool, n+1)
		want, err := orderPatterns(ctx, pats, bound, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := largeOrder(ctx, pats, bound)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i].pos != want[i].pos || got[i].est != want[i].est {
				t.Fatalf("n=%d: step %d: large order picked %v (est %g), exact %v (est %g)", n, i, got[i].pos, got[i].est, want[i].pos, want[i].est)
			}
		}
	}
}
