package eval

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

func TestCheckIRI(t *testing.T) {
	for _, tc := range []struct {
		iri string
		ok  bool
	}{
		{"http://e/x", true},
		{"urn:x-perfkb:sites", true},
		{"http://e/é", true},
		{"http://a b", false},
		{"http://a\n<c", false},
		{"http://e/<x>", false},
		{`http://e/"q"`, false},
		{"http://e/{x}", false},
		{"http://e/a\\b", false},
		{"http://e/\x7f", false},
		{"relative/x", false},
		{"", false},
	} {
		if err := kb.CheckIRI(tc.iri); (err == nil) != tc.ok {
			t.Errorf("CheckIRI(%q) = %v, want ok %v", tc.iri, err, tc.ok)
		}
	}
}

// TestWritePathsRefuseBadIRIs: each write path refuses (or, where SPARQL
// says so, leaves unbound) an IRI that no export could write back, and a
// store built through all of them survives export then load in every
// format: the reloaded store's sorted N-Quads equal the original's (for
// the triples formats, the original's merged triples).
func TestWritePathsRefuseBadIRIs(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	defer ds.Close()
	update := func(text string) error {
		u, err := syntax.ParseUpdate(text, syntax.Options{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		_, err = Update(ctx, ds, u, Options{})
		return err
	}
	load := func(format string, doc string) error {
		_, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: format, BaseIRI: "http://e/base"})
		return err
	}

	// Good writes through every path.
	if err := update(`INSERT DATA { <http://e/s> <http://e/p> "x" . GRAPH <http://e/g> { <http://e/s> <http://e/p> "7"^^<http://www.w3.org/2001/XMLSchema#integer> } }`); err != nil {
		t.Fatal(err)
	}
	if err := update(`INSERT { <http://e/s> <http://e/made> ?i } WHERE { BIND(IRI("http://e/ok") AS ?i) }`); err != nil {
		t.Fatal(err)
	}
	if err := load(rdfio.RDFXML, `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><rdf:Description rdf:about="http://e/r"><e:link rdf:resource="http://e/t"/></rdf:Description></rdf:RDF>`); err != nil {
		t.Fatal(err)
	}
	if err := load("jsonld", `{"@id": "http://e/j", "http://e/p": {"@id": "http://e/k"}}`); err != nil {
		t.Fatal(err)
	}
	before, _ := ds.Count(ctx, kb.Pattern{}, true)

	// Bad IRIs: IRI() is an expression error, so the template triple is
	// not made; RDF/XML refuses the document; JSON-LD drops the statement
	// (JSON-LD 1.1 toRdf).
	if err := update(`INSERT { <http://e/s> <http://e/bad> ?i } WHERE { BIND(IRI("http://a b>\n<c") AS ?i) }`); err != nil {
		t.Fatal(err)
	}
	if err := update(`INSERT { ?i <http://e/bad> "v" } WHERE { BIND(IRI("x y") AS ?i) }`); err != nil {
		t.Fatal(err)
	}
	err := load(rdfio.RDFXML, `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><rdf:Description rdf:about="http://e/r2"><e:link rdf:resource="http://a b&#10;c"/></rdf:Description></rdf:RDF>`)
	if err == nil || !strings.Contains(err.Error(), "not allowed in an IRI") {
		t.Errorf("RDF/XML with rdf:resource=\"http://a b\\nc\": err %v, want a refusal", err)
	}
	if err := load("jsonld", `{"@id": "http://e/j2", "http://e/p": {"@id": "http://a b"}}`); err != nil {
		t.Fatal(err)
	}
	if after, _ := ds.Count(ctx, kb.Pattern{}, true); after != before {
		t.Errorf("the bad writes changed the store: %d quads, want %d", after, before)
	}
	// The update path itself, for terms that reach a template from
	// anywhere else (a remote answer): refused, store unchanged.
	ov := newOverlay(ds)
	if err := ov.addTerms(ctx, []kb.TermQuad{{S: kb.IRI("http://e/s"), P: kb.IRI("http://e/p"), O: kb.IRI("http://a b"), G: kb.DefaultGraph}}); err == nil {
		t.Error("addTerms took an IRI with a space")
	}

	want := exportLines(t, ds, rdfio.NQuads)
	wantTriples := exportLines(t, ds, rdfio.NTriples)
	for _, format := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle, rdfio.TriG, rdfio.RDFXML} {
		t.Run(string(format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := rdfio.Export(ctx, ds, &buf, rdfio.ExportOptions{Format: format}); err != nil {
				t.Fatal(err)
			}
			dst := native.OpenMemory()
			defer dst.Close()
			if _, err := rdfio.Load(ctx, dst, &buf, rdfio.LoadOptions{Format: format}); err != nil {
				t.Fatalf("loading the export: %v", err)
			}
			got, exp := exportLines(t, dst, rdfio.NQuads), want
			if format != rdfio.NQuads && format != rdfio.TriG {
				exp = wantTriples
			}
			if strings.Join(got, "\n") != strings.Join(exp, "\n") {
				t.Errorf("export → load in %s:\ngot  %s\nwant %s", format, strings.Join(got, "\n     "), strings.Join(exp, "\n     "))
			}
		})
	}
}

// exportLines is ds in N-Quads or N-Triples, one statement a line, sorted.
func exportLines(t *testing.T, ds kb.Dataset, format string) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := rdfio.Export(context.Background(), ds, &buf, rdfio.ExportOptions{Format: format}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sort.Strings(lines)
	return lines
}
