package native

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByBytes checks sortByBytes against a comparison sort of whole
// keys on keys that share long prefixes, end inside or exactly at an
// eight-byte step, contain zero bytes, and repeat.
func TestSortByBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func(i int) []byte
	}{
		{"iris", func(i int) []byte {
			return fmt.Appendf(nil, "\x01http://perfkb.example/exp/%d/region/%d", rng.IntN(50), rng.IntN(5000))
		}},
		{"short and zero bytes", func(i int) []byte {
			b := make([]byte, rng.IntN(20))
			for j := range b {
				b[j] = byte(rng.IntN(3))
			}
			return b
		}},
		{"eight-byte boundaries", func(i int) []byte {
			return bytes.Repeat([]byte{'a'}, 8*rng.IntN(4)+rng.IntN(2))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := make([][]byte, 20000)
			for i := range keys {
				keys[i] = tc.gen(i)
			}
			order := make([]uint32, len(keys))
			for i := range order {
				order[i] = uint32(i)
			}
			sortByBytes(order, func(i uint32) []byte { return keys[i] })
			want := slices.Clone(keys)
			slices.SortFunc(want, bytes.Compare)
			for j, i := range order {
				if !bytes.Equal(keys[i], want[j]) {
					t.Fatalf("position %d: %q, want %q", j, keys[i], want[j])
				}
			}
			seen := make([]bool, len(keys))
			for _, i := range order {
				if seen[i] {
					t.Fatalf("index %d twice", i)
				}
				seen[i] = true
			}
		})
	}
}
