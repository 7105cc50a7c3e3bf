package eval

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
)

// TestOrderSelect runs ORDER BY … LIMIT … OFFSET with large limits (the
// buffered selection of runSelect, cut several times on the way) and small
// ones (the heap) over VALUES rows with many ties and unbound keys, and
// checks each answer against a stable sort done here: unbound first, then
// integers by value, equal keys in the order the rows were written.
func TestOrderSelect(t *testing.T) {
	const n = 6000
	rng := rand.New(rand.NewSource(14))
	keys := make([]int, n) // -1: unbound
	var b strings.Builder
	b.WriteString("VALUES (?x ?k) {")
	for i := range keys {
		keys[i] = rng.Intn(700) - 1
		if keys[i] < 0 {
			fmt.Fprintf(&b, " (%d UNDEF)", i)
		} else {
			fmt.Fprintf(&b, " (%d %d)", i, keys[i])
		}
	}
	b.WriteString(" }")
	values := b.String()
	ascending := make([]int, n)
	for i := range ascending {
		ascending[i] = i
	}
	sort.SliceStable(ascending, func(i, j int) bool { return keys[ascending[i]] < keys[ascending[j]] })
	descending := make([]int, n)
	for i := range descending {
		descending[i] = i
	}
	sort.SliceStable(descending, func(i, j int) bool { return keys[descending[i]] > keys[descending[j]] })
	ds := kbtest.NewMemory()
	for _, tc := range []struct {
		order         string
		want          []int
		limit, offset int
	}{
		{"?k", ascending, 1, 3000},
		{"?k", ascending, 10, 2990},
		{"?k", ascending, 1024, 0},
		{"?k", ascending, 1500, 100},
		{"?k", ascending, 7, 1017},
		{"?k", ascending, 50, 5990}, // runs past the end
		{"?k", ascending, 2, 900},   // the heap
		{"DESC(?k)", descending, 1, 4500},
		{"DESC(?k)", descending, 2500, 0},
		{"(?k + 0)", ascending, 3, 2000}, // an expression key: no early drop by IDs
		{"DESC(?k + 0)", descending, 1200, 1},
	} {
		text := fmt.Sprintf("SELECT ?x { %s } ORDER BY %s LIMIT %d OFFSET %d", values, tc.order, tc.limit, tc.offset)
		got := valuesOf(t, ds, text)
		var want []string
		for i := tc.offset; i < min(tc.offset+tc.limit, n); i++ {
			want = append(want, fmt.Sprint(tc.want[i]))
		}
		if g, w := strings.Join(got, " "), strings.Join(want, " "); g != w {
			t.Errorf("ORDER BY %s LIMIT %d OFFSET %d: got %.200s, want %.200s", tc.order, tc.limit, tc.offset, g, w)
		}
	}
}

// TestSelectOrdered checks selectOrdered against a sort: after selecting
// rank k, rows[k] is the sorted k-th row and the rows on each side are the
// sorted slices' rows (as sets), for inputs sorted, reversed, constant
// keys and random.
func TestSelectOrdered(t *testing.T) {
	before := func(a, b *orderedRow) bool {
		if a.r[0] != b.r[0] {
			return a.r[0] < b.r[0]
		}
		return a.seq < b.seq
	}
	rng := rand.New(rand.NewSource(3))
	for _, shape := range []string{"sorted", "reversed", "constant", "random", "organ"} {
		for _, n := range []int{1, 2, 3, 10, 1000, 5001} {
			rows := make([]*orderedRow, n)
			for i := range rows {
				var v uint64
				switch shape {
				case "sorted":
					v = uint64(i)
				case "reversed":
					v = uint64(n - i)
				case "random":
					v = uint64(rng.Intn(50))
				case "organ":
					v = uint64(min(i, n-i))
				}
				rows[i] = &orderedRow{r: row{kb.ID(v)}, seq: int64(i)}
			}
			sorted := append([]*orderedRow(nil), rows...)
			sort.Slice(sorted, func(i, j int) bool { return before(sorted[i], sorted[j]) })
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				got := append([]*orderedRow(nil), rows...)
				if err := selectOrdered(context.Background(), got, k, before); err != nil {
					t.Fatal(err)
				}
				if got[k] != sorted[k] {
					t.Fatalf("%s n=%d k=%d: rows[k] seq %d, want %d", shape, n, k, got[k].seq, sorted[k].seq)
				}
				left := map[*orderedRow]bool{}
				for _, r := range sorted[:k] {
					left[r] = true
				}
				for _, r := range got[:k] {
					if !left[r] {
						t.Fatalf("%s n=%d k=%d: seq %d selected before rank k, sorts after it", shape, n, k, r.seq)
					}
				}
			}
		}
	}
}
