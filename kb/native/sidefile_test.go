package native

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
)

// The dataset suite on stores reopened from their side files.
func TestDatasetSideFiles(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset {
		ctx := context.Background()
		dir := filepath.Join(t.TempDir(), "db")
		s, err := Open(ctx, dir, Options{MemoryBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		bulkTerms(t, s, genTermQuads(0, 500))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, Options{MemoryBudget: -1}); err != nil {
			t.Fatal(err)
		}
		if !sideMapped(s) {
			t.Fatal("reopened store does not read its side files")
		}
		// The suite starts from an empty store: remove what was loaded,
		// which must also drop the side files.
		all, err := kb.Collect(s.Match(ctx, kb.Pattern{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(ctx, kb.Delta{Remove: all}); err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func bulkTerms(t *testing.T, s *Store, tq []kb.TermQuad) []kb.Quad {
	t.Helper()
	ctx := context.Background()
	ids, err := kb.InternQuads(ctx, s, tq)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(ctx, ids); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return ids
}

// sideMapped reports whether s reads from mapped side files.
func sideMapped(s *Store) bool {
	m := s.readSide()
	return m != nil && m.pin != nil
}

func sideFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for k := 0; k < numOrders; k++ {
		for _, tmp := range []bool{false, true} {
			if _, err := os.Stat(filepath.Join(dir, sideName(k, tmp))); err == nil {
				n++
			}
		}
	}
	return n
}

// agreesWithPebble checks every pattern shape around the probes: the read
// side must answer the quads and counts Pebble answers.
func agreesWithPebble(t *testing.T, s *Store, step string, probes []kb.Quad) {
	t.Helper()
	ctx := context.Background()
	mem := s.readSide()
	if mem == nil {
		t.Fatalf("%s: no read side", step)
	}
	for i, q := range probes {
		for mask := 0; mask < 16; mask++ {
			if mask == 0 && i > 0 {
				continue
			}
			var p kb.Pattern
			if mask&1 != 0 {
				p.S = q.S
			}
			if mask&2 != 0 {
				p.P = q.P
			}
			if mask&4 != 0 {
				p.O = q.O
			}
			if mask&8 != 0 {
				p.G = q.G
			}
			fromMem := collect(t, s, p)
			nMem, _ := s.Count(ctx, p, true)
			s.mem.Store(nil)
			fromPebble := collect(t, s, p)
			nPebble, _ := s.Count(ctx, p, true)
			s.mem.Store(mem)
			if !slices.Equal(fromMem, fromPebble) || nMem != nPebble {
				t.Fatalf("%s: pattern %v: read side %d quads (count %d), Pebble %d (count %d)",
					step, p, len(fromMem), nMem, len(fromPebble), nPebble)
			}
		}
	}
}

// termsAgreeWithPebble checks that the mapped dictionary decodes the
// probes' IDs (without Pebble) to the terms Pebble stores.
func termsAgreeWithPebble(t *testing.T, s *Store, probes []kb.Quad) {
	t.Helper()
	ctx := context.Background()
	if s.side == nil {
		t.Fatal("no mapped dictionary")
	}
	for _, q := range probes {
		for _, id := range []kb.ID{q.S, q.P, q.O, q.G} {
			got, ok := s.TermOf(id)
			if !ok {
				t.Fatalf("TermOf(%d): not in the mapped dictionary", id)
			}
			side := s.side
			s.side = nil
			want, err := s.Resolve(ctx, id)
			s.side = side
			if err != nil || got != want {
				t.Fatalf("ID %d: mapped dictionary %v, Pebble %v (%v)", id, got, want, err)
			}
			if back, ok, err := s.Lookup(ctx, want); err != nil || !ok || back != id {
				t.Fatalf("Lookup(%v) = %d %v %v, want %d", want, back, ok, err, id)
			}
			if again, err := s.Intern(ctx, []kb.Term{want}); err != nil || again[0] != id {
				t.Fatalf("Intern(%v) = %v %v, want %d", want, again, err, id)
			}
		}
	}
	unknown := kb.IRI("http://example.org/never-stored")
	if _, ok, err := s.Lookup(ctx, unknown); ok || err != nil {
		t.Fatalf("Lookup of a term never stored: %v %v", ok, err)
	}
	if _, ok := s.TermOf(kb.ID(len(s.side.off) + 5)); ok {
		t.Fatal("TermOf of an ID past the store answers")
	}
}

// TestSideFiles follows the side files through bulk loads, a write, a
// reopen and damaged or half-written sets.
func TestSideFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	opts := Options{MemoryBudget: -1} // as the CLI opens a store
	s, err := Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	reopen := func() {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, opts); err != nil {
			t.Fatal(err)
		}
	}
	first := bulkTerms(t, s, genTermQuads(0, 3000))
	if n := sideFiles(t, dir); n != numOrders {
		t.Fatalf("after a bulk load into an empty store: %d side files, want %d", n, numOrders)
	}
	reopen()
	if !sideMapped(s) {
		t.Fatal("reopened store does not map its side files")
	}
	agreesWithPebble(t, s, "mapped", everyNth(first, 97))
	termsAgreeWithPebble(t, s, everyNth(first, 13))

	// A small write goes to the delta log and leaves them in place; the
	// reopened store maps them and replays the log over them.
	extra, err := kb.InternQuads(ctx, s, genTermQuads(9000, 50))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Remove: first[:100], Add: extra}); err != nil {
		t.Fatal(err)
	}
	if n := sideFiles(t, dir); n != numOrders {
		t.Fatalf("after Apply: %d side files, want %d", n, numOrders)
	}
	reopen()
	if !sideMapped(s) {
		t.Fatal("store written through the delta log does not map its side files")
	}
	for _, q := range first[:100] {
		if n, _ := s.Count(ctx, kb.Pattern(q), true); n != 0 {
			t.Fatalf("removed quad %v is back after reopening", q)
		}
	}
	for _, q := range extra {
		if n, _ := s.Count(ctx, kb.Pattern(q), true); n != 1 {
			t.Fatalf("added quad %v counted %d after reopening", q, n)
		}
	}

	// A bulk load at least as large as the store writes the whole store.
	second := bulkTerms(t, s, genTermQuads(20000, 4000))
	if n := sideFiles(t, dir); n != numOrders {
		t.Fatalf("after a bulk load larger than the store: %d side files, want %d", n, numOrders)
	}
	reopen()
	if !sideMapped(s) {
		t.Fatal("reopened store does not map its side files")
	}
	agreesWithPebble(t, s, "mapped after Apply and bulk", append(append(everyNth(first, 89), everyNth(second, 83)...), extra...))
	termsAgreeWithPebble(t, s, append(everyNth(second, 7), extra...))
	for _, q := range first[:100] {
		if n, _ := s.Count(ctx, kb.Pattern(q), true); n != 0 {
			t.Fatalf("removed quad %v is back", q)
		}
	}

	// A set missing a file (a crash among the renames) is not used, and
	// is removed; so are temporary files of an unfinished load.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, sideName(3, false))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sideName(0, true)), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, opts); err != nil {
		t.Fatal(err)
	}
	if s.ReadsFromMemory() {
		t.Fatal("an incomplete set of side files was mapped")
	}
	if n := sideFiles(t, dir); n != 0 {
		t.Fatalf("an incomplete set left %d files", n)
	}

	// Files of another store (another build) are not used either.
	other := filepath.Join(t.TempDir(), "other")
	o, err := Open(ctx, other, opts)
	if err != nil {
		t.Fatal(err)
	}
	bulkTerms(t, o, genTermQuads(20000, 4000))
	o.Close()
	bulkTerms(t, s, genTermQuads(40000, 8000))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(other, sideName(2, false)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sideName(2, false)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, opts); err != nil {
		t.Fatal(err)
	}
	if s.ReadsFromMemory() {
		t.Fatal("a side file of another store was mapped")
	}
}

// TestSideFilesSurviveCLIWrite: a store opened as the CLI opens it (no
// read-side budget) that writes a little keeps its side files, and the
// next open reads them with the write in place. Before, the write dropped
// the side files, and every later open of the store read Pebble.
func TestSideFilesSurviveCLIWrite(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	loaded := bulkTerms(t, s, genTermQuads(0, 2000))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{MemoryBudget: -1}); err != nil {
		t.Fatal(err)
	}
	extra, err := kb.InternQuads(ctx, s, genTermQuads(5000, 10))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: extra, Remove: loaded[:3]}); err != nil {
		t.Fatal(err)
	}
	if n := sideFiles(t, dir); n != numOrders {
		t.Fatalf("after a small write: %d side files, want %d", n, numOrders)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{MemoryBudget: -1}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !sideMapped(s) {
		t.Fatal("reopened store does not read its side files")
	}
	want := append(append([]kb.Quad(nil), loaded[3:]...), extra...)
	got, err := kb.Collect(s.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("reopened store holds %d quads, want %d", len(got), len(want))
	}
	have := map[kb.Quad]bool{}
	for _, q := range got {
		have[q] = true
	}
	for _, q := range want {
		if !have[q] {
			t.Fatalf("quad %v missing after reopen", q)
		}
	}
}
