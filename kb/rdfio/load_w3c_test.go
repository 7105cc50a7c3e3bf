package rdfio_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/internal/earl"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/textpos"
)

// w3cFloor lists the W3C RDF 1.1 syntax tests known to fail, each with the
// reason. A listed test that passes fails the run, so the list only shrinks.
var w3cFloor = map[string]string{}

// w3cSuites maps each suite folder to the format its tests are written in.
var w3cSuites = []struct {
	dir    string
	format string
}{
	{"rdf-n-triples", rdfio.NTriples},
	{"rdf-n-quads", rdfio.NQuads},
	{"rdf-turtle", rdfio.Turtle},
	{"rdf-trig", rdfio.TriG},
	{"rdf-xml", rdfio.RDFXML},
}

// w3cDir finds testdata/w3c/w3c-rdf in the module root.
func w3cDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("W3C RDF suites not run: go.mod not found above the test's directory")
		}
		dir = parent
	}
	suites := filepath.Join(dir, "testdata", "w3c", "w3c-rdf")
	if _, err := os.Stat(suites); err != nil {
		t.Fatalf("W3C RDF suites not run: %s is absent (it is part of the repository and holds the W3C rdf-tests rdf11 folders)", suites)
	}
	return suites
}

// w3cTest is one manifest entry.
type w3cTest struct {
	name, kind     string
	iri            string // the test's IRI in EARL reports
	action, result string // local paths
	base           string // the IRI the action is parsed against
}

const (
	mfNS   = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	rdftNS = "http://www.w3.org/ns/rdftest#"
)

// readW3CManifest reads a suite's manifest.ttl with the Turtle parser.
func readW3CManifest(t *testing.T, dir string) []w3cTest {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	abs, _ := filepath.Abs(dir)
	localBase := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs) + "/"}).String()
	dec := rdfio.NewTurtleDecoder(f, rdfio.Options{Base: localBase + "manifest.ttl", Source: "manifest.ttl"})
	props := map[string]map[string]string{}
	testBase := ""
	for {
		q, err := dec.Next()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", dir, err)
		}
		if q.P.Value == mfNS+"assumedTestBase" {
			testBase = q.O.Value
		}
		if props[q.S.Value] == nil {
			props[q.S.Value] = map[string]string{}
		}
		props[q.S.Value][q.P.Value] = q.O.Value
	}
	local := func(iri string) string {
		rel, ok := strings.CutPrefix(iri, localBase)
		if !ok {
			t.Fatalf("manifest IRI %s is outside %s", iri, localBase)
		}
		return rel
	}
	earlBase := testBase
	if earlBase == "" {
		// N-Triples and N-Quads declare no test base; their tests live
		// there too
		earlBase = "https://w3c.github.io/rdf-tests/rdf/rdf11/" + filepath.Base(dir) + "/"
	}
	var tests []w3cTest
	for subj, p := range props {
		kind, ok := strings.CutPrefix(p["http://www.w3.org/1999/02/22-rdf-syntax-ns#type"], rdftNS)
		if !ok || p[mfNS+"action"] == "" {
			continue
		}
		rel := local(p[mfNS+"action"])
		// RDF 1.1 manifests name their tests relative to the manifest;
		// RDF 1.2 ones by absolute IRIs, which EARL uses as they are.
		iri := subj
		if strings.HasPrefix(subj, localBase) {
			iri = earlBase + strings.Replace(local(subj), "manifest.ttl#", "manifest#", 1)
		}
		tc := w3cTest{name: p[mfNS+"name"], kind: kind, action: filepath.Join(dir, rel), base: testBase + rel, iri: iri}
		if r := p[mfNS+"result"]; r != "" {
			tc.result = filepath.Join(dir, local(r))
		}
		tests = append(tests, tc)
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].name < tests[j].name })
	return tests
}

// loadQuads loads a file into a fresh store and reads its quads back.
func loadQuads(path string, format string, base string) ([]kb.TermQuad, error) {
	ctx := context.Background()
	ds := kbtest.NewMemory()
	if _, err := rdfio.LoadFile(ctx, ds, path, rdfio.LoadOptions{Format: format, BaseIRI: base}); err != nil {
		return nil, err
	}
	it := ds.Match(ctx, kb.Pattern{})
	defer it.Close()
	var out []kb.TermQuad
	for it.Next() {
		q := it.Quad()
		var tq kb.TermQuad
		for i, id := range [4]kb.ID{q.S, q.P, q.O, q.G} {
			term, err := ds.Resolve(ctx, id)
			if err != nil {
				return nil, err
			}
			*[4]*kb.Term{&tq.S, &tq.P, &tq.O, &tq.G}[i] = term
		}
		out = append(out, tq)
	}
	return out, it.Err()
}

// runW3CTest runs one test, returning why it failed ("" when it passed).
func runW3CTest(tc w3cTest, format string) string {
	got, err := loadQuads(tc.action, format, tc.base)
	switch {
	case strings.Contains(tc.kind, "Negative"):
		if err == nil {
			return fmt.Sprintf("accepted (%d statements); want a syntax error", len(got))
		}
		if _, ok := err.(*textpos.Error); !ok {
			return fmt.Sprintf("error %v is not a *textpos.Error", err)
		}
		return ""
	case err != nil:
		return fmt.Sprintf("rejected: %v", err)
	case strings.HasSuffix(tc.kind, "Eval"):
		resultFormat := rdfio.NTriples
		if format == rdfio.NQuads || format == rdfio.TriG {
			resultFormat = rdfio.NQuads
		}
		want, err := loadQuads(tc.result, resultFormat, "")
		if err != nil {
			return fmt.Sprintf("cannot read the expected result: %v", err)
		}
		if why := rdfio.Isomorphic(got, want); why != "" {
			return "not isomorphic to the expected result: " + why
		}
	}
	return ""
}

func TestW3CRDFSuites(t *testing.T) {
	root := w3cDir(t)
	rep := earl.New()
	defer func() {
		if path, err := rep.WriteIfAsked("rdf11.ttl"); err != nil {
			t.Error(err)
		} else if path != "" {
			t.Logf("EARL report: %s", path)
		}
	}()
	for _, suite := range w3cSuites {
		t.Run(suite.dir, func(t *testing.T) {
			tests := readW3CManifest(t, filepath.Join(root, suite.dir))
			if len(tests) == 0 {
				t.Fatal("the manifest lists no tests")
			}
			passed, floored := 0, 0
			for _, tc := range tests {
				why := runW3CTest(tc, suite.format)
				rep.Add(tc.iri, why == "")
				reason, inFloor := w3cFloor[tc.name]
				switch {
				case why == "" && inFloor:
					t.Errorf("%s passes now; remove it from w3cFloor (%s)", tc.name, reason)
				case why == "":
					passed++
				case inFloor:
					floored++
				default:
					t.Errorf("%s (%s, %s): %s", tc.name, tc.kind, filepath.Base(tc.action), why)
				}
			}
			t.Logf("%s: %d/%d passed, %d known failures (w3cFloor)", suite.dir, passed, len(tests), floored)
		})
	}
}
