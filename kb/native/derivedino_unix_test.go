//go:build unix

package native

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestReleaseDerivedMapped: ReleaseMapped also gives back the pages of
// the derived files a process mapped, and a value read from one is still
// read right afterwards (its pages come back from the page cache).
func TestReleaseDerivedMapped(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	bulkTerms(t, s, statsTermQuads(0, 3000))
	ids, err := s.Intern(ctx, []kb.Term{kb.IRI("http://ex/p1")})
	if err != nil {
		t.Fatal(err)
	}
	want := distinctObjectsOf(t, s, ids[0])
	build := func(objects []kb.ID) (any, error) { return slices.Clone(objects), nil }
	for i := range 2 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, dir, Options{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ObjectsDerivedStored(ids[0], "test.release", idsCodec{}, build); err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	st, err := os.Stat(filepath.Join(dir, objFileName(ids[0], "test.release")))
	if err != nil {
		t.Fatal(err)
	}
	if n := releaseDerivedMapped(); n < st.Size() {
		t.Fatalf("released %d bytes of derived mappings, want at least the file's %d", n, st.Size())
	}
	v, ok := s.ObjectsDerivedKept(ids[0], "test.release")
	if !ok || !slices.Equal(v.([]kb.ID), want) {
		t.Fatal("the value read from the file is not intact after its pages were released")
	}
}
