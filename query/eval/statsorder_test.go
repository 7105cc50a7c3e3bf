package eval

import (
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// fakeShapes is a PredicateStats over a fixed table.
type fakeShapes map[kb.ID][2]int64

func (f fakeShapes) PredicateDistinct(p kb.ID) (int64, int64, bool) {
	s, ok := f[p]
	return s[0], s[1], ok
}

// TestStatsOrder checks the start and order statsOrder picks from
// per-predicate statistics.
func TestStatsOrder(t *testing.T) {
	const (
		hasCrType kb.ID = iota + 1
		ofCodeRegion
		hasMetric
		hasMetricName
		hasMetricValue
		wtime
		knows
	)
	// Slots: 0 ?rs, 1 ?cr, 2 ?crtype, 3 ?m, 4 ?v, 5 ?x, 6 ?y
	v := func(slot int) tpos { return tpos{slot: slot} }
	c := func(id kb.ID) tpos { return tpos{id: id, slot: -1} }
	pat := func(base float64, s, p, o tpos) bgpPattern {
		return bgpPattern{pos: [3]tpos{s, p, o}, base: base}
	}
	// The counts of `perfkb sample --triples 1000000`.
	shapes := fakeShapes{
		hasCrType:      {1140, 38},
		ofCodeRegion:   {29510, 1140},
		hasMetric:      {29438, 206197},
		hasMetricName:  {206197, 9},
		hasMetricValue: {206197, 180000},
		knows:          {100, 100},
	}
	groupBy := []bgpPattern{
		pat(29510, v(0), c(ofCodeRegion), v(1)),
		pat(1140, v(1), c(hasCrType), v(2)),
		pat(206197, v(0), c(hasMetric), v(3)),
		pat(29438, v(3), c(hasMetricName), c(wtime)),
		pat(206197, v(3), c(hasMetricValue), v(4)),
	}
	for _, tc := range []struct {
		name  string
		pats  []bgpPattern
		seed  varSet
		first kb.ID // predicate of the first pattern
		ok    bool
	}{
		// Cheapest-first starts from hasCrType (1,140) and fans out to
		// 206,197 metrics; the 29,438 wtime metrics are the cheaper start.
		{"group-by-crtype", groupBy, varSet{}, hasMetricName, true},
		// With ?cr bound from outside, its type and summaries come first.
		{"seeded", groupBy, varSet{1: true}, hasCrType, true},
		// An empty pattern goes first: nothing to join.
		{"empty", append([]bgpPattern{pat(0, v(5), c(knows), v(6))}, groupBy...), varSet{}, knows, true},
		// A variable predicate: no statistics, the caller falls back.
		{"variable predicate", []bgpPattern{pat(10, v(5), v(6), v(0)), groupBy[0]}, varSet{}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := statsOrder(tc.pats, tc.seed, shapes)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if len(got) != len(tc.pats) {
				t.Fatalf("%d patterns ordered, want %d", len(got), len(tc.pats))
			}
			if p := got[0].pos[1].id; p != tc.first {
				t.Fatalf("starts with predicate %d, want %d (order %v)", p, tc.first, got)
			}
			// Every later pattern shares a variable with the ones before it.
			bound := map[int]bool{}
			for v := range tc.seed {
				bound[v] = true
			}
			for i, p := range got {
				conn := false
				for _, q := range p.pos {
					if q.slot >= 0 && bound[q.slot] {
						conn = true
					}
				}
				if i > 0 && !conn && tc.name != "empty" {
					t.Fatalf("step %d (%v) is a cross product", i, p.pos)
				}
				for _, q := range p.pos {
					if q.slot >= 0 {
						bound[q.slot] = true
					}
				}
			}
		})
	}
}
