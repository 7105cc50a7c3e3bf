package eval

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestProbeCounts checks probeCounts (and so mergeCounts for every kind
// but ∪) against the definitions of countJoinNode evaluated over maps:
// per key, a·b (⋈), a·max(b, 1) (⟕), a if b > 0 (EXISTS), a if b = 0
// (NOT EXISTS, MINUS), keys with a zero count left out. The lists are
// of equal and very unequal lengths, disjoint, nested and overlapping,
// either side the shorter, so both the walk over a and the walk over
// the shorter side of ⋈ and EXISTS gallop over the longer one.
func TestProbeCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	list := func(n int, lo, hi kb.ID) keyCounts {
		seen := map[kb.ID]bool{}
		var kc keyCounts
		for len(kc.ids) < n {
			id := lo + kb.ID(rng.Uint64N(uint64(hi-lo)))
			if !seen[id] {
				seen[id] = true
				kc.ids = append(kc.ids, id)
			}
		}
		slices.Sort(kc.ids)
		for range kc.ids {
			kc.n = append(kc.n, 1+rng.Int64N(4))
		}
		return kc
	}
	cases := []struct {
		name string
		a, b keyCounts
	}{
		{"empty a", keyCounts{}, list(10, 1, 100)},
		{"empty b", list(10, 1, 100), keyCounts{}},
		{"equal lengths, overlapping", list(500, 1, 1000), list(500, 1, 1000)},
		{"short a, long b", list(20, 1, 100000), list(30000, 1, 100000)},
		{"long a, short b", list(30000, 1, 100000), list(20, 1, 100000)},
		{"disjoint, a below", list(100, 1, 1000), list(100, 1000, 2000)},
		{"disjoint, a above", list(100, 1000, 2000), list(100, 1, 1000)},
		{"b inside a's range", list(1000, 1, 10000), list(50, 4000, 5000)},
	}
	want := func(kind cjKind, a, b keyCounts) keyCounts {
		bm := map[kb.ID]int64{}
		for i, id := range b.ids {
			bm[id] = b.n[i]
		}
		var out keyCounts
		for i, id := range a.ids {
			ca, cb := a.n[i], bm[id]
			var c int64
			switch kind {
			case cjJoin:
				c = ca * cb
			case cjLeft:
				c = ca * max(cb, 1)
			case cjSemi:
				if cb > 0 {
					c = ca
				}
			case cjAnti:
				if cb == 0 {
					c = ca
				}
			}
			if c > 0 {
				out.ids = append(out.ids, id)
				out.n = append(out.n, c)
			}
		}
		return out
	}
	kinds := map[cjKind]string{cjJoin: "join", cjLeft: "optional", cjSemi: "exists", cjAnti: "minus"}
	for _, tc := range cases {
		for kind, kname := range kinds {
			got, err := mergeCounts(kind, tc.a, tc.b)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, kname, err)
			}
			w := want(kind, tc.a, tc.b)
			if !slices.Equal(got.ids, w.ids) || !slices.Equal(got.n, w.n) {
				t.Errorf("%s %s: got %d keys %v…, want %d keys %v…", tc.name, kname,
					len(got.ids), got.ids[:min(5, len(got.ids))], len(w.ids), w.ids[:min(5, len(w.ids))])
			}
		}
	}
}
