package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestGroupConcatStopsBeforeJoining reproduces the hardening issue's item
// 18: a GROUP_CONCAT stopped at its budget had already built the joined
// string, so the process held about twice the budget. 4,096 values of
// 1 KiB are 4 MiB held as the group's values; their concatenation is 4 MiB
// more. Under a 6 MiB budget the values fit and the concatenation does
// not, so the query must fail with a query-memory LimitError before it
// builds the concatenation: having allocated less than its 4 MiB (the
// test store hands out its own strings, so the values cost no
// allocation).
func TestGroupConcatStopsBeforeJoining(t *testing.T) {
	const n, size = 4096, 1 << 10
	var quads []kb.TermQuad
	for i := range n {
		quads = append(quads, kb.TermQuad{S: kb.IRI(fmt.Sprintf("http://ex/s%d", i)), P: kb.IRI("http://ex/p"),
			O: kb.String(fmt.Sprintf("%04d", i) + strings.Repeat("x", size-4)), G: kb.DefaultGraph})
	}
	ds := memoryWith(t, quads...)
	q, err := syntax.ParseQuery(`SELECT (GROUP_CONCAT(?o) AS ?c) WHERE { ?s <http://ex/p> ?o }`, syntax.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(budget int64) (int, error, uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Query(context.Background(), ds, q, Options{QueryMemory: budget})
		got := 0
		if err == nil {
			for r, ok := res.Next(); ok; r, ok = res.Next() {
				got = len(r[0].Value)
			}
			err = res.Err()
			res.Close()
		}
		runtime.ReadMemStats(&after)
		return got, err, after.TotalAlloc - before.TotalAlloc
	}
	got, err, _ := run(64 << 20)
	if err != nil || got != n*size+n-1 {
		t.Fatalf("under 64 MiB: length %d, error %v; want %d", got, err, n*size+n-1)
	}
	_, err, alloc := run(6 << 20)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitQueryMemory {
		t.Fatalf("under 6 MiB: error %v, want a query-memory LimitError", err)
	}
	if limit := uint64(n * size); alloc >= limit {
		t.Errorf("under 6 MiB the query allocated %d KiB before failing, want under %d KiB (it built the concatenation)", alloc>>10, limit>>10)
	}
}
