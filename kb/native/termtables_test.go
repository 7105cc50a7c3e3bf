package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestTermTablesInParts loads enough terms that the term → ID and ID →
// term tables are each cut into several tables written side by side (and
// the side dictionary built from parts), then a second load that rewrites
// the store (so the stored entries are merged into each range), and
// checks the stored term keys directly after each: strictly ascending (the
// ranges do not overlap and are complete), one per term loaded, and each
// pointing at an ID whose ID-table entry is the same term. After a reopen
// it checks terms look up and resolve through the side dictionary.
func TestTermTablesInParts(t *testing.T) {
	ctx := context.Background()
	defer func(p int) { termTablePart = p }(termTablePart)
	termTablePart = 50
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))

	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	load := func(s *Store, from, to int) {
		t.Helper()
		bw, err := s.BeginBulk(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var terms []kb.Term
		for i := from; i < to; i++ {
			// Subjects share a long prefix, so splitters fall inside it.
			terms = append(terms, kb.IRI(fmt.Sprintf("http://perfkb.example/site/x/region/%07d", i)),
				kb.IRI("http://ex/p"), kb.Literal(fmt.Sprintf("%d", i*7), "http://www.w3.org/2001/XMLSchema#integer"), kb.IRI("http://ex/g"))
		}
		ids, err := s.Intern(ctx, terms)
		if err != nil {
			t.Fatal(err)
		}
		var quads []kb.Quad
		for i := 0; i+3 < len(ids); i += 4 {
			quads = append(quads, kb.Quad{S: ids[i], P: ids[i+1], O: ids[i+2], G: ids[i+3]})
		}
		if err := bw.Add(ctx, quads); err != nil {
			t.Fatal(err)
		}
		if err := bw.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// check reads the term keys and the ID keys back from Pebble.
	check := func(s *Store, want int) {
		t.Helper()
		idTerm := map[kb.ID][]byte{}
		it, err := s.newIter([]byte{prefixID}, []byte{prefixID + 1})
		if err != nil {
			t.Fatal(err)
		}
		for ok := it.First(); ok; ok = it.Next() {
			idTerm[kb.ID(binary.BigEndian.Uint64(it.Key()[1:]))] = bytes.Clone(it.Value())
		}
		if err := s.release(it); err != nil {
			t.Fatal(err)
		}
		it, err = s.newIter([]byte{prefixTerm}, []byte{prefixTerm + 1})
		if err != nil {
			t.Fatal(err)
		}
		var prev []byte
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			k := it.Key()
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				t.Fatalf("term keys out of order: %q then %q", prev, k)
			}
			prev = bytes.Clone(k)
			id := kb.ID(binary.BigEndian.Uint64(it.Value()))
			if got := idTerm[id]; !bytes.Equal(got, k[1:]) {
				t.Fatalf("term key %q points at ID %d, whose term is %q", k[1:], id, got)
			}
			n++
		}
		if err := s.release(it); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Fatalf("%d term keys stored, want %d", n, want)
		}
	}
	// 1,000 subjects + 1,000 literals + p + g: 2,002 terms, 16 parts.
	load(s, 0, 1000)
	check(s, 2002)
	// A larger second load rewrites the store: each range merges the
	// stored terms in it (p and g are shared, 0..999 are stored).
	load(s, 500, 3000)
	check(s, 2*3000+2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s, 2*3000+2)
	for i := 0; i < 3000; i += 97 {
		term := kb.IRI(fmt.Sprintf("http://perfkb.example/site/x/region/%07d", i))
		id, ok, err := s.Lookup(ctx, term)
		if err != nil || !ok {
			t.Fatalf("Lookup(%v) = %d, %v, %v", term, id, ok, err)
		}
		back, err := s.Resolve(ctx, id)
		if err != nil || back != term {
			t.Fatalf("Resolve(%d) = %v, %v; want %v", id, back, err, term)
		}
	}
}
