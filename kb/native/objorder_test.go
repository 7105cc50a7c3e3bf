package native

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// objOrderStore is what the value-ordered access needs of a store.
type objOrderStore interface {
	kb.Dataset
	TermKindOf(kb.ID) (kb.TermKind, bool)
	ObjectsDerived(p kb.ID, kind string, build func([]kb.ID) (any, error)) (any, bool, error)
	ScanObjectQuads(ctx context.Context, p, g kb.ID, objs []kb.ID, fn func(kb.Quad) bool) (bool, error)
}

// TestObjectOrderAccess checks TermKindOf, ObjectsDerived (built once per
// state of the store, again after a write) and ScanObjectQuads (the quads
// of chosen objects, in one graph or all) against answers listed by hand,
// on the in-memory store and a disk store.
func TestObjectOrderAccess(t *testing.T) {
	ctx := context.Background()
	disk, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	p, q := kb.IRI("http://e/p"), kb.IRI("http://e/q")
	g1, g2 := kb.IRI("http://e/g1"), kb.IRI("http://e/g2")
	s := func(i int) kb.Term { return kb.IRI(fmt.Sprintf("http://e/s%d", i)) }
	lit := func(v string) kb.Term { return kb.Literal(v, "") }
	quads := []kb.TermQuad{
		{S: s(1), P: p, O: lit("a"), G: g1},
		{S: s(2), P: p, O: lit("a"), G: g1},
		{S: s(2), P: p, O: lit("a"), G: g2},
		{S: s(1), P: p, O: lit("b"), G: g2},
		{S: s(3), P: p, O: kb.IRI("http://e/o"), G: g1},
		{S: s(3), P: p, O: kb.Blank("x"), G: g1},
		{S: s(4), P: p, O: lit("c"), G: g1},
		{S: s(1), P: q, O: lit("z"), G: g1},
	}
	for name, ds := range map[string]objOrderStore{"memory": OpenMemory(), "disk": disk} {
		ids, err := kb.InternQuads(ctx, ds, quads)
		if err != nil {
			t.Fatal(err)
		}
		if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
			t.Fatal(err)
		}
		id := func(tm kb.Term) kb.ID {
			i, ok, err := ds.Lookup(ctx, tm)
			if err != nil || !ok {
				t.Fatalf("%s: lookup %v: %v", name, tm, err)
			}
			return i
		}
		for _, c := range []struct {
			term kb.Term
			want kb.TermKind
		}{{lit("a"), kb.KindLiteral}, {kb.IRI("http://e/o"), kb.KindIRI}, {kb.Blank("x"), kb.KindBlank}, {p, kb.KindIRI}} {
			if k, ok := ds.TermKindOf(id(c.term)); !ok || k != c.want {
				t.Errorf("%s: TermKindOf(%v) = %v, %v; want %v", name, c.term, k, ok, c.want)
			}
		}
		if _, ok := ds.TermKindOf(1 << 40); ok {
			t.Errorf("%s: TermKindOf of an unknown ID is ok", name)
		}
		// The distinct objects of p, by ID: a, b, ex:o, _:x, c (5).
		builds := 0
		objects := func() string {
			v, ok, err := ds.ObjectsDerived(id(p), "test", func(objs []kb.ID) (any, error) {
				builds++
				return len(objs), nil
			})
			if err != nil || !ok {
				t.Fatalf("%s: ObjectsDerived: %v, %v", name, ok, err)
			}
			return fmt.Sprint(v)
		}
		if got := objects() + objects(); got != "55" || builds != 1 {
			t.Errorf("%s: objects %s in %d builds, want 5 twice in 1 build", name, got, builds)
		}
		// The quads of a and c: s1 a g1, s2 a g1, s2 a g2, s4 c g1.
		scan := func(g kb.ID, objs ...kb.Term) string {
			var oids []kb.ID
			for _, o := range objs {
				oids = append(oids, id(o))
			}
			// ascending IDs, as callers pass them
			for i := range oids {
				for j := i + 1; j < len(oids); j++ {
					if oids[j] < oids[i] {
						oids[i], oids[j] = oids[j], oids[i]
					}
				}
			}
			var out []string
			ok, err := ds.ScanObjectQuads(ctx, id(p), g, oids, func(qd kb.Quad) bool {
				tq, err := kb.ResolveQuad(ctx, ds, qd)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, strings.TrimPrefix(tq.S.Value, "http://e/")+" "+tq.O.Value+" "+strings.TrimPrefix(tq.G.Value, "http://e/"))
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return "not ok"
			}
			return strings.Join(out, ", ")
		}
		if got, want := scan(kb.Any, lit("c"), lit("a")), "s1 a g1, s2 a g1, s2 a g2, s4 c g1"; got != want {
			t.Errorf("%s: quads of a and c = %q, want %q", name, got, want)
		}
		if got, want := scan(id(g2), lit("a"), lit("b"), lit("c")), "s2 a g2, s1 b g2"; got != want {
			t.Errorf("%s: quads of a, b, c in g2 = %q, want %q", name, got, want)
		}
		if got, want := scan(kb.Any, lit("z")), ""; got != want {
			t.Errorf("%s: quads of q's object z under p = %q, want none", name, got)
		}
		// A write: the next ObjectsDerived builds again and sees d.
		more, err := kb.InternQuads(ctx, ds, []kb.TermQuad{{S: s(5), P: p, O: lit("d"), G: g1}})
		if err != nil {
			t.Fatal(err)
		}
		if err := ds.Apply(ctx, kb.Delta{Add: more}); err != nil {
			t.Fatal(err)
		}
		if got := objects(); got != "6" || builds != 2 {
			t.Errorf("%s after a write: objects %s in %d builds, want 6 in 2", name, got, builds)
		}
		// After the write the snapshot may hold a delta to merge.
		if got, want := scan(kb.Any, lit("d"), lit("b")), "s1 b g2, s5 d g1"; got != want {
			t.Errorf("%s after a write: quads of b and d = %q, want %q", name, got, want)
		}
	}
}
