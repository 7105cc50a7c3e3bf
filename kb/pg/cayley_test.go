package pg_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cayleygraph/cayley"
	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/graphtest"
	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/ontology"
)

// newCayleySchema names a fresh schema of the shared database, dropped
// when t ends.
func newCayleySchema(t testing.TB) string {
	t.Helper()
	if server == nil {
		t.Skip(skipReason)
	}
	schema := fmt.Sprintf("c%d", schemas.Add(1))
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
	})
	return schema
}

// TestCayleyConformance runs Cayley's backend conformance suite on the
// store opened through Cayley's registry, as cayley.NewGraph would. The
// path tests read data/testdata.nq relative to the working directory.
func TestCayleyConformance(t *testing.T) {
	if server == nil {
		t.Skip(skipReason)
	}
	t.Chdir("../cayleyqs/testdata/cayley")
	graphtest.TestAll(t, func(t testing.TB) (graph.QuadStore, graph.Options, func()) {
		opts := graph.Options{"schema": newCayleySchema(t)}
		if err := graph.InitQuadStore(pg.CayleyBackend, dsn, opts); err != nil {
			t.Fatal(err)
		}
		qs, err := graph.NewQuadStore(pg.CayleyBackend, dsn, opts)
		if err != nil {
			t.Fatal(err)
		}
		return qs, nil, func() { qs.Close() }
	}, &graphtest.Config{})
}

// TestCayleySharesStore writes through kb.Dataset and through Cayley on
// one database and reads each side's quads from the other: a quad without
// a label lands in kb.DefaultGraph, Cayley's native values become
// xsd-typed literals, and a literal in a non-canonical form keeps it.
func TestCayleySharesStore(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	const ex = "http://example.org/"
	ids, err := kb.InternQuads(ctx, s, []kb.TermQuad{
		{S: kb.IRI(ex + "run1"), P: kb.IRI(ex + "threads"), O: kb.Literal("64", ontology.XSDInteger)},
		{S: kb.IRI(ex + "run2"), P: kb.IRI(ex + "threads"), O: kb.Literal("0032", ontology.XSDInteger)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	h, err := cayley.NewGraph(pg.CayleyBackend, dsn, graph.Options{"schema": s.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	vals, err := path.StartPath(h, quad.IRI(ex+"run1")).Out(quad.IRI(ex + "threads")).Iterate(ctx).AllValues(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 1 || vals[0] != quad.Int(64) {
		t.Errorf("run1 threads = %v; want [64]", vals)
	}
	vals, err = path.StartPath(h, quad.IRI(ex+"run2")).Out(quad.IRI(ex + "threads")).Iterate(ctx).AllValues(h)
	if err != nil {
		t.Fatal(err)
	}
	if want := (quad.TypedString{Value: "0032", Type: ontology.XSDInteger}); len(vals) != 1 || vals[0] != want {
		t.Errorf("run2 threads = %v; want the lexical form kept: %v", vals, want)
	}

	if err := h.AddQuadSet([]quad.Quad{
		quad.Make(quad.IRI(ex+"run3"), quad.IRI(ex+"threads"), 16, nil),
		quad.Make(quad.IRI(ex+"run3"), quad.IRI(ex+"label"), quad.LangString{Value: "Lauf", Lang: "de"}, quad.IRI(ex+"g")),
	}); err != nil {
		t.Fatal(err)
	}
	// Adding a stored quad without IgnoreDup is Cayley's "quad exists"
	// error, and the delta it came with is not written.
	err = h.QuadStore.ApplyDeltas([]graph.Delta{
		{Quad: quad.Make(quad.IRI(ex+"run4"), quad.IRI(ex+"threads"), 8, nil), Action: graph.Add},
		{Quad: quad.Make(quad.IRI(ex+"run3"), quad.IRI(ex+"threads"), 16, nil), Action: graph.Add},
	}, graph.IgnoreOpts{})
	if !graph.IsQuadExist(err) {
		t.Errorf("adding a stored quad: %v; want Cayley's quad-exists error", err)
	}
	for _, tc := range []struct {
		q    kb.TermQuad
		want int
	}{
		{kb.TermQuad{S: kb.IRI(ex + "run3"), P: kb.IRI(ex + "threads"), O: kb.Literal("16", ontology.XSDInteger), G: kb.DefaultGraph}, 1},
		{kb.TermQuad{S: kb.IRI(ex + "run3"), P: kb.IRI(ex + "label"), O: kb.LangLiteral("Lauf", "de"), G: kb.IRI(ex + "g")}, 1},
		{kb.TermQuad{S: kb.IRI(ex + "run4"), P: kb.IRI(ex + "threads"), O: kb.Literal("8", ontology.XSDInteger), G: kb.DefaultGraph}, 0},
	} {
		var p kb.Pattern
		found := true
		for i, term := range []kb.Term{tc.q.S, tc.q.P, tc.q.O, tc.q.G} {
			id, ok, err := s.Lookup(ctx, term)
			if err != nil {
				t.Fatal(err)
			}
			found = found && ok
			switch i {
			case 0:
				p.S = id
			case 1:
				p.P = id
			case 2:
				p.O = id
			case 3:
				p.G = id
			}
		}
		n := int64(0)
		if found {
			if n, err = s.Count(ctx, p, true); err != nil {
				t.Fatal(err)
			}
		}
		if n != int64(tc.want) {
			t.Errorf("%v: %d stored; want %d", tc.q, n, tc.want)
		}
	}
	if st, err := s.Stats(ctx); err != nil || st.Quads != 4 {
		t.Errorf("Stats.Quads = %d, %v; want 4", st.Quads, err)
	}
}
