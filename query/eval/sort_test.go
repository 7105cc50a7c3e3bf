package eval

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
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
		if err := sortOrdered(context.Background(), runtime.GOMAXPROCS(0), rows, before); err != nil {
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
	err := sortOrdered(ctx, runtime.GOMAXPROCS(0), rows, func(a, b *orderedRow) bool { return a.seq < b.seq })
	if !errors.Is(err, ErrQueryCanceled) {
		t.Fatalf("got %v, want %v", err, ErrQueryCanceled)
	}
}

// TestOrderTopTies runs ORDER BY … LIMIT over VALUES (whose rows arrive
// in the order written) where rows tie the worst kept row: the answer is
// the stable order's first rows, worked by hand. Keys that are variables
// let a tied later row be dropped by its IDs alone; an expression key
// (?k + 0) decodes every row, and both must agree.
func TestOrderTopTies(t *testing.T) {
	const values = `VALUES (?x ?k) { (1 5) (2 3) (3 5) (4 5) (5 1) (6 UNDEF) (7 3) (8 UNDEF) }`
	tests := []struct {
		order string
		limit int
		want  string
	}{
		{"DESC(?k)", 2, "1 3"},
		{"DESC(?k)", 3, "1 3 4"},
		{"DESC(?k)", 5, "1 3 4 2 7"},
		{"?k", 2, "6 8"}, // unbound sorts first
		{"?k", 4, "6 8 5 2"},
		{"?k DESC(?x)", 3, "8 6 5"},
		{"DESC(?k + 0)", 2, "1 3"},
		{"DESC(?k) ?x", 4, "1 3 4 2"},
	}
	ds := kbtest.NewMemory()
	for _, tc := range tests {
		text := fmt.Sprintf("SELECT ?x { %s } ORDER BY %s LIMIT %d", values, tc.order, tc.limit)
		got := valuesOf(t, ds, text)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: got %s, want %s", text, g, tc.want)
		}
	}
}

// valuesOf runs the SELECT text over ds (run) and returns its first
// variable's values, in answer order.
func valuesOf(t *testing.T, ds kb.Dataset, text string) []string {
	t.Helper()
	rows, err := run(t, ds, text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = r[0].Value
	}
	return got
}
