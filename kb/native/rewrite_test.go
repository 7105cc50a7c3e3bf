package native

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// rewriteQuads returns n quads with subjects of their own under name, over
// three predicates and two graphs.
func rewriteQuads(name string, n int) []kb.TermQuad {
	out := make([]kb.TermQuad, n)
	for i := range out {
		out[i] = kb.TermQuad{
			S: kb.IRI(fmt.Sprintf("http://example.org/%s/s%d", name, i)),
			P: kb.IRI(fmt.Sprintf("http://example.org/p%d", i%3)),
			O: kb.IRI(fmt.Sprintf("http://example.org/o%d", i%101)),
			G: kb.IRI(fmt.Sprintf("http://example.org/g%d", i%2)),
		}
	}
	return out
}

// TestRewriteBottomLevel writes a small Apply (in the memtable, as the
// ontology is before a load), then loads more than the store holds, then
// less. The larger load must replace the store with tables in the bottom
// level and no compaction; the smaller one takes the plain ingest. After
// each step and after reopening, every quad written is there, the counts
// agree, and every term reads back.
func TestRewriteBottomLevel(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	small := rewriteQuads("small", 500)
	big := rewriteQuads("big", 20000)
	later := rewriteQuads("later", 3000)
	ids := internAll(t, s, small)
	if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	bulk := func(tq []kb.TermQuad) {
		t.Helper()
		ids := internAll(t, s, tq)
		ids = append(ids, ids[:10]...) // repeats are stored once
		bw, err := s.BeginBulk(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := bw.Add(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if err := bw.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, s *Store, want [][]kb.TermQuad) {
		t.Helper()
		total := 0
		for _, tqs := range want {
			for _, tq := range tqs {
				var q kb.Quad
				for i, term := range []kb.Term{tq.S, tq.P, tq.O, tq.G} {
					id, found, err := s.Lookup(ctx, term)
					if err != nil || !found {
						t.Fatalf("%s: term %v: found %v, %v", step, term, found, err)
					}
					set(&q, uint8(i), id)
				}
				got, err := kb.Collect(s.Match(ctx, kb.Pattern(q)))
				if err != nil || len(got) != 1 {
					t.Fatalf("%s: quad %v: %d matches, %v", step, tq, len(got), err)
				}
				back, err := s.Resolve(ctx, q.S)
				if err != nil || back != tq.S {
					t.Fatalf("%s: Resolve(%d) = %v, %v; want %v", step, q.S, back, err, tq.S)
				}
			}
			total += len(tqs)
		}
		st, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Quads != int64(total) {
			t.Errorf("%s: Stats.Quads = %d, want %d", step, st.Quads, total)
		}
		for p, n := range st.ByPredicate {
			got, err := kb.Collect(s.Match(ctx, kb.Pattern{P: p}))
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(got)) != n {
				t.Errorf("%s: predicate %d: counter says %d, the index holds %d", step, p, n, len(got))
			}
		}
	}

	bulk(big)
	// The memtable overlapped the load, so Pebble queued the ingest
	// behind it; a flush places both.
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	m := s.db.Metrics()
	for level := 0; level < 6; level++ {
		if n := m.Levels[level].TablesCount; n != 0 {
			t.Errorf("after the rewrite: L%d holds %d tables, want all in L6", level, n)
		}
	}
	if m.Levels[6].TablesCount == 0 {
		t.Error("after the rewrite: L6 is empty")
	}
	if m.Compact.Count != 0 {
		t.Errorf("after the rewrite: %d compactions, want 0", m.Compact.Count)
	}
	check("after the rewrite", s, [][]kb.TermQuad{small, big})

	bulk(later) // smaller than the store: a plain ingest
	check("after the smaller load", s, [][]kb.TermQuad{small, big, later})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("after reopening", s, [][]kb.TermQuad{small, big, later})
	v, closer, err := s.db.Get(metaVersionKey)
	if err != nil {
		t.Fatalf("the format version key after the rewrite: %v", err)
	}
	closer.Close()
	if len(v) == 0 {
		t.Error("the format version is empty after the rewrite")
	}
}
