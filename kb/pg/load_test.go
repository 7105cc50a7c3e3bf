package pg_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// termQuadSet resolves every quad of ds.
func termQuadSet(t *testing.T, ds kb.Dataset) map[kb.TermQuad]bool {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[kb.TermQuad]bool, len(quads))
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatalf("ResolveQuad(%+v): %v", q, err)
		}
		out[tq] = true
	}
	return out
}

// TestLargeLoads runs the bulk paths that only loads larger than the
// kbtest fixtures take (indexes dropped and rebuilt, terms copied straight
// into the dictionary, quads deduplicated before the copy) and checks each
// load's result against the reference store fed the same loads.
func TestLargeLoads(t *testing.T) {
	ctx := context.Background()
	gen := func(seed uint64, triples int64) []byte {
		var buf bytes.Buffer
		if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: triples, Seed: seed, Format: sample.NQuads}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b := gen(1, 30000), gen(2, 40000)
	steps := []struct {
		name string
		data []byte
	}{
		{"into the empty store", a},   // indexes rebuilt, quads copied straight in
		{"a larger one on top", b},    // indexes rebuilt, held quads left out in Go
		{"the first again", a},        // ON CONFLICT: every quad exists
		{"a small one", gen(3, 2000)}, // below the rebuild threshold
		{"duplicates in one load", append(append([]byte(nil), b...), b...)},
	}
	ds := newStore(t)
	ref := kbtest.NewMemory()
	for _, st := range steps {
		for _, target := range []kb.Dataset{ds, ref} {
			if _, err := rdfio.Load(ctx, target, bytes.NewReader(st.data), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
				t.Fatalf("%s: Load into %T: %v", st.name, target, err)
			}
		}
		want := sameQuads(t, st.name, ds, ref)
		st1, err := ds.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st1.Quads != int64(want) {
			t.Errorf("%s: Stats.Quads = %d; want %d", st.name, st1.Quads, want)
		}
	}
}

// TestBulkIDsAndIntern: a bulk load reserves its terms' IDs in one step,
// between Interns of two other stores (two processes' caches, each with
// its own connections and sequence caches); every term must keep one ID of
// its own, and a third store, reading only the database, must resolve
// every quad to what was written.
func TestBulkIDsAndIntern(t *testing.T) {
	ctx := context.Background()
	loader := newStore(t)
	schema := loader.Schema()
	open := func() *pg.Store {
		s, err := pg.OpenPool(ctx, pool, pg.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := open(), open()
	var terms []kb.Term
	intern := func(s *pg.Store, prefix string, n int) {
		batch := make([]kb.Term, n)
		for i := range batch {
			batch[i] = kb.IRI(fmt.Sprintf("http://example.org/%s/%d", prefix, i))
		}
		if _, err := s.Intern(ctx, batch); err != nil {
			t.Fatal(err)
		}
		terms = append(terms, batch...)
	}
	intern(a, "a1", 10) // a's connection now caches sequence values
	intern(b, "b1", 10)
	var data bytes.Buffer
	if _, err := sample.Generate(ctx, &data, sample.Options{Sites: 1, Triples: 20000, Seed: 4, Format: sample.NQuads}); err != nil {
		t.Fatal(err)
	}
	ref := kbtest.NewMemory()
	for _, target := range []kb.Dataset{loader, ref} {
		if _, err := rdfio.Load(ctx, target, bytes.NewReader(data.Bytes()), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			t.Fatalf("Load into %T: %v", target, err)
		}
	}
	intern(a, "a2", 10)
	intern(b, "b2", 2000)

	reader := open()
	byID := map[kb.ID]kb.Term{}
	for _, tt := range terms {
		id, ok, err := reader.Lookup(ctx, tt)
		if err != nil || !ok {
			t.Fatalf("Lookup(%v) = %v, %v", tt, ok, err)
		}
		if other, dup := byID[id]; dup {
			t.Fatalf("ID %d is both %v and %v", id, other, tt)
		}
		byID[id] = tt
	}
	got := termQuadSet(t, reader)
	for q := range got {
		for _, term := range []kb.Term{q.S, q.P, q.O, q.G} {
			id, _, err := reader.Lookup(ctx, term)
			if err != nil {
				t.Fatal(err)
			}
			if other, dup := byID[id]; dup && other != term {
				t.Fatalf("ID %d is both the interned %v and the loaded %v", id, other, term)
			}
		}
	}
	want := termQuadSet(t, ref)
	if len(got) != len(want) {
		t.Errorf("the store holds %d quads; the reference %d", len(got), len(want))
	}
	for q := range want {
		if !got[q] {
			t.Fatalf("missing %v", q)
		}
	}
}

// sameQuads reports where ds's quads differ from the reference store's
// (the counts, and the first three quads ds lacks) and returns the
// reference's count.
func sameQuads(t *testing.T, name string, ds, ref kb.Dataset) int {
	t.Helper()
	got, want := termQuadSet(t, ds), termQuadSet(t, ref)
	if len(got) != len(want) {
		t.Errorf("%s: the store holds %d quads; the reference %d", name, len(got), len(want))
	}
	missing := 0
	for q := range want {
		if !got[q] {
			if missing++; missing <= 3 {
				t.Errorf("%s: missing %v", name, q)
			}
		}
	}
	return len(want)
}

// TestLoadIntoSmallDictionary: a load that brings many more terms than the
// dictionary holds matches its terms against the whole dictionary read
// back; the terms it shares with the store (the predicates and classes of
// an earlier, smaller load by another process) must keep their IDs, not
// be copied again (the unique index on the term hash fails such a load).
func TestLoadIntoSmallDictionary(t *testing.T) {
	ctx := context.Background()
	gen := func(seed uint64, triples int64) []byte {
		var buf bytes.Buffer
		if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 1, Triples: triples, Seed: seed, Format: sample.NQuads}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name   string
		first  int64 // triples of the earlier load
		second int64 // triples of the load into its dictionary
	}{
		{"below the rebuild threshold", 500, 8000},
		{"terms copied with their indexes rebuilt", 2000, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := newStore(t)
			// The second load runs in another store on the same schema (as
			// another process would), whose term cache is empty.
			ds, err := pg.OpenPool(ctx, pool, pg.Options{Schema: first.Schema()})
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			ref := kbtest.NewMemory()
			for i, data := range [][]byte{gen(5, tc.first), gen(6, tc.second)} {
				for _, target := range []kb.Dataset{[]kb.Dataset{first, ds}[i], ref} {
					if _, err := rdfio.Load(ctx, target, bytes.NewReader(data), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
						t.Fatalf("load %d into %T: %v", i+1, target, err)
					}
				}
			}
			sameQuads(t, tc.name, ds, ref)
			var terms, distinct int64
			if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT h) FROM "+ds.Schema()+".terms").Scan(&terms, &distinct); err != nil {
				t.Fatal(err)
			}
			if terms != distinct {
				t.Errorf("the dictionary holds %d rows for %d distinct terms", terms, distinct)
			}
		})
	}
}
