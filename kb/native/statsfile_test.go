package native

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// statsTermQuads is the statistics tests' data: n subjects with two p1
// objects each (their own number and the shared "x", so n+1 distinct
// objects), and every third of them with one p2 object, its own.
func statsTermQuads(from, n int) []kb.TermQuad {
	var tq []kb.TermQuad
	p1, p2 := kb.IRI("http://ex/p1"), kb.IRI("http://ex/p2")
	for i := from; i < from+n; i++ {
		s := kb.IRI(fmt.Sprintf("http://ex/s%d", i))
		tq = append(tq,
			kb.TermQuad{S: s, P: p1, O: kb.Literal(fmt.Sprint(i), ontology.XSDInteger), G: kb.DefaultGraph},
			kb.TermQuad{S: s, P: p1, O: kb.Literal("x", ontology.XSDString), G: kb.DefaultGraph})
		if i%3 == 0 {
			tq = append(tq, kb.TermQuad{S: s, P: p2, O: kb.IRI(fmt.Sprintf("http://ex/o%d", i)), G: kb.DefaultGraph})
		}
	}
	return tq
}

// rewriteStatsFile applies edit to the statistics file's bytes and writes
// them back, with the checksum made right again when fixCRC is set.
func rewriteStatsFile(t *testing.T, dir string, fixCRC bool, edit func(b []byte)) {
	t.Helper()
	rewriteDerived(t, dir, statsFileName, fixCRC, edit)
}

// rewriteDerived is rewriteStatsFile for any derived file.
func rewriteDerived(t *testing.T, dir, name string, fixCRC bool, edit func(b []byte)) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	if fixCRC {
		binary.NativeEndian.PutUint32(b[28:], crc32.Checksum(b[derivedHeaderSize:], derivedCRC))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStatsFile: a store opened from side files takes its planner
// statistics from the statistics file written beside them (so a one-shot
// command does not scan two whole orders), rejects a torn file or one of
// other side files, and counts its write delta on top.
func TestStatsFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	reopen := func(opts Options) {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, opts); err != nil {
			t.Fatal(err)
		}
		if !sideMapped(s) {
			t.Fatal("reopened store does not map its side files")
		}
	}
	bulkTerms(t, s, statsTermQuads(0, 300))
	ids, err := s.Intern(ctx, []kb.Term{kb.IRI("http://ex/p1"), kb.IRI("http://ex/p2")})
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, p kb.ID, subjects, objects int64) {
		t.Helper()
		gs, gobj, ok := s.PredicateDistinct(p)
		if gs != subjects || gobj != objects || !ok {
			t.Fatalf("%s: PredicateDistinct(%d) = %d, %d, %v; want %d, %d, true", step, p, gs, gobj, ok, subjects, objects)
		}
	}
	statsPath := filepath.Join(dir, statsFileName)

	// Opened read-only, as perfkb query opens a store: the statistics
	// are computed and written for the next process.
	reopen(Options{ReadOnly: true})
	check("computed", ids[0], 300, 301)
	check("computed", ids[1], 100, 100)
	if _, err := os.Stat(statsPath); err != nil {
		t.Fatalf("no statistics file after the first computation: %v", err)
	}

	// A later open believes the file: numbers planted in it (with a
	// right checksum) come back.
	p1Entry := -1
	rewriteStatsFile(t, dir, true, func(b []byte) {
		for i := derivedHeaderSize + 8; i < len(b); i += statsEntrySize {
			if binary.NativeEndian.Uint32(b[i:]) == uint32(ids[0]) {
				p1Entry = i
				binary.NativeEndian.PutUint64(b[i+8:], 12345)
			}
		}
	})
	if p1Entry < 0 {
		t.Fatal("p1 has no entry in the statistics file")
	}
	reopen(Options{ReadOnly: true})
	check("read from the file", ids[0], 12345, 301)
	check("read from the file", ids[1], 100, 100)

	// A torn file (contents not matching the checksum) is computed anew
	// and replaced.
	rewriteStatsFile(t, dir, false, func(b []byte) { b[p1Entry+16]++ })
	reopen(Options{})
	check("torn file", ids[0], 300, 301)
	if st, err := readStatsFile(dir, mustBuild(t, s), s.readSide().counts.quads); err != nil || st.by[uint32(ids[0])] != (predShape{300, 301}) {
		t.Fatalf("torn file not replaced: %v, %v", st, err)
	}

	// A file of other side files (another build) is not used.
	rewriteStatsFile(t, dir, true, func(b []byte) {
		binary.NativeEndian.PutUint64(b[p1Entry+8:], 777)
		binary.NativeEndian.PutUint64(b[16:], binary.NativeEndian.Uint64(b[16:])+2)
	})
	reopen(Options{})
	check("other build", ids[0], 300, 301)

	// A write delta over the mapped base is counted on top of the file's
	// numbers (600 new subjects, 1,400 quads: past the slack of a tenth
	// of the store and 1,000 quads, so the cached statistics are stale).
	rewriteStatsFile(t, dir, true, func(b []byte) { binary.NativeEndian.PutUint64(b[p1Entry+8:], 1000) })
	reopen(Options{})
	check("before the write", ids[0], 1000, 301)
	if err := s.Apply(ctx, kb.Delta{Add: internAll(t, s, statsTermQuads(1000, 600))}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.readSide().mappedBuild(); !ok {
		t.Skip("the read side no longer keeps the mapped base after a write: the delta path is not reached")
	}
	// p1: 1000 (file) + 600 subjects; 301 + 601 objects (the shared "x"
	// counts again in the delta: an estimate, as predStats counts it);
	// p2: 100 + 200.
	check("after the write", ids[0], 1600, 902)
	check("after the write", ids[1], 300, 300)
}

func mustBuild(t *testing.T, s *Store) uint64 {
	t.Helper()
	b, ok := s.readSide().mappedBuild()
	if !ok {
		t.Fatal("store's base is not mapped")
	}
	return b
}

// TestKindsFile: HoldsKind on a store opened from side files takes the
// side dictionary's kind summary from the kinds file (a fresh process
// does not read every term's tag byte), rejects a torn file or one of
// other side files, and still sees the kinds of terms issued since.
func TestKindsFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	reopen := func(opts Options) {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, opts); err != nil {
			t.Fatal(err)
		}
		if !sideMapped(s) {
			t.Fatal("reopened store does not map its side files")
		}
	}
	// IRIs and literals, no blank node.
	bulkTerms(t, s, statsTermQuads(0, 200))
	check := func(step string, kind kb.TermKind, want bool) {
		t.Helper()
		if holds, known := s.HoldsKind(kind); holds != want || !known {
			t.Fatalf("%s: HoldsKind(%v) = %v, %v; want %v, true", step, kind, holds, known, want)
		}
	}
	path := filepath.Join(dir, kindsFileName)
	reopen(Options{ReadOnly: true})
	check("computed", kb.KindBlank, false)
	check("computed", kb.KindLiteral, true)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no kinds file after the first HoldsKind: %v", err)
	}
	// A later open believes the file: a blank-node tag planted in it
	// (checksum right) comes back.
	plant := func(b []byte) { b[derivedHeaderSize+8+int(tagBlank)] = 1 }
	rewriteDerived(t, dir, kindsFileName, true, plant)
	reopen(Options{ReadOnly: true})
	check("read from the file", kb.KindBlank, true)
	check("read from the file", kb.KindIRI, true)

	// Torn, or for other side files: computed anew.
	rewriteDerived(t, dir, kindsFileName, false, func(b []byte) { b[derivedHeaderSize+8+int(tagIRI)] ^= 1 })
	reopen(Options{})
	check("torn file", kb.KindBlank, false)
	rewriteDerived(t, dir, kindsFileName, true, func(b []byte) {
		plant(b)
		binary.NativeEndian.PutUint64(b[16:], binary.NativeEndian.Uint64(b[16:])+2)
	})
	reopen(Options{})
	check("other build", kb.KindBlank, false)

	// A blank node written after the open is seen on top of the file.
	blank := internAll(t, s, []kb.TermQuad{{S: kb.Blank("b1"), P: kb.IRI("http://ex/p1"), O: kb.IRI("http://ex/o"), G: kb.DefaultGraph}})
	if err := s.Apply(ctx, kb.Delta{Add: blank}); err != nil {
		t.Fatal(err)
	}
	check("after a write", kb.KindBlank, true)
}

// TestKindCountsFile: an object-kind count of a store that is its mapped
// side files and nothing else is kept beside them and read by a later
// open; a torn file is counted anew, and a store with a write delta
// adjusts the kept count by it.
func TestKindCountsFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	reopen := func(opts Options) {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, opts); err != nil {
			t.Fatal(err)
		}
		if !sideMapped(s) {
			t.Fatal("reopened store does not map its side files")
		}
	}
	// 200 subjects: 400 p1 triples with a literal object, 67 p2 triples
	// with an IRI object.
	bulkTerms(t, s, statsTermQuads(0, 200))
	check := func(step string, kind kb.TermKind, want int64) {
		t.Helper()
		n, ok, err := s.ObjectKindCount(kind, kb.Any, nil)
		if err != nil || !ok || n != want {
			t.Fatalf("%s: ObjectKindCount(%v) = %d, %v, %v; want %d", step, kind, n, ok, err, want)
		}
	}
	reopen(Options{ReadOnly: true})
	check("counted", kb.KindLiteral, 400)
	check("counted", kb.KindIRI, 67)
	build := mustBuild(t, s)
	kept := readKindCounts(dir, build)
	if len(kept) != 2 {
		t.Fatalf("kept counts %v, want the two asked", kept)
	}
	// A later open reads the kept counts: planted numbers come back.
	planted := map[string]int64{}
	for k, n := range kept {
		planted[k] = n + 1000
	}
	plant := func(counts map[string]int64) {
		t.Helper()
		var b []byte
		for k, n := range counts {
			b = binary.NativeEndian.AppendUint16(b, uint16(len(k)))
			b = append(b, k...)
			b = binary.NativeEndian.AppendUint64(b, uint64(n))
		}
		if err := writeDerived(dir, countsFileName, build, b); err != nil {
			t.Fatal(err)
		}
	}
	plant(planted)
	reopen(Options{ReadOnly: true})
	check("read from the file", kb.KindLiteral, 1400)
	check("read from the file", kb.KindIRI, 1067)
	// Torn: counted anew.
	rewriteDerived(t, dir, countsFileName, false, func(b []byte) { b[len(b)-1] ^= 1 })
	reopen(Options{})
	check("torn file", kb.KindLiteral, 400)
	// With a write delta over the base the file's count is adjusted by
	// the delta rather than counted anew (10 subjects: 20 more literal
	// objects on the planted 1400).
	plant(planted)
	reopen(Options{})
	if err := s.Apply(ctx, kb.Delta{Add: internAll(t, s, statsTermQuads(5000, 10))}); err != nil {
		t.Fatal(err)
	}
	check("after a write", kb.KindLiteral, 1420)
}
