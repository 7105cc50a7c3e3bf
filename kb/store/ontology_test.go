package store

import (
	"context"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
)

func TestEnsureOntology(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	st, err := CheckOntology(ctx, ds)
	if err != nil || st.Current() || st.Stored != "" {
		t.Fatalf("fresh store: %+v, %v; want no stored ontology", st, err)
	}
	wrote, err := EnsureOntology(ctx, ds)
	if err != nil || !wrote {
		t.Fatalf("EnsureOntology on a fresh store: wrote=%v err=%v", wrote, err)
	}
	graph, ok, _ := ds.Lookup(ctx, kb.IRI(OntologyGraphIRI))
	if !ok {
		t.Fatal("no ontology graph after EnsureOntology")
	}
	n, _ := ds.Count(ctx, kb.Pattern{G: graph}, true)
	st, _ = CheckOntology(ctx, ds)
	if !st.Current() || n != int64(st.Triples)+1 {
		t.Fatalf("after EnsureOntology: %+v, graph holds %d quads, want %d + the digest", st, n, st.Triples)
	}
	// Known axioms are there: MPCodeRegion ⊑ SpecificCodeRegion.
	mp, _, _ := ds.Lookup(ctx, kb.IRI(ontology.MPCodeRegion))
	sub, _, _ := ds.Lookup(ctx, kb.IRI(ontology.RDFSSubClassOf))
	spec, _, _ := ds.Lookup(ctx, kb.IRI(ontology.SpecificCodeRegion))
	if c, _ := ds.Count(ctx, kb.Pattern{S: mp, P: sub, O: spec, G: graph}, true); c != 1 {
		t.Fatalf("MPCodeRegion subClassOf SpecificCodeRegion: %d quads, want 1", c)
	}
	if wrote, err := EnsureOntology(ctx, ds); err != nil || wrote {
		t.Fatalf("EnsureOntology on a current store: wrote=%v err=%v, want no write", wrote, err)
	}

	// An older ontology (another digest, an extra triple) is replaced whole.
	digestP, _, _ := ds.Lookup(ctx, kb.IRI(ontologyDigestIRI))
	old, _ := kb.Collect(ds.Match(ctx, kb.Pattern{S: graph, P: digestP, G: graph}))
	stale, err := kb.InternQuads(ctx, ds, []kb.TermQuad{
		{S: kb.IRI(OntologyGraphIRI), P: kb.IRI(ontologyDigestIRI), O: kb.String("old"), G: kb.IRI(OntologyGraphIRI)},
		{S: kb.IRI("http://e/Retired"), P: kb.IRI("http://e/p"), O: kb.IRI("http://e/o"), G: kb.IRI(OntologyGraphIRI)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Remove: old, Add: stale}); err != nil {
		t.Fatal(err)
	}
	if st, _ := CheckOntology(ctx, ds); st.Current() || st.Stored != "old" {
		t.Fatalf("stale store reported %+v", st)
	}
	if wrote, err := EnsureOntology(ctx, ds); err != nil || !wrote {
		t.Fatalf("EnsureOntology on a stale store: wrote=%v err=%v", wrote, err)
	}
	if n2, _ := ds.Count(ctx, kb.Pattern{G: graph}, true); n2 != n {
		t.Fatalf("after the upgrade the graph holds %d quads, want %d (old content removed)", n2, n)
	}
}
