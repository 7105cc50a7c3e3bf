package native

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestDeltaLog follows writes smaller than the store into the delta log:
// the side files of the bulk load stay (they are the base), Pebble's
// index keyspaces do not change, a reopen maps the side files and replays
// the log, and a fold writes the whole store as a new base without a log;
// with the writes' extra goroutines unbounded, bounded at one, and none
// (SetWriteWorkers: every part on the writing goroutine).
func TestDeltaLog(t *testing.T) {
	for _, workers := range []int{-1, 1, 0} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			SetWriteWorkers(workers)
			defer SetWriteWorkers(-1)
			testDeltaLog(t)
		})
	}
}

func testDeltaLog(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	reopen := func() {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	first := bulkTerms(t, s, genTermQuads(0, 3000))
	if n := sideFiles(t, dir); n != numOrders {
		t.Fatalf("after a bulk load into an empty store: %d side files, want %d", n, numOrders)
	}
	reopen()
	spogKeys := func() int {
		n := 0
		it, err := s.db.NewIter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for ok := it.SeekGE([]byte{prefixIndex}); ok && it.Key()[0] == prefixIndex; ok = it.Next() {
			n++
		}
		return n
	}
	if n := spogKeys(); n != len(first) {
		t.Fatalf("SPOG index holds %d keys, want %d", n, len(first))
	}
	extra, err := kb.InternQuads(ctx, s, genTermQuads(9000, 50))
	if err != nil {
		t.Fatal(err)
	}
	// Removes 100, puts back 10 of them, adds 50 new quads.
	if err := s.Apply(ctx, kb.Delta{Remove: first[:100]}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: append(slices.Clone(first[:10]), extra...)}); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(first[:10]), first[100:]...)
	want = append(want, extra...)
	removed := first[10:100]
	check := func(step string) {
		t.Helper()
		for _, q := range want {
			if n, _ := s.Count(ctx, kb.Pattern(q), true); n != 1 {
				t.Fatalf("%s: stored quad %v: count %d", step, q, n)
			}
		}
		for _, q := range removed {
			if n, _ := s.Count(ctx, kb.Pattern(q), true); n != 0 {
				t.Fatalf("%s: removed quad %v is there", step, q)
			}
		}
		if got := collect(t, s, kb.Pattern{}); len(got) != len(want) {
			t.Fatalf("%s: %d quads, want %d", step, len(got), len(want))
		}
		if st, _ := s.Stats(ctx); st.Quads != int64(len(want)) {
			t.Fatalf("%s: Stats.Quads = %d, want %d", step, st.Quads, len(want))
		}
	}
	check("after two writes")
	if n := sideFiles(t, dir); n != numOrders {
		t.Fatalf("after writes to the log: %d side files, want %d", n, numOrders)
	}
	if n := spogKeys(); n != len(first) {
		t.Fatalf("writes to the log changed the SPOG index: %d keys, want %d", n, len(first))
	}
	if s.logOps != 100+10+int64(len(extra)) {
		t.Fatalf("log holds %d quads, want %d", s.logOps, 100+10+len(extra))
	}
	reopen()
	if !sideMapped(s) || s.logOps != 100+10+int64(len(extra)) {
		t.Fatalf("reopened: side files mapped %v, log %d quads", sideMapped(s), s.logOps)
	}
	check("reopened over the log")
	for i, tq := range genTermQuads(9000, 50) {
		for j, id := range []kb.ID{extra[i].S, extra[i].P, extra[i].O, extra[i].G} {
			term := []kb.Term{tq.S, tq.P, tq.O, tq.G}[j]
			if got, err := s.Resolve(ctx, id); err != nil || got != term {
				t.Fatalf("Resolve(%d) = %v %v, want %v", id, got, err, term)
			}
			if got, ok, err := s.Lookup(ctx, term); err != nil || !ok || got != id {
				t.Fatalf("Lookup(%v) = %d %v %v, want %d", term, got, ok, err, id)
			}
		}
	}
	// A term stored with the log (not in the mapped dictionary) is found,
	// and interning it again gives the same ID.
	ids, err := s.Intern(ctx, []kb.Term{genTermQuads(9000, 1)[0].S})
	if err != nil || ids[0] != extra[0].S {
		t.Fatalf("Intern of a term stored with the log: %v %v, want %d", ids, err, extra[0].S)
	}

	s.wmu.Lock()
	err = s.foldLog(ctx)
	s.wmu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	check("folded")
	if n := spogKeys(); n != len(want) {
		t.Fatalf("after the fold the SPOG index holds %d keys, want %d", n, len(want))
	}
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	if it.SeekGE([]byte{prefixLog}) && it.Key()[0] == prefixLog {
		t.Fatal("log keys left after the fold")
	}
	it.Close()
	reopen()
	if !sideMapped(s) || s.logOps != 0 {
		t.Fatalf("reopened after the fold: side files mapped %v, log %d quads", sideMapped(s), s.logOps)
	}
	check("reopened after the fold")
}

// TestDeltaLogFormat checks that a store with a log is refused by a
// reader of the first format and opens when no log was ever written.
func TestDeltaLogFormat(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.format != formatVersion {
		t.Fatalf("format %d of an empty store, want %d", s.format, formatVersion)
	}
	// A bulk load into an empty store writes only the SPOG index
	// (partial.go), which older readers must refuse.
	bulkTerms(t, s, genTermQuads(0, 300))
	if got := storedVersion(t, s); got != formatVersionPartial || s.format != formatVersionLog {
		t.Fatalf("after a bulk load into an empty store: stored version %d, format %d; want %d, %d", got, s.format, formatVersionPartial, formatVersionLog)
	}
	if err := s.SetMemoryBudget(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(matchAll(t, s, kb.Pattern{})); n != 300 {
		t.Fatalf("%d quads read from Pebble, want 300", n)
	}
	if got := storedVersion(t, s); got != formatVersionLog {
		t.Fatalf("stored version %d once reads went to Pebble, want %d", got, formatVersionLog)
	}
	if err := s.SetMemoryBudget(ctx, 0); err != nil {
		t.Fatal(err)
	}
	more, err := kb.InternQuads(ctx, s, genTermQuads(1000, 10))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: more}); err != nil {
		t.Fatal(err)
	}
	if s.format != formatVersionLog {
		t.Fatalf("format %d after a write to the log, want %d", s.format, formatVersionLog)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.format != formatVersionLog {
		t.Fatalf("reopened: format %d, want %d", s.format, formatVersionLog)
	}
}
