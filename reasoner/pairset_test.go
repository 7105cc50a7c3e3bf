package reasoner

import (
	"math/rand/v2"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestPairIndexAgainstMap adds and deletes random pairs, many with
// colliding subjects or objects, and checks every lookup against a Go map
// of the same pairs.
func TestPairIndexAgainstMap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ops   int
		space kb.ID // pairs are drawn from space × space
	}{
		{"dense", 20000, 40},
		{"sparse", 20000, 1 << 40},
		{"churn", 50000, 120},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.ops)))
			var x pairIndex
			var sc, oc []kb.ID
			want := map[[2]kb.ID]int32{}
			for i := 0; i < tc.ops; i++ {
				s, o := kb.ID(rng.Uint64N(uint64(tc.space))), kb.ID(rng.Uint64N(uint64(tc.space)))
				key := [2]kb.ID{s, o}
				r, had := want[key]
				if got := x.find(s, o, sc, oc); (got >= 0) != had || had && got != r {
					t.Fatalf("op %d: find(%d, %d) = %d, want %d (present %v)", i, s, o, got, r, had)
				}
				if had && rng.IntN(2) == 0 {
					x.del(s, o, r)
					delete(want, key)
					continue
				}
				if !had {
					r := int32(len(sc))
					sc, oc = append(sc, s), append(oc, o)
					x.add(s, o, r)
					want[key] = r
				}
			}
			if x.n != len(want) {
				t.Fatalf("index holds %d pairs, want %d", x.n, len(want))
			}
			for key, r := range want {
				if got := x.find(key[0], key[1], sc, oc); got != r {
					t.Fatalf("find(%d, %d) = %d, want %d", key[0], key[1], got, r)
				}
			}
			for r := range sc {
				if _, ok := want[[2]kb.ID{sc[r], oc[r]}]; !ok {
					if got := x.find(sc[r], oc[r], sc, oc); got >= 0 {
						t.Fatalf("deleted pair (%d, %d) found at row %d", sc[r], oc[r], got)
					}
				}
			}
		})
	}
}

// TestTripleSetAgainstMap adds random triples, with repeats, and checks
// membership against a Go map, across a clear.
func TestTripleSetAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	var x tripleSet
	for pass := 0; pass < 2; pass++ {
		want := map[[3]kb.ID]bool{}
		for i := 0; i < 30000; i++ {
			tr := [3]kb.ID{kb.ID(1 + rng.IntN(30)), kb.ID(1 + rng.IntN(5)), kb.ID(1 + rng.IntN(300))}
			if x.has(tr) != want[tr] {
				t.Fatalf("pass %d op %d: has(%v) = %v, want %v", pass, i, tr, !want[tr], want[tr])
			}
			if x.add(tr) == want[tr] {
				t.Fatalf("pass %d op %d: add(%v) reported new = %v", pass, i, tr, !want[tr])
			}
			want[tr] = true
		}
		if x.len() != len(want) {
			t.Fatalf("pass %d: %d triples, want %d", pass, x.len(), len(want))
		}
		x.clear()
		if x.has([3]kb.ID{1, 1, 1}) || x.len() != 0 {
			t.Fatalf("pass %d: set not empty after clear", pass)
		}
	}
}
