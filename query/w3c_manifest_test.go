package query_test

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// Vocabulary of the W3C test manifests.
const (
	mfNS   = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	qtNS   = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#"
	utNS   = "http://www.w3.org/2009/sparql/tests/test-update#"
	rdfNS  = ontology.RDFNamespace
	rdfsNS = ontology.RDFSNamespace
)

// graph is a tiny in-memory triple index for reading manifests.
type graph struct {
	out map[kb.Term]map[string][]kb.Term
}

func fileIRI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func iriPath(iri string) string {
	u, err := url.Parse(iri)
	if err != nil {
		return iri
	}
	return u.Path
}

// readManifest parses a Turtle manifest with the project's Turtle parser.
func readManifest(path string) (*graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := rdfio.NewTurtleDecoder(f, rdfio.Options{Base: fileIRI(path), Source: path})
	g := &graph{out: map[kb.Term]map[string][]kb.Term{}}
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return g, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s := fromRDFIO(q.S)
		if g.out[s] == nil {
			g.out[s] = map[string][]kb.Term{}
		}
		g.out[s][q.P.Value] = append(g.out[s][q.P.Value], fromRDFIO(q.O))
	}
}

func fromRDFIO(t kb.Term) kb.Term {
	return kb.Term{Kind: kb.TermKind(t.Kind), Value: t.Value, Datatype: t.Datatype, Lang: t.Lang}
}

func (g *graph) all(s kb.Term, p string) []kb.Term { return g.out[s][p] }

func (g *graph) one(s kb.Term, p string) kb.Term {
	if v := g.out[s][p]; len(v) > 0 {
		return v[0]
	}
	return kb.Term{}
}

func (g *graph) list(head kb.Term) []kb.Term {
	var out []kb.Term
	for head.Value != ontology.RDFNil && !head.IsZero() {
		out = append(out, g.one(head, ontology.RDFFirst))
		head = g.one(head, ontology.RDFRest)
	}
	return out
}

// w3cTest is one manifest entry.
type w3cTest struct {
	id        string // local name of the manifest entry (agg-min-02)
	iri       string // the entry's IRI as read (a file: IRI)
	name      string
	kind      string // local name of the rdf:type
	query     string // file path (query or update request)
	data      []string
	graphData map[string]string // graph IRI -> file
	result    string            // result file (queries)
	// update expectations
	resultData      string
	resultGraphData map[string]string
	approved        bool
	// serviceData maps a SERVICE endpoint IRI to the data it serves
	// (qt:serviceData, SPARQL 1.1 Federated Query tests).
	serviceData map[string][]string
}

func readTests(manifest string) ([]w3cTest, error) {
	g, err := readManifest(manifest)
	if err != nil {
		return nil, err
	}
	var entries []kb.Term
	for s, props := range g.out {
		for _, ty := range props[ontology.RDFType] {
			if ty.Value == mfNS+"Manifest" {
				for _, l := range g.all(s, mfNS+"entries") {
					entries = append(entries, g.list(l)...)
				}
			}
		}
	}
	var tests []w3cTest
	for _, e := range entries {
		t := w3cTest{name: g.one(e, mfNS+"name").Value, graphData: map[string]string{}, resultGraphData: map[string]string{}}
		if t.name == "" {
			t.name = e.Value
		}
		t.id = e.Value[strings.LastIndexAny(e.Value, "#/")+1:]
		t.iri = e.Value
		if ty := g.one(e, ontology.RDFType); ty.IsIRI() {
			t.kind = ty.Value[strings.LastIndexAny(ty.Value, "#/")+1:]
		}
		for _, a := range g.all(e, "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#approval") {
			if strings.HasSuffix(a.Value, "Approved") {
				t.approved = true
			}
		}
		action := g.one(e, mfNS+"action")
		if action.IsIRI() {
			t.query = iriPath(action.Value)
		} else {
			if q := g.one(action, qtNS+"query"); !q.IsZero() {
				t.query = iriPath(q.Value)
			}
			if q := g.one(action, utNS+"request"); !q.IsZero() {
				t.query = iriPath(q.Value)
			}
			for _, d := range g.all(action, qtNS+"data") {
				t.data = append(t.data, iriPath(d.Value))
			}
			for _, d := range g.all(action, utNS+"data") {
				t.data = append(t.data, iriPath(d.Value))
			}
			for _, d := range g.all(action, qtNS+"graphData") {
				t.graphData[d.Value] = iriPath(d.Value)
			}
			for _, sd := range g.all(action, qtNS+"serviceData") {
				if t.serviceData == nil {
					t.serviceData = map[string][]string{}
				}
				ep := g.one(sd, qtNS+"endpoint").Value
				for _, d := range g.all(sd, qtNS+"data") {
					t.serviceData[ep] = append(t.serviceData[ep], iriPath(d.Value))
				}
			}
			for _, gd := range g.all(action, utNS+"graphData") {
				t.graphData[g.one(gd, ontology.RDFSLabel).Value] = iriPath(g.one(gd, utNS+"graph").Value)
			}
		}
		res := g.one(e, mfNS+"result")
		switch {
		case res.IsIRI():
			t.result = iriPath(res.Value)
		case !res.IsZero():
			if d := g.one(res, utNS+"data"); !d.IsZero() {
				t.resultData = iriPath(d.Value)
			}
			for _, gd := range g.all(res, utNS+"graphData") {
				t.resultGraphData[g.one(gd, ontology.RDFSLabel).Value] = iriPath(g.one(gd, utNS+"graph").Value)
			}
		}
		tests = append(tests, t)
	}
	return tests, nil
}
