package rdfio_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/internal/earl"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// w3c12Floor lists the W3C RDF 1.2 tests known to fail, each with the
// reason. A listed test that passes fails the run, so the list only
// shrinks.
var w3c12Floor = map[string]string{}

// w3c12Suites are the RDF 1.2 manifests (testdata/w3c/w3c-rdf12, the
// rdf/rdf12 folder of W3C rdf-tests) and the format of their tests. The
// suites' top manifests also include the RDF 1.1 ones, which
// TestW3CRDFSuites runs.
var w3c12Suites = []struct {
	dir    string
	format string
}{
	{"rdf-n-triples/syntax", rdfio.NTriples},
	{"rdf-n-triples/c14n", rdfio.NTriples},
	{"rdf-n-quads/syntax", rdfio.NQuads},
	{"rdf-n-quads/c14n", rdfio.NQuads},
	{"rdf-turtle/syntax", rdfio.Turtle},
	{"rdf-turtle/eval", rdfio.Turtle},
	{"rdf-trig/syntax", rdfio.TriG},
	{"rdf-trig/eval", rdfio.TriG},
	{"rdf-xml/eval", rdfio.RDFXML},
}

// runC14NTest parses the action and writes it back in canonical
// N-Triples or N-Quads, statement by statement in document order, which
// must give the expected file byte for byte.
func runC14NTest(tc w3cTest, format string) string {
	f, err := os.Open(tc.action)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var dec rdfio.Decoder
	var got bytes.Buffer
	var enc rdfio.Encoder
	if format == rdfio.NQuads {
		dec, enc = rdfio.NewNQuadsDecoder(f, rdfio.Options{Source: tc.action}), rdfio.NewNQuadsEncoder(&got, rdfio.EncoderOptions{})
	} else {
		dec, enc = rdfio.NewNTriplesDecoder(f, rdfio.Options{Source: tc.action}), rdfio.NewNTriplesEncoder(&got, rdfio.EncoderOptions{})
	}
	for {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "rejected: " + err.Error()
		}
		if err := enc.Encode(q); err != nil {
			return err.Error()
		}
	}
	if err := enc.Close(); err != nil {
		return err.Error()
	}
	want, err := os.ReadFile(tc.result)
	if err != nil {
		return "cannot read the expected result: " + err.Error()
	}
	if !bytes.Equal(got.Bytes(), want) {
		return "canonical form\n" + got.String() + "want\n" + string(want)
	}
	return ""
}

// TestW3CRDF12Suites runs the W3C RDF 1.2 syntax, evaluation and
// canonical-form tests of N-Triples, N-Quads, Turtle, TriG and RDF/XML;
// with PERFKB_EARL_DIR it writes rdf12.ttl, their EARL report.
func TestW3CRDF12Suites(t *testing.T) {
	root := filepath.Join(filepath.Dir(w3cDir(t)), "w3c-rdf12")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("W3C RDF 1.2 suites not run: %v (testdata/w3c/w3c-rdf12 is part of the repository)", err)
	}
	rep := earl.New()
	defer func() {
		if path, err := rep.WriteIfAsked("rdf12.ttl"); err != nil {
			t.Error(err)
		} else if path != "" {
			t.Logf("EARL report: %s", path)
		}
	}()
	total, passedAll := 0, 0
	for _, suite := range w3c12Suites {
		t.Run(suite.dir, func(t *testing.T) {
			tests := readW3CManifest(t, filepath.Join(root, suite.dir))
			if len(tests) == 0 {
				t.Fatal("the manifest lists no tests")
			}
			passed, floored := 0, 0
			for _, tc := range tests {
				var why string
				if tc.kind == "TestNTriplesPositiveC14N" || tc.kind == "TestNQuadsPositiveC14N" {
					why = runC14NTest(tc, suite.format)
				} else {
					why = runW3CTest(tc, suite.format)
				}
				rep.Add(tc.iri, why == "")
				reason, inFloor := w3c12Floor[suite.dir+"/"+tc.name]
				switch {
				case why == "" && inFloor:
					t.Errorf("%s passes now; remove it from w3c12Floor (%s)", tc.name, reason)
				case why == "":
					passed++
				case inFloor:
					floored++
				default:
					t.Errorf("%s (%s, %s): %s", tc.name, tc.kind, filepath.Base(tc.action), why)
				}
			}
			total += len(tests)
			passedAll += passed
			t.Logf("%s: %d/%d passed, %d known failures (w3c12Floor)", suite.dir, passed, len(tests), floored)
		})
	}
	t.Logf("RDF 1.2: %d/%d passed", passedAll, total)
}
