package eval

import (
	"context"
	"errors"
	"math/rand"
	"sort"
	"testing"
)

// TestSortOrdered checks the chunked parallel sort of ORDER BY against
// the standard library's stable sort of the same keys (the oracle), with
// many ties, on sizes around the run length.
func TestSortOrdered(t *testing.T) {
	for _, n := range []int{0, 1, 7, sortRun, sortRun + 1, 2 * sortRun, 5*sortRun + 17} {
		rng := rand.New(rand.NewSource(int64(n)))
		rows := make([]*orderedRow, n)
		keys := make([]int, n) // key per seq
		for i := range rows {
			keys[i] = rng.Intn(100) // ties everywhere
			rows[i] = &orderedRow{seq: int64(i)}
		}
		rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		before := func(a, b *orderedRow) bool {
			if keys[a.seq] != keys[b.seq] {
				return keys[a.seq] < keys[b.seq]
			}
			return a.seq < b.seq
		}
		// The oracle: seqs stably sorted by key alone.
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(i, j int) bool { return keys[want[i]] < keys[want[j]] })
		if err := sortOrdered(context.Background(), rows, before); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i, r := range rows {
			if int(r.seq) != want[i] {
				t.Fatalf("n=%d: row %d has seq %d (key %d), want seq %d (key %d)", n, i, r.seq, keys[r.seq], want[i], keys[want[i]])
			}
		}
	}
}

// TestSortOrderedCanceled: a sort of a canceled query stops with the
// query's cancellation error instead of running to its end.
func TestSortOrderedCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rows := make([]*orderedRow, 4*sortRun)
	for i := range rows {
		rows[i] = &orderedRow{seq: int64(len(rows) - i)}
	}
	err := sortOrdered(ctx, rows, func(a, b *orderedRow) bool { return a.seq < b.seq })
	if !errors.Is(err, ErrQueryCanceled) {
		t.Fatalf("got %v, want %v", err, ErrQueryCanceled)
	}
}
