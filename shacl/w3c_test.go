package shacl

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/internal/earl"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// suiteBase is the base IRI test files are read with, so that test IRIs
// are the ones SHACL implementation reports use
// (urn:x-shacl-test:/core/node/minInclusive-001).
const suiteBase = "urn:x-shacl-test:/"

const (
	mfNS  = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	shtNS = "http://www.w3.org/ns/shacl-test#"
)

// TestW3CSHACL runs the W3C SHACL test suite (testdata/w3c, see
// testdata/README): every sht:Validate entry of the core and sparql
// manifests. A test passes when the validation report is isomorphic to
// the expected one on the properties the suite lists (focus node, result
// path, value, source shape, source constraint component, severity and
// the messages the expected report names), or, where the expected result
// is sht:Failure, when the shapes are refused. The SPARQL section
// (SHACL-SPARQL: sh:sparql constraints and SPARQL-based constraint
// components) is counted separately; a failure in either section fails
// the test unless shaclSPARQLKnown names it.
// Both sections go into the EARL report, failures as failed.
func TestW3CSHACL(t *testing.T) {
	rep := earl.New()
	for _, section := range []string{"core", "sparql"} {
		t.Run(section, func(t *testing.T) {
			files := manifestFiles(t, filepath.Join("testdata", "w3c", section, "manifest.ttl"))
			perDir := map[string][2]int{}
			var dirs []string
			for _, f := range files {
				for _, tc := range runSuiteFile(t, f) {
					dir := filepath.Base(filepath.Dir(f))
					if _, ok := perDir[dir]; !ok {
						dirs = append(dirs, dir)
					}
					c := perDir[dir]
					c[1]++
					reason, known := shaclSPARQLKnown[tc.iri]
					switch {
					case tc.why == "" && known:
						t.Errorf("%s passes now: remove it from shaclSPARQLKnown", tc.iri)
					case tc.why == "":
						c[0]++
					case known:
						t.Logf("not passed (%s): %s: %s", reason, tc.iri, tc.why)
					default:
						t.Errorf("%s: %s", tc.iri, tc.why)
					}
					perDir[dir] = c
					rep.Add(tc.iri, tc.why == "")
				}
			}
			total := [2]int{}
			for _, d := range dirs {
				c := perDir[d]
				t.Logf("%s/%s: %d/%d passed", section, d, c[0], c[1])
				total[0] += c[0]
				total[1] += c[1]
			}
			t.Logf("%s: %d/%d passed", section, total[0], total[1])
		})
	}
	if path, err := rep.WriteIfAsked("shacl.ttl"); err != nil {
		t.Error(err)
	} else if path != "" {
		checkEARL(t, path, rep)
		t.Logf("EARL report: %s", path)
	}
}

// shaclSPARQLKnown are the SHACL-SPARQL tests perfkb does not pass, with
// the reason: none. A test listed here that passes fails the run, so the
// list stays exact.
var shaclSPARQLKnown = map[string]string{}

// manifestFiles follows mf:include from a manifest to the test files.
func manifestFiles(t *testing.T, manifest string) []string {
	t.Helper()
	ds, v, graph := loadSuiteFile(t, manifest)
	defer ds.Close()
	var out []string
	for _, inc := range v.objects(v.id(graph), v.iri(mfNS+"include")) {
		rel := strings.TrimPrefix(v.term(inc).Value, suiteBase)
		path := filepath.Join("testdata", "w3c", filepath.FromSlash(rel))
		sub := manifestFiles(t, path)
		if len(sub) == 0 {
			out = append(out, path)
		}
		out = append(out, sub...)
	}
	if len(out) == 0 && len(v.objects(v.id(graph), v.iri(mfNS+"entries"))) > 0 {
		return nil
	}
	return out
}

// fileIRI is the IRI a test file is read as.
func fileIRI(path string) string {
	rel, _ := filepath.Rel(filepath.Join("testdata", "w3c"), path)
	return suiteBase + filepath.ToSlash(rel)
}

// loadSuiteFile reads a Turtle file into a fresh store, into the graph
// named by its IRI.
func loadSuiteFile(t *testing.T, path string) (*native.MemStore, *view, kb.Term) {
	t.Helper()
	ds := native.OpenMemory()
	g := kb.IRI(fileIRI(path))
	if err := loadInto(ds, path, g); err != nil {
		t.Fatal(err)
	}
	v, err := newView(context.Background(), ds, []kb.Term{g})
	if err != nil {
		t.Fatal(err)
	}
	return ds, v, g
}

func loadInto(ds kb.Dataset, path string, g kb.Term) error {
	_, err := rdfio.LoadFile(context.Background(), ds, path, rdfio.LoadOptions{Format: rdfio.Turtle, BaseIRI: g.Value, Graph: g})
	return err
}

type suiteCase struct{ iri, why string }

// runSuiteFile runs the entries of one test file; why is "" for a pass.
func runSuiteFile(t *testing.T, path string) []suiteCase {
	t.Helper()
	ctx := context.Background()
	ds, v, graph := loadSuiteFile(t, path)
	defer ds.Close()
	var out []suiteCase
	for _, entries := range v.objects(v.id(graph), v.iri(mfNS+"entries")) {
		for _, e := range v.list(entries) {
			iri := v.term(e).Value
			if !v.has(e, v.iri(rdfType), v.iri(shtNS+"Validate")) {
				continue
			}
			out = append(out, suiteCase{iri, runSuiteCase(ctx, ds, v, e, path)})
		}
	}
	return out
}

func runSuiteCase(ctx context.Context, ds kb.Dataset, v *view, e kb.ID, path string) string {
	action, _ := v.object(e, v.iri(mfNS+"action"))
	dataG, _ := v.object(action, v.iri(shtNS+"dataGraph"))
	shapesG, _ := v.object(action, v.iri(shtNS+"shapesGraph"))
	own := fileIRI(path)
	graphs := map[string]bool{}
	for _, g := range []kb.ID{dataG, shapesG} {
		iri := v.term(g).Value
		if iri == own || graphs[iri] {
			continue
		}
		graphs[iri] = true
		file := filepath.Join("testdata", "w3c", filepath.FromSlash(strings.TrimPrefix(iri, suiteBase)))
		if err := loadInto(ds, file, kb.IRI(iri)); err != nil {
			return "loading " + file + ": " + err.Error()
		}
	}
	exact := len(graphs) == 0 // blank nodes of data, shapes and expectation share one load
	expected, _ := v.object(e, v.iri(mfNS+"result"))
	wantFailure := v.term(expected) == kb.IRI(shtNS+"Failure")
	shapes, err := Parse(ctx, ds, []kb.Term{v.term(shapesG)})
	if err == nil {
		var rep *Report
		rep, err = Validate(ctx, ds, shapes, Options{Graphs: []kb.Term{v.term(dataG)}})
		if err == nil {
			if wantFailure {
				return "validation succeeded; the test expects a failure"
			}
			return compareReport(v, expected, rep, exact)
		}
	}
	if wantFailure {
		return ""
	}
	return err.Error()
}

// compareReport says how rep differs from the expected report at node
// want ("" when it does not).
func compareReport(v *view, want kb.ID, rep *Report, exact bool) string {
	wantConforms, _ := v.object(want, v.iri(shConforms))
	if got := v.term(wantConforms).Value == "true"; got != rep.Conforms {
		return "sh:conforms differs"
	}
	messages := map[kb.Term]bool{}
	var wantKeys []string
	for _, r := range v.objects(want, v.iri(shResult)) {
		for _, m := range v.objects(r, v.iri(shResultMessage)) {
			messages[v.term(m)] = true
		}
	}
	termKey := func(t kb.Term) string {
		if t.IsBlank() && !exact {
			return "_:"
		}
		return t.String()
	}
	for _, r := range v.objects(want, v.iri(shResult)) {
		get := func(p string) string {
			o, ok := v.object(r, v.iri(p))
			if !ok {
				return ""
			}
			return termKey(v.term(o))
		}
		path := ""
		if p, ok := v.object(r, v.iri(shResultPath)); ok {
			parsed, err := parsePath(v, p, 0)
			if err != nil {
				return "expected report: " + err.Error()
			}
			path = parsed.String()
		}
		var ms []string
		for _, m := range v.objects(r, v.iri(shResultMessage)) {
			ms = append(ms, v.term(m).String())
		}
		sort.Strings(ms)
		wantKeys = append(wantKeys, strings.Join([]string{get(shFocusNode), path, get(shValue), get(shSourceShape), get(shSourceComponent), get(shResultSeverity), get(shSourceConstraint), strings.Join(ms, ",")}, " | "))
	}
	var gotKeys []string
	for _, r := range rep.Results {
		path := ""
		if r.Path != nil {
			path = r.Path.String()
		}
		value := ""
		if !r.Value.IsZero() {
			value = termKey(r.Value)
		}
		sc := ""
		if !r.SourceConstraint.IsZero() {
			sc = termKey(r.SourceConstraint)
		}
		var ms []string
		for _, m := range r.Messages {
			if messages[m] {
				ms = append(ms, m.String())
			}
		}
		sort.Strings(ms)
		gotKeys = append(gotKeys, strings.Join([]string{termKey(r.Focus), path, value, termKey(r.SourceShape), termKey(kb.IRI(r.Component)), termKey(kb.IRI(r.Severity)), sc, strings.Join(ms, ",")}, " | "))
	}
	sort.Strings(wantKeys)
	sort.Strings(gotKeys)
	if strings.Join(wantKeys, "\n") != strings.Join(gotKeys, "\n") {
		return "results differ:\n  want:\n    " + strings.Join(wantKeys, "\n    ") + "\n  got:\n    " + strings.Join(gotKeys, "\n    ")
	}
	return ""
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

// checkEARL reads the written EARL report back as Turtle: one outcome per
// test run.
func checkEARL(t *testing.T, path string, rep *earl.Report) {
	t.Helper()
	ds := native.OpenMemory()
	defer ds.Close()
	ctx := context.Background()
	if _, err := rdfio.LoadFile(ctx, ds, path, rdfio.LoadOptions{}); err != nil {
		t.Fatalf("EARL report %s is not Turtle: %v", path, err)
	}
	outcome, ok, err := ds.Lookup(ctx, kb.IRI(ontology.EARLNamespace+"outcome"))
	if err != nil || !ok {
		t.Fatalf("EARL report %s has no earl:outcome (%v)", path, err)
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{P: outcome}))
	if err != nil {
		t.Fatal(err)
	}
	if want := rep.Len(); len(quads) != want {
		t.Errorf("EARL report %s: %d outcomes, want %d", path, len(quads), want)
	}
}
