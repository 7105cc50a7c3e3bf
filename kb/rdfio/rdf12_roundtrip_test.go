package rdfio_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// storeQuads reads every quad of ds as terms.
func storeQuads(t *testing.T, ds kb.Dataset) []kb.TermQuad {
	t.Helper()
	ctx := context.Background()
	qs, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	var out []kb.TermQuad
	for _, q := range qs {
		var tq kb.TermQuad
		for i, id := range [4]kb.ID{q.S, q.P, q.O, q.G} {
			term, err := ds.Resolve(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			*[4]*kb.Term{&tq.S, &tq.P, &tq.O, &tq.G}[i] = term
		}
		out = append(out, tq)
	}
	return out
}

// TestRDF12ExportLoadRoundTrip: RDF 1.2 data (triple terms with blank
// nodes and nesting, annotations, base directions) loaded into the native
// store (in memory and on disk, reopened) and exported as N-Quads, TriG,
// N-Triples and Turtle loads back isomorphic to what was loaded (the
// quad-less formats to its merge). RDF/XML and JSON-LD refuse it instead
// of writing something else.
func TestRDF12ExportLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	const fixture = "testdata/rdf12-provenance.trig"
	// Default graph: m1 value; claim1 reifies, producedBy, toolVersion;
	// pu label ×2; reifier reifies, source; r1 states = 9. Named graph:
	// m2 value; anon reifies, compensated, bound; r2 states; b2 p = 6.
	const want = 15
	dir := t.TempDir()
	disk, err := native.Open(ctx, dir+"/db", native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, ds := range map[string]kb.Dataset{"memory": native.OpenMemory(), "disk": disk} {
		t.Run(name, func(t *testing.T) {
			if _, err := rdfio.LoadFile(ctx, ds, fixture, rdfio.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
			if name == "disk" {
				if err := ds.Close(); err != nil {
					t.Fatal(err)
				}
				if ds, err = native.Open(ctx, dir+"/db", native.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			defer ds.Close()
			orig := storeQuads(t, ds)
			if len(orig) != want {
				t.Fatalf("loaded %d statements, want %d", len(orig), want)
			}
			nTriple := 0
			for _, q := range orig {
				if q.O.IsTriple() {
					nTriple++
				}
			}
			if nTriple != 5 { // 3 reifies, 2 states
				t.Errorf("%d statements with a triple term object, want 5", nTriple)
			}
			merge := make([]kb.TermQuad, len(orig))
			for i, q := range orig {
				q.G = kb.DefaultGraph
				merge[i] = q
			}
			for _, format := range []string{rdfio.NQuads, rdfio.TriG, rdfio.NTriples, rdfio.Turtle} {
				var buf bytes.Buffer
				if err := rdfio.Export(ctx, ds, &buf, rdfio.ExportOptions{Format: format}); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				back := native.OpenMemory()
				if _, err := rdfio.Load(ctx, back, bytes.NewReader(buf.Bytes()), rdfio.LoadOptions{Format: format, SourceName: "export." + format}); err != nil {
					t.Fatalf("%s: loading the export: %v\n%s", format, err, buf.String())
				}
				expect := orig
				if format == rdfio.NTriples || format == rdfio.Turtle {
					expect = merge
				}
				if why := rdfio.Isomorphic(storeQuads(t, back), expect); why != "" {
					t.Errorf("%s: the export loads back different: %s\n%s", format, why, buf.String())
				}
				back.Close()
			}
			for _, format := range []string{rdfio.RDFXML, rdfio.JSONLD} {
				err := rdfio.Export(ctx, ds, &bytes.Buffer{}, rdfio.ExportOptions{Format: format})
				if err == nil || !strings.Contains(err.Error(), "RDF 1.2") {
					t.Errorf("%s: %v, want a refusal naming RDF 1.2", format, err)
				}
			}
		})
	}
}

// TestIsomorphicTripleTerms: blank nodes inside triple terms are matched
// with the others: a triple term about _:a where the data says _:a is
// isomorphic to the same with _:x, not to one about a different node.
func TestIsomorphicTripleTerms(t *testing.T) {
	p, o, r := kb.IRI("http://e/p"), kb.IRI("http://e/o"), kb.IRI("http://e/r")
	states := kb.IRI("http://e/states")
	doc := func(inner, outer string) []kb.TermQuad {
		return []kb.TermQuad{
			{S: r, P: states, O: kb.TripleTerm(kb.Blank(inner), p, kb.TripleTerm(kb.Blank(inner), p, o))},
			{S: kb.Blank(outer), P: p, O: o},
		}
	}
	if why := rdfio.Isomorphic(doc("a", "a"), doc("x", "x")); why != "" {
		t.Errorf("renamed blank node: %s", why)
	}
	if why := rdfio.Isomorphic(doc("a", "a"), doc("a", "b")); why == "" {
		t.Error("a triple term about another blank node found isomorphic")
	}
}
