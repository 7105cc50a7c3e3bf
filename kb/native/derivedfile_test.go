package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// idsCodec encodes a []kb.ID as 64-bit IDs after the tag "ids1";
// anything else is rejected.
type idsCodec struct{}

func (idsCodec) EncodeDerived(v any) ([]byte, error) {
	b := []byte("ids1")
	for _, id := range v.([]kb.ID) {
		b = binary.NativeEndian.AppendUint64(b, uint64(id))
	}
	return b, nil
}

func (idsCodec) DecodeDerived(b []byte) (any, error) {
	if len(b) < 4 || string(b[:4]) != "ids1" || (len(b)-4)%8 != 0 {
		return nil, errors.New("not an ids1 encoding")
	}
	var ids []kb.ID
	for b = b[4:]; len(b) > 0; b = b[8:] {
		ids = append(ids, kb.ID(binary.NativeEndian.Uint64(b)))
	}
	return ids, nil
}

// distinctObjectsOf lists p's distinct objects through Match (the
// tests' oracle: Pebble-independent of the derived files).
func distinctObjectsOf(t *testing.T, s *Store, p kb.ID) []kb.ID {
	t.Helper()
	qs, err := kb.Collect(s.Match(context.Background(), kb.Pattern{P: p}))
	if err != nil {
		t.Fatal(err)
	}
	var out []kb.ID
	for _, q := range qs {
		out = append(out, q.O)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestObjFile: a value derived from one predicate's objects
// (ObjectsDerivedStored, as the query evaluator's value orders are) is
// written to a derived side file by the process that builds it and read
// by the next instead of built; a torn file, one of other side files,
// one the codec rejects, and one for a predicate the write delta changed
// are not used.
func TestObjFile(t *testing.T) {
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
		if s, err = Open(ctx, dir, Options{ReadOnly: true}); err != nil {
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
	p1, p2 := ids[0], ids[1]
	const kind = "test.objects"
	builds := 0
	get := func(step string, p kb.ID, wantBuilt bool, want []kb.ID) {
		t.Helper()
		builds = 0
		v, ok, err := s.ObjectsDerivedStored(p, kind, idsCodec{}, func(objects []kb.ID) (any, error) {
			builds++
			return slices.Clone(objects), nil
		})
		if err != nil || !ok {
			t.Fatalf("%s: ObjectsDerivedStored: %v, %v", step, ok, err)
		}
		if built := builds > 0; built != wantBuilt {
			t.Fatalf("%s: built %v, want %v", step, built, wantBuilt)
		}
		if got := v.([]kb.ID); !slices.Equal(got, want) {
			t.Fatalf("%s: value has %d IDs, want %d (%v…)", step, len(got), len(want), got[:min(len(got), 3)])
		}
	}
	objs1 := distinctObjectsOf(t, s, p1)
	if len(objs1) != 301 {
		t.Fatalf("p1 has %d distinct objects, want 301", len(objs1))
	}
	path := filepath.Join(dir, objFileName(p1, kind))

	reopen()
	get("first process", p1, true, objs1)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no derived file after the build: %v", err)
	}

	reopen()
	get("next process", p1, false, objs1)
	if v, ok := s.ObjectsDerivedKept(p1, kind); !ok || !slices.Equal(v.([]kb.ID), objs1) {
		t.Fatalf("ObjectsDerivedKept after reading the file = %v; want the file's value kept", ok)
	}

	// The file is what is read: an ID planted in it (checksum right)
	// comes back.
	planted := slices.Clone(objs1)
	planted[0] = 999999
	rewriteDerived(t, dir, filepath.Base(path), true, func(b []byte) {
		enc, _ := idsCodec{}.EncodeDerived(planted)
		copy(b[len(b)-len(enc):], enc)
	})
	reopen()
	get("planted", p1, false, planted)

	cases := []struct {
		name   string
		fixCRC bool
		edit   func(b []byte)
	}{
		{"torn", false, func(b []byte) { b[len(b)-1]++ }},
		{"other build", true, func(b []byte) { binary.NativeEndian.PutUint64(b[16:], binary.NativeEndian.Uint64(b[16:])+1) }},
		{"other predicate", true, func(b []byte) { binary.NativeEndian.PutUint64(b[derivedHeaderSize:], uint64(p2)) }},
		{"codec rejects", true, func(b []byte) { copy(b[len(b)-8*len(objs1)-4:], "ids0") }},
	}
	for _, c := range cases {
		rewriteDerived(t, dir, filepath.Base(path), c.fixCRC, c.edit)
		reopen()
		get(c.name, p1, true, objs1)
		reopen()
		get(c.name+", rewritten", p1, false, objs1)
	}

	// A write delta without quads of p1 leaves its file in use; one with
	// a quad of p1 does not (the value is built from the quads now).
	reopen()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	x := kb.IRI("http://ex/new")
	if err := s.Apply(ctx, kb.Delta{Add: internAll(t, s, []kb.TermQuad{{S: x, P: kb.IRI("http://ex/p2"), O: x, G: kb.DefaultGraph}})}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.readSide().mappedBuild(); !ok {
		t.Skip("the read side no longer keeps the mapped base after a write: the delta path is not reached")
	}
	get("delta without p1", p1, false, objs1)
	add := internAll(t, s, []kb.TermQuad{{S: x, P: kb.IRI("http://ex/p1"), O: kb.Literal("4242", ontology.XSDInteger), G: kb.DefaultGraph}})
	if err := s.Apply(ctx, kb.Delta{Add: add}); err != nil {
		t.Fatal(err)
	}
	objs1b := distinctObjectsOf(t, s, p1)
	if len(objs1b) != 302 {
		t.Fatalf("p1 has %d distinct objects after the write, want 302", len(objs1b))
	}
	get("delta with p1", p1, true, objs1b)
	if body, err := readObjFile(dir, mustBuild(t, s), p1, kind); err != nil {
		t.Fatal(err)
	} else if v, _ := (idsCodec{}).DecodeDerived(body); !slices.Equal(v.([]kb.ID), objs1) {
		t.Fatal("the file of the mapped base was replaced by a value of base and delta")
	}
}

// TestPredicateObjFile: PredicateDerivedStored (the counted join's
// per-subject counts) is read from its file by the next process; a
// different kind (other graphs, another key) has its own file.
func TestPredicateObjFile(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	bulkTerms(t, s, statsTermQuads(0, 90))
	ids, err := s.Intern(ctx, []kb.Term{kb.IRI("http://ex/p1")})
	if err != nil {
		t.Fatal(err)
	}
	objs := distinctObjectsOf(t, s, ids[0])
	for _, c := range []struct {
		kind      string
		wantBuilt bool
	}{
		{"counts a", true}, {"counts a", false}, {"counts b", true}, {"counts b", false}, {"counts a", false},
	} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, Options{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		built := false
		v, kept, ok, err := s.PredicateDerivedStored(ids[0], c.kind, idsCodec{}, func() (any, int64, error) {
			built = true
			return slices.Clone(objs), int64(8 * len(objs)), nil
		})
		if err != nil || !ok || !kept {
			t.Fatalf("%s: PredicateDerivedStored: kept %v, ok %v, %v", c.kind, kept, ok, err)
		}
		if built != c.wantBuilt || !slices.Equal(v.([]kb.ID), objs) {
			t.Fatalf("%s: built %v (want %v), value %s", c.kind, built, c.wantBuilt, fmt.Sprint(len(v.([]kb.ID))))
		}
	}
}
