package native

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
)

func openDiskBudget(t testing.TB, budget int64) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "db"), Options{MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The dataset suite on the Pebble read path (read side off) and on a
// store that outgrows a tiny budget mid-test (read side dropped).
func TestDatasetDiskPebbleReads(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return openDiskBudget(t, -1) })
}

func TestDatasetDiskTinyBudget(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return openDiskBudget(t, 5*bytesPerQuad) })
}

// TestReadSideAgreesWithPebble writes through bulk loads and Apply, reopens,
// and checks after each step that every pattern shape answers the same
// quads from the read side as from Pebble.
func TestReadSideAgreesWithPebble(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if !s.ReadsFromMemory() {
		t.Fatal("a new store under the default budget has no read side")
	}
	intern := func(tq []kb.TermQuad) []kb.Quad {
		var terms []kb.Term
		for _, q := range tq {
			terms = append(terms, q.S, q.P, q.O, q.G)
		}
		ids, err := s.Intern(ctx, terms)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]kb.Quad, len(tq))
		for i := range out {
			out[i] = kb.Quad{S: ids[4*i], P: ids[4*i+1], O: ids[4*i+2], G: ids[4*i+3]}
		}
		return out
	}
	bulk := func(quads []kb.Quad) {
		w, err := s.BeginBulk(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(ctx, quads); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	first := intern(genTermQuads(0, 3000))
	second := intern(genTermQuads(2000, 3000)) // overlaps first
	// model is what the store must hold, kept by hand beside it.
	model := make(map[kb.Quad]bool)
	addModel := func(qs ...kb.Quad) {
		for _, q := range qs {
			model[q] = true
		}
	}
	removeModel := func(qs ...kb.Quad) {
		for _, q := range qs {
			delete(model, q)
		}
	}
	fromModel := func(p kb.Pattern) []kb.Quad {
		var out []kb.Quad
		for q := range model {
			if (p.S == 0 || p.S == q.S) && (p.P == 0 || p.P == q.P) && (p.O == 0 || p.O == q.O) && (p.G == 0 || p.G == q.G) {
				out = append(out, q)
			}
		}
		slices.SortFunc(out, cmpQuad)
		return out
	}
	third := intern(genTermQuads(9000, 50))
	steps := []struct {
		name string
		do   func()
	}{
		{"bulk into empty", func() { bulk(first); addModel(first...) }},
		{"bulk into non-empty", func() { bulk(second); addModel(second...) }},
		{"apply", func() {
			if err := s.Apply(ctx, kb.Delta{Remove: first[:500], Add: append(slices.Clone(first[100:200]), third...)}); err != nil {
				t.Fatal(err)
			}
			removeModel(first[:500]...)
			addModel(first[100:200]...)
			addModel(third...)
		}},
		{"reopen", func() {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = Open(ctx, dir, Options{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"apply after reopen", func() {
			if err := s.Apply(ctx, kb.Delta{Remove: second[:300]}); err != nil {
				t.Fatal(err)
			}
			removeModel(second[:300]...)
		}},
		{"bulk smaller than the store", func() {
			bulk(intern(genTermQuads(20000, 200)))
			addModel(intern(genTermQuads(20000, 200))...)
		}},
	}
	for _, st := range steps {
		st.do()
		mem := s.readSide() // built by the first read after a reopen
		if mem == nil {
			t.Fatalf("%s: read side dropped under the default budget", st.name)
		}
		probes := append(everyNth(first, 97), everyNth(second, 89)...)
		for _, q := range probes {
			for mask := 0; mask < 16; mask++ {
				p := kb.Pattern{}
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
				if mask == 0 && q != first[0] {
					continue // the full scan once is enough
				}
				fromMem := collect(t, s, p)
				nMem, _ := s.Count(ctx, p, true)
				if want := fromModel(p); !slices.Equal(fromMem, want) || nMem != int64(len(want)) {
					t.Fatalf("%s: pattern %v: read side %d quads (count %d), want %d", st.name, p, len(fromMem), nMem, len(want))
				}
			}
		}
		// Pebble's indexes hold only the base while the delta log is not
		// empty: fold it, then they must hold the same.
		s.wmu.Lock()
		err := s.foldLog(ctx)
		s.wmu.Unlock()
		if err != nil {
			t.Fatalf("%s: fold: %v", st.name, err)
		}
		if s.logOps != 0 {
			t.Fatalf("%s: %d quads left in the log after a fold", st.name, s.logOps)
		}
		mem = s.readSide()
		for _, q := range append(probes, first[0]) {
			for mask := 0; mask < 16; mask++ {
				p := kb.Pattern{}
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
				s.mem.Store(nil)
				fromPebble := collect(t, s, p)
				nPebble, _ := s.Count(ctx, p, true)
				s.mem.Store(mem)
				if want := fromModel(p); !slices.Equal(fromPebble, want) || nPebble != int64(len(want)) {
					t.Fatalf("%s: pattern %v after folding the log: Pebble %d quads (count %d), want %d", st.name, p, len(fromPebble), nPebble, len(want))
				}
			}
		}
	}
}

func collect(t *testing.T, s *Store, p kb.Pattern) []kb.Quad {
	t.Helper()
	var out []kb.Quad
	if err := s.ScanQuads(context.Background(), p, func(q kb.Quad) bool { out = append(out, q); return true }); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, cmpQuad)
	return out
}

// TestSetMemoryBudget drops and rebuilds the read side.
func TestSetMemoryBudget(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t)
	defer s.Close()
	tq := genTermQuads(0, 1000)
	if _, err := rdfio.LoadQuads(ctx, s, sliceNext(tq), rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	want := collect(t, s, kb.Pattern{})
	if err := s.SetMemoryBudget(ctx, 100*bytesPerQuad); err != nil || s.ReadsFromMemory() {
		t.Fatalf("budget of 100 quads for 1000: err %v, read side on %v", err, s.ReadsFromMemory())
	}
	if got := collect(t, s, kb.Pattern{}); !slices.Equal(got, want) {
		t.Fatalf("Pebble reads: %d quads, want %d", len(got), len(want))
	}
	if err := s.SetMemoryBudget(ctx, 0); err != nil || !s.ReadsFromMemory() {
		t.Fatalf("default budget: err %v, read side on %v", err, s.ReadsFromMemory())
	}
	if got := collect(t, s, kb.Pattern{}); !slices.Equal(got, want) {
		t.Fatalf("rebuilt read side: %d quads, want %d", len(got), len(want))
	}
}

func sliceNext(tq []kb.TermQuad) func() (kb.TermQuad, error) {
	i := 0
	return func() (kb.TermQuad, error) {
		if i == len(tq) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return tq[i-1], nil
	}
}

func everyNth(q []kb.Quad, n int) []kb.Quad {
	var out []kb.Quad
	for i := 0; i < len(q); i += n {
		out = append(out, q[i])
	}
	return out
}

// TestSetMemoryBudgetLoadsDictionary opens a store with no budget (as the
// CLI does), writes and interns terms, then turns the read side on: the
// dictionary must become complete (every ID decoded from memory) and keep
// the IDs, the terms interned since open and the stored-term count, also
// across a reopen.
func TestSetMemoryBudgetLoadsDictionary(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rdfio.LoadQuads(ctx, s, sliceNext(genTermQuads(0, 500)), rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{MemoryBudget: -1}); err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if s.dict.complete() {
		t.Fatal("a store opened with no budget loaded its dictionary")
	}
	// A term written after open, and one only interned.
	later := genTermQuads(500, 1)
	ids, err := s.Intern(ctx, []kb.Term{later[0].S, later[0].P, later[0].O, later[0].G, kb.IRI("http://example.org/only-interned")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: []kb.Quad{{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}}}); err != nil {
		t.Fatal(err)
	}
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := collect(t, s, kb.Pattern{})
	terms := map[kb.ID]kb.Term{}
	for _, q := range all {
		for _, id := range []kb.ID{q.S, q.P, q.O, q.G} {
			tm, err := s.Resolve(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			terms[id] = tm
		}
	}
	if err := s.SetMemoryBudget(ctx, 0); err != nil || !s.ReadsFromMemory() {
		t.Fatalf("default budget: err %v, read side on %v", err, s.ReadsFromMemory())
	}
	if !s.dict.complete() && s.side == nil {
		// (The mapped dictionary of side files decodes from memory too.)
		t.Fatal("SetMemoryBudget left the dictionary on disk")
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Terms != before.Terms || after.Quads != before.Quads {
		t.Fatalf("stats changed: terms %d -> %d, quads %d -> %d", before.Terms, after.Terms, before.Quads, after.Quads)
	}
	for id, want := range terms {
		got, ok := s.TermOf(id)
		if !ok || got != want {
			t.Fatalf("TermOf(%d) = %v %v, want %v", id, got, ok, want)
		}
		if back, ok, err := s.Lookup(ctx, want); err != nil || !ok || back != id {
			t.Fatalf("Lookup(%v) = %d %v %v, want %d", want, back, ok, err, id)
		}
	}
	if got, ok := s.TermOf(ids[4]); !ok || got != kb.IRI("http://example.org/only-interned") {
		t.Fatalf("the interned-only term: %v %v", got, ok)
	}
	if again, err := s.Intern(ctx, []kb.Term{kb.IRI("http://example.org/only-interned")}); err != nil || again[0] != ids[4] {
		t.Fatalf("re-intern: %v %v, want ID %d", again, err, ids[4])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	reopened, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if reopened.Terms != before.Terms {
		t.Fatalf("terms after reopen: %d, want %d", reopened.Terms, before.Terms)
	}
	for id, want := range terms {
		if got, ok := s.TermOf(id); !ok || got != want {
			t.Fatalf("after reopen TermOf(%d) = %v %v, want %v", id, got, ok, want)
		}
	}
}
