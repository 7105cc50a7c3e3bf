package query_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/internal/earl"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// w3c12Root is the W3C SPARQL 1.2 test suites' copy in the repository
// (w3c/rdf-tests sparql/sparql12).
const w3c12Root = "../testdata/w3c/w3c-sparql12"

// w3c12Suites lists the SPARQL 1.2 suites in the order of their top
// manifest: name → manifest.
func w3c12Suites() []struct{ name, manifest string } {
	var out []struct{ name, manifest string }
	for _, d := range []string{
		"grouping", "codepoint-escapes", "syntax-triple-terms-negative", "syntax-triple-terms-positive",
		"eval-triple-terms", "expression", "lang-basedir", "rdf11", "version", "syntax",
	} {
		out = append(out, struct{ name, manifest string }{"sparql12/" + d, filepath.Join(w3c12Root, d, "manifest.ttl")})
	}
	return out
}

// earl12TestIRI is the IRI of a SPARQL 1.2 test in W3C reports, from the
// file: IRI its manifest entry was read with.
func earl12TestIRI(local string) string {
	if _, rel, ok := strings.Cut(local, "/w3c-sparql12/"); ok {
		return "https://w3c.github.io/rdf-tests/sparql/sparql12/" + strings.Replace(rel, "manifest.ttl#", "manifest#", 1)
	}
	return local
}

// TestW3CSPARQL12 runs the W3C SPARQL 1.2 suites (syntax, evaluation with
// triple terms, the new functions, results with triple terms) on the
// native store's in-memory index and the reference store, each with and
// without the optimizer, against the same floor file as TestW3C
// (testdata/w3c-floor.txt, suites named sparql12/…). Results are compared
// by RDF term equality; blank nodes, also inside triple terms, up to
// renaming.
func TestW3CSPARQL12(t *testing.T) {
	if _, err := os.Stat(w3c12Root); err != nil {
		t.Fatalf("W3C SPARQL 1.2 test suites not found at %s (they are part of the repository): %v", w3c12Root, err)
	}
	stores := []struct {
		name     string
		newStore func() kb.Dataset
	}{
		{"memory", func() kb.Dataset { return kbtest.NewMemory() }},
		{"native-memory", func() kb.Dataset { return native.OpenMemory() }},
	}
	for _, store := range stores {
		for _, noOpt := range []bool{false, true} {
			name := store.name
			if noOpt {
				name += "/no-optimize"
			}
			var rep *earl.Report
			if store.name == "native-memory" && !noOpt {
				rep = earl.New()
			}
			t.Run(name, func(t *testing.T) {
				runSuites(t, w3c12Suites(), rep, earl12TestIRI, func(tc w3cTest) (outcome, string) { return runW3C(tc, store.newStore, noOpt) })
				if rep == nil {
					return
				}
				if path, err := rep.WriteIfAsked("sparql12.ttl"); err != nil {
					t.Error(err)
				} else if path != "" {
					checkEARL(t, path)
					t.Logf("EARL report: %s", path)
				}
			})
		}
	}
}

// quadData reports whether a test's data holds named graphs of its own
// (TriG or N-Quads, as SPARQL 1.2 tests give with qt:data): they are the
// dataset's named graphs.
func quadData(files []string) bool {
	for _, f := range files {
		switch strings.ToLower(filepath.Ext(f)) {
		case ".trig", ".nq":
			return true
		}
	}
	return false
}

// loadGraphs reads a TriG or N-Quads file into its graphs' triples.
func loadGraphs(ctx context.Context, path string) (map[kb.Term][]kb.Triple, error) {
	ds := native.OpenMemory()
	defer ds.Close()
	if _, err := rdfio.LoadFile(ctx, ds, path, rdfio.LoadOptions{}); err != nil {
		return nil, err
	}
	graphs, err := ds.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[kb.Term][]kb.Triple{}
	for _, g := range graphs {
		name, err := ds.Resolve(ctx, g)
		if err != nil {
			return nil, err
		}
		if out[name], err = graphTriples(ctx, ds, g); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkEARL reads an EARL report back with the Turtle parser: every test
// of the suites has one assertion with an outcome.
func checkEARL(t *testing.T, path string) {
	t.Helper()
	g, err := readManifest(path)
	if err != nil {
		t.Fatalf("EARL report %s is not Turtle: %v", path, err)
	}
	tests, outcomes := map[string]bool{}, 0
	for _, props := range g.out {
		for _, ty := range props[ontology.RDFType] {
			if ty.Value == ontology.EARLNamespace+"Assertion" {
				for _, tt := range props[ontology.EARLNamespace+"test"] {
					tests[tt.Value] = true
				}
			}
		}
		outcomes += len(props[ontology.EARLNamespace+"outcome"])
	}
	want := 0
	for _, s := range w3c12Suites() {
		ts, err := readTests(s.manifest)
		if err != nil {
			t.Fatal(err)
		}
		want += len(ts)
	}
	if len(tests) != want || outcomes != want {
		t.Errorf("EARL report %s: %d tests and %d outcomes, want %d of each", path, len(tests), outcomes, want)
	}
}
