package native

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

func TestRadixSort32(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		maxID uint32
	}{
		{"empty", 0, 10},
		{"one", 1, 10},
		{"small ids", 5000, 50},
		{"16-bit boundary", 5000, 1 << 17},
		{"large ids", 20000, 1<<32 - 1},
		{"8-bit boundary", 3000, 1 << 9},
		{"24-bit boundary", 3000, 1 << 25},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys := make([]key32, tc.n)
			for i := range keys {
				for f := range keys[i] {
					keys[i][f] = 1 + rng.Uint32N(tc.maxID)
				}
				if f := i % 4; i%3 == 0 {
					keys[i][f] = 7 // constant-ish digits exercise the skip
				}
			}
			want := slices.Clone(keys)
			slices.SortFunc(want, func(a, b key32) int { return slices.Compare(a[:], b[:]) })
			for _, sort := range []struct {
				name string
				fn   func(keys, tmp []key32)
			}{{"radixSort32", radixSort32}, {"radixSort8", radixSort8}} {
				got := slices.Clone(keys)
				sort.fn(got, make([]key32, len(got)))
				if !slices.Equal(got, want) {
					t.Errorf("%s disagrees with slices.SortFunc on %d keys", sort.name, tc.n)
				}
			}
		})
	}
}

func TestRepermute32(t *testing.T) {
	q := kb.Quad{S: 1, P: 2, O: 3, G: 4}
	for from := 0; from < numOrders; from++ {
		for to := 0; to < numOrders; to++ {
			keys := toKey32(nil, []kb.Quad{q})
			repermute32(keys, 0, from)
			repermute32(keys, from, to)
			var want kb.Quad
			for j, pos := range orders[to] {
				set(&want, uint8(j), at(q, pos))
			}
			if got := keys[0].quad(); got != want {
				t.Errorf("%s -> %s: %v; want %v", orderNames[from], orderNames[to], got, want)
			}
		}
	}
}

// TestIngestWide runs the bulk path for IDs beyond 32 bits (normally only
// taken by huge dictionaries) on ordinary IDs.
func TestIngestWide(t *testing.T) {
	ctx := context.Background()
	s := OpenPebbleMemory()
	defer s.Close()
	ids, err := kb.InternQuads(ctx, s, genTermQuads(0, 2000))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: ids[:300]}); err != nil {
		t.Fatal(err)
	}
	s.wmu.Lock()
	err = s.ingestWide(ctx, append(slices.Clone(ids[200:]), ids[1500:1600]...))
	s.wmu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < numOrders; k++ {
		var p kb.Pattern
		// Bind the first position of index k to exercise that index.
		set((*kb.Quad)(&p), orders[k][0], at(ids[1234], orders[k][0]))
		if plans[boundMask(p)].order != k && k < 4 {
			t.Fatalf("pattern %v does not use index %s", p, orderNames[k])
		}
		got, err := kb.Collect(s.Match(ctx, p))
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, q := range ids {
			if p.Matches(q) {
				want++
			}
		}
		if len(got) != want {
			t.Errorf("index %s: %d matches; want %d", orderNames[k], len(got), want)
		}
	}
	if n, _ := s.Count(ctx, kb.Pattern{}, true); n != 2000 {
		t.Errorf("Count = %d; want 2000", n)
	}
}

// TestRadixSortParallel checks the two-halves sort and its merge against
// slices.SortFunc, on inputs long enough to take the parallel path and
// with many equal keys across the halves.
func TestRadixSortParallel(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		maxID uint32
	}{
		{"short, one goroutine", 1000, 100},
		{"threshold", parallelSortMin, 1 << 20},
		{"odd length", parallelSortMin + 1, 1 << 20},
		{"many duplicates", 3 * parallelSortMin, 4},
		{"large ids", 2*parallelSortMin + 3, 1<<32 - 1},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys := make([]key32, tc.n)
			for i := range keys {
				for f := range keys[i] {
					keys[i][f] = 1 + rng.Uint32N(tc.maxID)
				}
			}
			if tc.n > 2 {
				// Sorted descending in the first half: the merge must
				// interleave, not append.
				slices.SortFunc(keys[:tc.n/2], func(a, b key32) int { return slices.Compare(b[:], a[:]) })
			}
			want := slices.Clone(keys)
			slices.SortFunc(want, func(a, b key32) int { return slices.Compare(a[:], b[:]) })
			got := radixSortParallel(keys, make([]key32, len(keys)))
			if !slices.Equal(got, want) {
				t.Errorf("radixSortParallel disagrees with slices.SortFunc on %d keys", tc.n)
			}
		})
	}
}

func TestMergeKeys(t *testing.T) {
	tests := []struct {
		name string
		a, b []key32
		want []key32
	}{
		{"both empty", nil, nil, []key32{}},
		{"a empty", nil, []key32{{1}, {2}}, []key32{{1}, {2}}},
		{"b empty", []key32{{1}, {2}}, nil, []key32{{1}, {2}}},
		{"interleaved", []key32{{1}, {3}, {5}}, []key32{{2}, {4}, {6}, {7}}, []key32{{1}, {2}, {3}, {4}, {5}, {6}, {7}}},
		{"equal keys kept", []key32{{1, 2}, {4}}, []key32{{1, 2}, {1, 3}}, []key32{{1, 2}, {1, 2}, {1, 3}, {4}}},
		{"last field decides", []key32{{1, 1, 1, 2}}, []key32{{1, 1, 1, 1}}, []key32{{1, 1, 1, 1}, {1, 1, 1, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]key32, len(tc.a)+len(tc.b))
			mergeKeys(got, tc.a, tc.b)
			if !slices.Equal(got, tc.want) {
				t.Errorf("mergeKeys = %v, want %v", got, tc.want)
			}
		})
	}
}
