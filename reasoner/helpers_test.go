package reasoner

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

const testPrefixes = `@prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
`

// loadTurtle makes a memory dataset holding the Turtle data in the default
// graph.
func loadTurtle(t testing.TB, data string) *native.MemStore {
	t.Helper()
	ds := native.OpenMemory()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(testPrefixes+data), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "test.ttl"}); err != nil {
		t.Fatalf("loading test data: %v", err)
	}
	return ds
}

func mustProgram(t testing.TB, src string) *Program {
	t.Helper()
	prog, err := ParseProgram("test.rules", []byte("@prefix ex: <http://example.org/>.\n"+src), ParseOptions{})
	if err != nil {
		t.Fatalf("rules: %v", err)
	}
	return prog
}

// graphTriples returns the triples of a graph as sorted N-Triples lines.
func graphTriples(t testing.TB, ds kb.Dataset, g kb.Term) []string {
	t.Helper()
	ctx := context.Background()
	id, ok, err := ds.Lookup(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return nil
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: id}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		tq.G = kb.Term{}
		out = append(out, tq.String())
	}
	sort.Strings(out)
	return out
}

func ex(local string) kb.Term { return kb.IRI("http://example.org/" + local) }

// derivationQuads lists the quads that bound a derivation batch's subject
// IDs (not the rule-label quads).
func derivationQuads(t testing.TB, ds kb.Dataset) []string {
	t.Helper()
	var out []string
	for _, l := range graphTriples(t, ds, DerivationsGraph) {
		if strings.Contains(l, "<"+DerivationFirstPredicateIRI+">") || strings.Contains(l, "<"+DerivationLastPredicateIRI+">") {
			out = append(out, l)
		}
	}
	return out
}
