package native

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestFailedLoadLeavesNoTerms (#16 item 9): a load that fails after
// interning its terms leaves Stats, terms included, exactly as before,
// in the open store and after a reopen; a later load of the same terms
// stores them.
func TestFailedLoadLeavesNoTerms(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if _, err := rdfio.LoadQuads(ctx, s, sliceNext(genTermQuads(0, 2000)), rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad := errors.New("bad last line")
	fresh := genTermQuads(500000, 5000) // new terms only
	failing := []struct {
		name string
		run  func() error
	}{
		{"bulk load", func() error {
			next := sliceNext(fresh)
			_, err := rdfio.LoadQuads(ctx, s, func() (kb.TermQuad, error) {
				q, err := next()
				if err == io.EOF {
					return q, bad
				}
				return q, err
			}, rdfio.LoadOptions{})
			return err
		}},
		{"apply of unknown IDs", func() error {
			ids, err := kb.InternQuads(ctx, s, genTermQuads(700000, 10))
			if err != nil {
				return err
			}
			ids[0].S = 1 << 40 // never issued: Apply refuses the delta
			return s.Apply(ctx, kb.Delta{Add: ids})
		}},
	}
	for _, f := range failing {
		if err := f.run(); err == nil {
			t.Fatalf("%s: did not fail", f.name)
		}
		after, err := s.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: Stats changed: terms %d -> %d, quads %d -> %d", f.name, before.Terms, after.Terms, before.Quads, after.Quads)
		}
	}
	// Close used to write every interned term.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("after reopen: Stats changed: terms %d -> %d, quads %d -> %d", before.Terms, after.Terms, before.Quads, after.Quads)
	}
	// The same terms load later, and survive a reopen.
	if _, err := rdfio.LoadQuads(ctx, s, sliceNext(fresh), rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Quads != before.Quads+int64(len(fresh)) || st.Terms <= before.Terms {
		t.Fatalf("after a good load: %d quads, %d terms; want %d quads and more than %d terms", st.Quads, st.Terms, before.Quads+int64(len(fresh)), before.Terms)
	}
	for _, tq := range fresh[:50] {
		q, err := kb.InternQuads(ctx, s, []kb.TermQuad{tq})
		if err != nil {
			t.Fatal(err)
		}
		back, err := kb.ResolveQuad(ctx, s, q[0])
		if err != nil || back != tq {
			t.Fatalf("ResolveQuad after reopen = %v, %v; want %v", back, err, tq)
		}
		if n, _ := s.Count(ctx, kb.Pattern(q[0]), true); n != 1 {
			t.Fatalf("quad %v not stored after reopen", tq)
		}
	}
}
