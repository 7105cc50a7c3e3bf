package reasoner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// TestExplainAcrossBatches derives more triples than one derivation batch
// holds, over subjects that are split between batches, with a small
// BatchSize so that one round's records are also split between Applies,
// and checks every triple's explanation against the rule that must have
// made it.
func TestExplainAcrossBatches(t *testing.T) {
	const n = 3*recordBatch/2 + 7
	var src strings.Builder
	src.WriteString("ex:Dog rdfs:subClassOf ex:Mammal . ex:Mammal rdfs:subClassOf ex:Animal .\n")
	for i := range n {
		fmt.Fprintf(&src, "ex:d%d rdf:type ex:Dog .\n", i)
	}
	prog := mustProgram(t, `
		[sub: (?c rdfs:subClassOf ?d), (?x rdf:type ?c) -> (?x rdf:type ?d)]
		[pair: (?x rdf:type ex:Mammal), (?x rdf:type ex:Dog) -> (?x ex:pet ex:yes)]`)
	// 0: one Apply per round, records split into batch literals;
	// 300: each round's writes split between Applies too.
	for _, batchSize := range []int{0, 300} {
		t.Run(fmt.Sprint(batchSize), func(t *testing.T) { explainDogs(t, src.String(), prog, batchSize, n) })
	}
}

func explainDogs(t *testing.T, src string, prog *Program, batchSize, n int) {
	ctx := context.Background()
	ds := loadTurtle(t, src)
	sum, err := Run(ctx, ds, prog, Options{BatchSize: batchSize})
	if err != nil {
		t.Fatal(err)
	}
	// Mammal and Animal for each dog (two rounds) and one pet triple each.
	if sum.Derived != int64(3*n) {
		t.Fatalf("derived %d, want %d", sum.Derived, 3*n)
	}
	typ := kb.IRI(ontology.RDFType)
	for _, i := range []int{0, 1, recordBatch - 1, recordBatch, n - 1} {
		d := ex(fmt.Sprintf("d%d", i))
		ders, err := Explain(ctx, ds, d)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, der := range ders {
			der.Format(&b, "")
		}
		s, dog, mammal, animal := nt(d), nt(ex("Dog")), nt(ex("Mammal")), nt(ex("Animal"))
		ty, sc := nt(typ), nt(kb.IRI(ontology.RDFSSubClassOf))
		// sorted by predicate and object: ex:pet before rdf:type
		want := s + " " + nt(ex("pet")) + " " + nt(ex("yes")) + " .   [rule pair]\n" +
			"    " + s + " " + ty + " " + mammal + " .   [rule sub]\n" +
			"        " + dog + " " + sc + " " + mammal + " .   [asserted]\n" +
			"        " + s + " " + ty + " " + dog + " .   [asserted]\n" +
			"    " + s + " " + ty + " " + dog + " .   [asserted]\n" +
			s + " " + ty + " " + animal + " .   [rule sub]\n" +
			"    " + mammal + " " + sc + " " + animal + " .   [asserted]\n" +
			"    " + s + " " + ty + " " + mammal + " .   [rule sub]\n" +
			"        " + dog + " " + sc + " " + mammal + " .   [asserted]\n" +
			"        " + s + " " + ty + " " + dog + " .   [asserted]\n" +
			s + " " + ty + " " + mammal + " .   [rule sub]\n" +
			"    " + dog + " " + sc + " " + mammal + " .   [asserted]\n" +
			"    " + s + " " + ty + " " + dog + " .   [asserted]\n"
		if b.String() != want {
			t.Errorf("d%d:\n%s\nwant:\n%s", i, b.String(), want)
		}
	}
}

// TestExplainReadsTermRecords reads a record in the format of stores
// written before derivation batches (one literal of terms per triple).
func TestExplainReadsTermRecords(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:rex rdf:type ex:Dog . ex:Dog rdfs:subClassOf ex:Mammal .`)
	typ := kb.IRI(ontology.RDFType)
	rec := encodeRecord("old rule", typ, ex("Mammal"), []kb.Triple{
		{S: ex("Dog"), P: kb.IRI(ontology.RDFSSubClassOf), O: ex("Mammal")},
		{S: ex("rex"), P: typ, O: ex("Dog")},
	})
	quads, err := kb.InternQuads(ctx, ds, []kb.TermQuad{
		{S: ex("rex"), P: typ, O: ex("Mammal"), G: kb.InferredGraph},
		{S: ex("rex"), P: kb.IRI(DerivationPredicateIRI), O: rec, G: DerivationsGraph},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Add: quads}); err != nil {
		t.Fatal(err)
	}
	d, err := ExplainTriple(ctx, ds, kb.Triple{S: ex("rex"), P: typ, O: ex("Mammal")})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rule != "old rule" || len(d.Premises) != 2 || !d.Premises[0].Asserted || !d.Premises[1].Asserted {
		t.Errorf("legacy record: %+v", d)
	}
}

func nt(t kb.Term) string { return t.String() }

// TestExplainAfterReopen explains from a store on disk that was closed
// after the run and opened again (a store keeps only the terms its quads
// use, so every ID a record names must be in a quad).
func TestExplainAfterReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ds, err := native.Open(ctx, dir, native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := "@prefix ex: <http://example.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\nex:rex a ex:Dog . ex:Dog rdfs:subClassOf ex:Mammal .\n"
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(src), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: ex("g")}); err != nil {
		t.Fatal(err)
	}
	prog := mustProgram(t, `[sub: (?c rdfs:subClassOf ?d), (?x rdf:type ?c) -> (?x rdf:type ?d)]`)
	if _, err := Run(ctx, ds, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	if ds, err = native.Open(ctx, dir, native.Options{}); err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	d, err := ExplainTriple(ctx, ds, kb.Triple{S: ex("rex"), P: kb.IRI(ontology.RDFType), O: ex("Mammal")})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rule != "sub" || len(d.Premises) != 2 || !d.Premises[0].Asserted || !d.Premises[1].Asserted {
		t.Errorf("after reopening: %+v", d)
	}
}

// TestExplainReadsSubjectIndexedBatches reads batches in the format of
// stores written before the range quads: one quad per distinct subject of
// a batch, S <urn:x-perfkb:derivation> BATCH. The test rewrites a run's
// range quads into that form and expects the same explanations.
func TestExplainReadsSubjectIndexedBatches(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:Dog rdfs:subClassOf ex:Mammal . ex:a rdf:type ex:Dog . ex:b rdf:type ex:Dog . ex:c rdf:type ex:Dog .`)
	prog := mustProgram(t, `[sub: (?c rdfs:subClassOf ?d), (?x rdf:type ?c) -> (?x rdf:type ?d)]`)
	if _, err := Run(ctx, ds, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	explainAll := func() string {
		var b strings.Builder
		for _, s := range []string{"a", "b", "c"} {
			ders, err := Explain(ctx, ds, ex(s))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ders {
				d.Format(&b, "")
			}
		}
		return b.String()
	}
	before := explainAll()
	if strings.Count(before, "[rule sub]") != 3 {
		t.Fatalf("want 3 derivations by rule sub:\n%s", before)
	}
	ids, err := ds.Intern(ctx, []kb.Term{DerivationsGraph, kb.IRI(DerivationFirstPredicateIRI), kb.IRI(DerivationLastPredicateIRI), kb.IRI(DerivationPredicateIRI)})
	if err != nil {
		t.Fatal(err)
	}
	var d kb.Delta
	for _, p := range ids[1:3] {
		quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{P: p, G: ids[0]}))
		if err != nil {
			t.Fatal(err)
		}
		d.Remove = append(d.Remove, quads...)
	}
	if len(d.Remove) != 2 {
		t.Fatalf("%d range quads, want 2 (one batch: first and last subject)", len(d.Remove))
	}
	batch := d.Remove[0].O
	for _, s := range []string{"a", "b", "c"} {
		sid, ok, err := ds.Lookup(ctx, ex(s))
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		d.Add = append(d.Add, kb.Quad{S: sid, P: ids[3], O: batch, G: ids[0]})
	}
	if err := ds.Apply(ctx, d); err != nil {
		t.Fatal(err)
	}
	if after := explainAll(); after != before {
		t.Errorf("subject-indexed batches explain\n%s\nwant\n%s", after, before)
	}
}
