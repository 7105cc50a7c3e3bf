package native

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// indexKeys counts the keys of each of Pebble's six indexes.
func indexKeys(t *testing.T, s *Store) [numOrders]int {
	t.Helper()
	var n [numOrders]int
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if p := it.Key()[0]; p >= prefixIndex && p < prefixIndex+numOrders {
			n[p-prefixIndex]++
		}
	}
	return n
}

// storedVersion reads the format version key.
func storedVersion(t *testing.T, s *Store) uint64 {
	t.Helper()
	v, closer, err := s.db.Get(metaVersionKey)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	got, _ := binary.Uvarint(v)
	return got
}

// matchSorted collects the quads of p and sorts them.
func matchSorted(t *testing.T, s *Store, p kb.Pattern) []kb.Quad {
	t.Helper()
	got := matchAll(t, s, p)
	slices.SortFunc(got, cmpQuad)
	return got
}

// TestPartialLoad loads into an empty store, which leaves Pebble with the
// SPOG index alone, then sends reads to Pebble each way they can go there
// and checks every pattern shape (each answered by another index) against
// the loaded quads filtered by hand.
func TestPartialLoad(t *testing.T) {
	ctx := context.Background()
	tq := genTermQuads(0, 3000)
	for _, c := range []struct {
		name string
		// reopen: remove the side files (a kill between the ingest and
		// their rename) and reopen with these options; nil keeps the
		// store open.
		reopen *Options
		// budget: then set this read-side budget (0: leave it).
		budget int64
		// version: the stored format version at the end.
		version uint64
	}{
		{name: "open", version: formatVersionPartial},
		{name: "no side files, no budget", reopen: &Options{MemoryBudget: -1}, version: formatVersionLog},
		{name: "no side files, read-only", reopen: &Options{ReadOnly: true, MemoryBudget: -1}, version: formatVersionPartial},
		{name: "no side files, default budget", reopen: &Options{}, version: formatVersionPartial},
		{name: "past the budget", budget: 1, version: formatVersionLog},
		{name: "reopened past the budget", reopen: &Options{}, budget: 1, version: formatVersionLog},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			s, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			ids := bulkTerms(t, s, tq)
			if n := indexKeys(t, s); n != [numOrders]int{len(ids)} {
				t.Fatalf("after the load Pebble's indexes hold %v keys, want %d in SPOG alone", n, len(ids))
			}
			if got := storedVersion(t, s); got != formatVersionPartial {
				t.Fatalf("stored format version %d after the load, want %d", got, formatVersionPartial)
			}
			if c.reopen != nil {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				for k := range numOrders + 1 {
					if err := os.Remove(filepath.Join(dir, sideName(k, false))); err != nil {
						t.Fatal(err)
					}
				}
				if s, err = Open(ctx, dir, *c.reopen); err != nil {
					t.Fatal(err)
				}
			}
			if c.budget != 0 {
				if err := s.SetMemoryBudget(ctx, c.budget); err != nil {
					t.Fatal(err)
				}
			}
			q := ids[len(ids)/2]
			for _, p := range []kb.Pattern{{}, {S: q.S}, {P: q.P}, {O: q.O}, {G: q.G}, {P: q.P, O: q.O}, {S: q.S, G: q.G}, {O: q.O, G: q.G}} {
				var want []kb.Quad
				for _, x := range ids {
					if (p.S == 0 || p.S == x.S) && (p.P == 0 || p.P == x.P) && (p.O == 0 || p.O == x.O) && (p.G == 0 || p.G == x.G) {
						want = append(want, x)
					}
				}
				slices.SortFunc(want, cmpQuad)
				if got := matchSorted(t, s, p); !slices.Equal(got, want) {
					t.Errorf("Match(%v): %d quads, want %d", p, len(got), len(want))
				}
			}
			if got := storedVersion(t, s); got != c.version {
				t.Errorf("stored format version %d at the end, want %d", got, c.version)
			}
			if c.version == formatVersionLog {
				if n := indexKeys(t, s); n != [numOrders]int{len(ids), len(ids), len(ids), len(ids), len(ids), len(ids)} {
					t.Errorf("after reads went to Pebble its indexes hold %v keys, want %d in each", n, len(ids))
				}
			}
		})
	}
}
