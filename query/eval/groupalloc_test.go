package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestGroupFoldAllocations: a GROUP BY over a join folds each row as the
// join produces it, serially and on workers, so its allocations grow
// with its groups, not its rows. 20,000 rows in 3 groups: a copy of
// each row (or a key string per row) would be 20,000 allocations or
// more; parsing, planning and the few groups stay far below 5,000. The
// answer (3 groups of 6,667 / 6,667 / 6,666 rows, SUM of ?v = i over
// i ≡ group mod 3) is checked by hand so that a fast wrong fold fails.
func TestGroupFoldAllocations(t *testing.T) {
	const rows = 20000
	var nt strings.Builder
	for i := range rows {
		fmt.Fprintf(&nt, "<http://e/x%d> <http://e/g> <http://e/g%d> .\n", i, i%3)
		fmt.Fprintf(&nt, "<http://e/x%d> <http://e/v> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", i, i)
		fmt.Fprintf(&nt, "<http://e/x%d> <http://e/t> <http://e/T> .\n", i)
	}
	ds := native.OpenMemory()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(nt.String()), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
		t.Fatal(err)
	}
	q, err := syntax.ParseQuery(`SELECT ?g (COUNT(?v) AS ?n) (SUM(?v) AS ?s) (MAX(?v) AS ?m)
{ ?x <http://e/t> <http://e/T> . ?x <http://e/g> ?g . ?x <http://e/v> ?v } GROUP BY ?g ORDER BY ?g`, syntax.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Sums of i < 20000 with i mod 3 = r: r=0: 3·(0+…+6666) = 66,663,333;
	// r=1: that + 6,667 = 66,670,000; r=2: 3·(0+…+6665) + 2·6,666 = 66,656,667.
	want := "g0 6667 66663333 19998|g1 6667 66670000 19999|g2 6666 66656667 19997"
	defer func(min float64, w, on bool) { groupJoinMin, groupJoinWorkers, groupJoinOn = min, 0, on }(groupJoinMin, false, groupJoinOn)
	for _, workers := range []int{1, 3} {
		groupJoinOn, groupJoinMin, groupJoinWorkers = workers > 1, 0, workers
		before := groupJoinRuns.Load()
		var got string
		allocs := testing.AllocsPerRun(3, func() {
			res, err := Query(context.Background(), ds, q, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for r, ok := res.Next(); ok; r, ok = res.Next() {
				out = append(out, strings.TrimPrefix(r[0].Value, "http://e/")+" "+r[1].Value+" "+r[2].Value+" "+r[3].Value)
			}
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			got = strings.Join(out, "|")
		})
		if got != want {
			t.Errorf("workers %d: got %q, want %q", workers, got, want)
		}
		if ran := groupJoinRuns.Load() > before; ran != (workers > 1) {
			t.Errorf("workers %d: the join ran on workers: %v", workers, ran)
		}
		if allocs > 5000 {
			t.Errorf("workers %d: %.0f allocations for %d rows in 3 groups", workers, allocs, rows)
		} else {
			t.Logf("workers %d: %.0f allocations", workers, allocs)
		}
	}
}
