package native

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// holdsKinds is HoldsKind's answer for the four kinds, "?" when unknown.
type holdsKinds interface {
	HoldsKind(kb.TermKind) (bool, bool)
}

func kindsOf(h holdsKinds) string {
	out := ""
	for _, k := range []kb.TermKind{kb.KindIRI, kb.KindBlank, kb.KindLiteral, kb.KindTriple} {
		holds, known := h.HoldsKind(k)
		switch {
		case !known:
			out += "?"
		case holds:
			out += "1"
		default:
			out += "0"
		}
	}
	return out
}

// TestHoldsKind checks which kinds a dictionary reports (IRI, blank,
// literal, triple term, in that order), as terms of each kind arrive, on
// both memory stores and on a disk store reopened over its side files.
func TestHoldsKind(t *testing.T) {
	ctx := context.Background()
	iris := kb.TermQuad{S: kb.IRI("http://e/s"), P: kb.IRI("http://e/p"), O: kb.IRI("http://e/o"), G: kb.DefaultGraph}
	lit := kb.TermQuad{S: kb.IRI("http://e/s"), P: kb.IRI("http://e/p"), O: kb.Literal("7", "http://www.w3.org/2001/XMLSchema#integer"), G: kb.DefaultGraph}
	blank := kb.TermQuad{S: kb.Blank("b1"), P: kb.IRI("http://e/p"), O: kb.Literal("x", ""), G: kb.DefaultGraph}
	for name, ds := range map[string]kb.Dataset{"memory": OpenMemory(), "pebble-memory": OpenPebbleMemory()} {
		h := ds.(holdsKinds)
		if got := kindsOf(h); got != "0000" {
			t.Errorf("%s empty: %s, want 0000", name, got)
		}
		for i, step := range []struct {
			tq   kb.TermQuad
			want string
		}{{iris, "1000"}, {lit, "1010"}, {blank, "1110"}} {
			ids, err := kb.InternQuads(ctx, ds, []kb.TermQuad{step.tq})
			if err != nil {
				t.Fatal(err)
			}
			if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
				t.Fatal(err)
			}
			if got := kindsOf(h); got != step.want {
				t.Errorf("%s after step %d: %s, want %s", name, i, got, step.want)
			}
		}
	}

	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bulkTerms(t, s, []kb.TermQuad{iris, lit})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !sideMapped(s) {
		t.Fatal("reopened store does not read its side files")
	}
	if got := kindsOf(s); got != "1010" {
		t.Errorf("side files: %s, want 1010", got)
	}
	// A blank node interned after open is a fresh term.
	ids, err := kb.InternQuads(ctx, s, []kb.TermQuad{blank})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	if got := kindsOf(s); got != "1110" {
		t.Errorf("side files and a write: %s, want 1110", got)
	}
}
