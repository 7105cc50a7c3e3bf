package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/server/graphstore"
)

// loadTurtle loads Turtle text into a graph of ds.
func loadTurtle(t *testing.T, ds kb.Dataset, graph, text string) {
	t.Helper()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(text), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: kb.IRI(graph)}); err != nil {
		t.Fatal(err)
	}
}

// graphLines returns the sorted N-Triples lines of a graph, read straight
// from the store.
func graphLines(t *testing.T, ds kb.Dataset, graph kb.Term) []string {
	t.Helper()
	var lines []string
	err := graphstore.New(ds).Triples(context.Background(), graph, func(tr kb.Triple) error {
		lines = append(lines, tr.S.String()+" "+tr.P.String()+" "+tr.O.String()+" .")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return lines
}

const (
	siteGraph   = "http://example.org/site/vienna"
	siteGraphQ  = "?graph=http%3A%2F%2Fexample.org%2Fsite%2Fvienna"
	turtleDoc   = "@prefix p: <" + PerfontoNS + "> .\np:rs1 a p:RegionSummary ;\n  p:hasMetricName \"wtime\" ;\n  p:hasMetricValue 3.5E8 .\n"
	ntriplesDoc = "<http://x/a> <http://x/p> \"one\" .\n<http://x/b> <http://x/p> \"two\"@en .\n"
)

func TestGraphStoreRoundTrip(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	g := kb.IRI(siteGraph)

	// PUT creates the graph.
	rec := do(srv, "PUT", "/data"+siteGraphQ, "text/turtle", turtleDoc, bearer...)
	if rec.Code != http.StatusCreated {
		t.Fatalf("PUT: status %d: %s", rec.Code, rec.Body)
	}
	var resp struct {
		Data graphstore.GraphChange `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Data.Added != 3 || !resp.Data.Created {
		t.Fatalf("PUT answer %s (%v)", rec.Body, err)
	}
	if n := len(graphLines(t, mem, g)); n != 3 {
		t.Fatalf("store holds %d triples, want 3", n)
	}

	// GET in every format.
	stored := graphLines(t, mem, g)
	for _, tc := range []struct {
		accept string
		format string
	}{
		{"", rdfio.Turtle},
		{"text/turtle", rdfio.Turtle},
		{"application/n-triples", rdfio.NTriples},
		{"application/n-quads", rdfio.NQuads},
		{"application/rdf+xml", rdfio.RDFXML},
		{"application/ld+json", rdfio.JSONLD},
	} {
		rec := do(srv, "GET", "/data"+siteGraphQ, "", "", "Accept", tc.accept)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d", tc.accept, rec.Code)
		}
		if tc.format == rdfio.NTriples {
			golden(t, "gsp.nt", sortedBody(rec.Body.String()))
		}
		// Every format reads back to the same graph.
		back := native.OpenMemory()
		if _, err := rdfio.Load(context.Background(), back, rec.Body, rdfio.LoadOptions{Format: tc.format, Graph: g}); err != nil {
			t.Fatalf("GET %s: output does not parse: %v", tc.accept, err)
		}
		if got := graphLines(t, back, g); strings.Join(got, "\n") != strings.Join(stored, "\n") {
			t.Errorf("GET %s read back:\n%s\nwant:\n%s", tc.accept, strings.Join(got, "\n"), strings.Join(stored, "\n"))
		}
	}

	// HEAD answers like GET without a body.
	head := do(srv, "HEAD", "/data"+siteGraphQ, "", "")
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("X-Triples") != "3" {
		t.Errorf("HEAD: status %d, %d body bytes, X-Triples %q", head.Code, head.Body.Len(), head.Header().Get("X-Triples"))
	}

	// POST appends.
	rec = do(srv, "POST", "/data"+siteGraphQ, "application/n-triples", ntriplesDoc, bearer...)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST: status %d: %s", rec.Code, rec.Body)
	}
	if n := len(graphLines(t, mem, g)); n != 5 {
		t.Fatalf("after POST: %d triples, want 5", n)
	}

	// PUT replaces.
	rec = do(srv, "PUT", "/data"+siteGraphQ, "application/n-triples", ntriplesDoc, bearer...)
	if rec.Code != http.StatusOK {
		t.Fatalf("PUT replace: status %d: %s", rec.Code, rec.Body)
	}
	want := []string{`<http://x/a> <http://x/p> "one" .`, `<http://x/b> <http://x/p> "two"@en .`}
	if got := graphLines(t, mem, g); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after replace:\n%s", strings.Join(got, "\n"))
	}

	// DELETE drops; the graph is then gone.
	rec = do(srv, "DELETE", "/data"+siteGraphQ, "", "", bearer...)
	if rec.Code != http.StatusOK {
		t.Fatalf("DELETE: status %d: %s", rec.Code, rec.Body)
	}
	for _, method := range []string{"GET", "HEAD", "DELETE"} {
		if rec := do(srv, method, "/data"+siteGraphQ, "", "", bearer...); rec.Code != http.StatusNotFound {
			t.Errorf("%s after DELETE: status %d, want 404", method, rec.Code)
		}
	}
}

// sortedBody sorts the lines of N-Triples so goldens do not depend on
// store order.
func sortedBody(body string) string {
	lines := strings.Split(strings.TrimSpace(body), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func TestGraphStoreFormatsIn(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		want              int
	}{
		{"turtle", "text/turtle; charset=utf-8", turtleDoc, 3},
		{"ntriples", "application/n-triples", ntriplesDoc, 2},
		{"nquads go to the target graph", "application/n-quads", "<http://x/a> <http://x/p> \"1\" <http://elsewhere/g> .\n<http://x/a> <http://x/p> \"2\" .\n", 2},
		{"rdfxml", "application/rdf+xml", `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:p="` + PerfontoNS + `">
  <rdf:Description rdf:about="http://x/rs1"><p:hasMetricName>wtime</p:hasMetricName></rdf:Description>
</rdf:RDF>`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, mem := newTestServer(t, nil)
			rec := do(srv, "PUT", "/data"+siteGraphQ, tc.ctype, tc.body, bearer...)
			if rec.Code != http.StatusCreated {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if n := len(graphLines(t, mem, kb.IRI(siteGraph))); n != tc.want {
				t.Errorf("%d triples, want %d", n, tc.want)
			}
		})
	}
}

func TestGraphStoreDefaultGraph(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	// The default graph exists even when empty.
	if rec := do(srv, "GET", "/data?default", "", "", "Accept", "application/n-triples"); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Fatalf("empty default graph: status %d body %q", rec.Code, rec.Body)
	}
	if rec := do(srv, "POST", "/data?default", "application/n-triples", ntriplesDoc, bearer...); rec.Code != http.StatusCreated {
		t.Fatalf("POST default: status %d: %s", rec.Code, rec.Body)
	}
	if n := len(graphLines(t, mem, kb.DefaultGraph)); n != 2 {
		t.Errorf("default graph holds %d triples", n)
	}
	if rec := do(srv, "DELETE", "/data?default", "", "", bearer...); rec.Code != http.StatusOK {
		t.Errorf("DELETE default: status %d", rec.Code)
	}
	if n := len(graphLines(t, mem, kb.DefaultGraph)); n != 0 {
		t.Errorf("default graph holds %d triples after DELETE", n)
	}
}

func TestGraphStoreNewGraphByPOST(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	rec := do(srv, "POST", "/data", "application/n-triples", ntriplesDoc, bearer...)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	// Location is the new graph's IRI, which is also its direct URL.
	loc, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || !loc.IsAbs() || !strings.HasPrefix(loc.Path, "/data/") {
		t.Fatalf("Location %q", rec.Header().Get("Location"))
	}
	if n := len(graphLines(t, mem, kb.IRI(loc.String()))); n != 2 {
		t.Errorf("new graph holds %d triples", n)
	}
	if rec := do(srv, "GET", loc.Path, "", ""); rec.Code != http.StatusOK {
		t.Errorf("GET Location's path: status %d", rec.Code)
	}
	if rec := do(srv, "GET", "/data?graph="+url.QueryEscape(loc.String()), "", ""); rec.Code != http.StatusOK {
		t.Errorf("GET ?graph=Location: status %d", rec.Code)
	}
}

func TestGraphStoreAtomicOnSyntaxError(t *testing.T) {
	srv, _, mem := newTestServer(t, func(o *Options) { o.MaxBody = 4096 })
	loadTurtle(t, mem, siteGraph, turtleDoc)
	before := graphLines(t, mem, kb.IRI(siteGraph))
	bad := "<http://x/a> <http://x/p> \"1\" .\n<http://x/b> <http://x/p> \"2\" .\n<http://x/c> <http://x/p> oops .\n"
	for _, method := range []string{"PUT", "POST"} {
		rec := do(srv, method, "/data"+siteGraphQ, "application/n-triples", bad, bearer...)
		if rec.Code != http.StatusBadRequest {
			t.Fatalf("%s: status %d: %s", method, rec.Code, rec.Body)
		}
		e := errorBody(t, rec)
		if e.Line != 3 || !strings.Contains(e.Error, "request body:3") || !strings.Contains(e.Error, "not changed") {
			t.Errorf("%s: error %q at line %d", method, e.Error, e.Line)
		}
		if after := graphLines(t, mem, kb.IRI(siteGraph)); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("%s with a syntax error changed the graph:\n%s", method, strings.Join(after, "\n"))
		}
	}
	// Without a Content-Length an append takes the store's bulk path; a
	// syntax error there changes nothing either.
	for _, method := range []string{"PUT", "POST"} {
		req := httptest.NewRequest(method, "/data"+siteGraphQ, io.MultiReader(strings.NewReader(bad)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/n-triples")
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusBadRequest || errorBody(t, rec).Line != 3 {
			t.Fatalf("chunked %s with a syntax error: status %d: %s", method, rec.Code, rec.Body)
		}
		if after := graphLines(t, mem, kb.IRI(siteGraph)); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("chunked %s with a syntax error changed the graph", method)
		}
	}
	// A body over the limit, sent without Content-Length, is refused and
	// changes nothing.
	req := httptest.NewRequest("PUT", "/data"+siteGraphQ, io.MultiReader(strings.NewReader(strings.Repeat(ntriplesDoc, 200))))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/n-triples")
	req.Header.Set("Authorization", "Bearer "+testToken)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized chunked body: status %d: %s", rec.Code, rec.Body)
	}
	if after := graphLines(t, mem, kb.IRI(siteGraph)); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Error("an oversized body changed the graph")
	}
}

func TestGraphStoreErrors(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	noStore, _, _ := newTestServer(t, func(o *Options) { o.Graphs = nil })
	tests := []struct {
		name                        string
		h                           http.Handler
		method, target, ctype, body string
		headers                     []string
		wantStatus                  int
	}{
		{"no graph named", srv, "GET", "/data", "", "", nil, 400},
		{"graph and default", srv, "GET", "/data?default&graph=http://x/g", "", "", nil, 400},
		{"relative graph IRI", srv, "GET", "/data?graph=site-a", "", "", nil, 400},
		{"two graphs", srv, "GET", "/data?graph=http://x/1&graph=http://x/2", "", "", nil, 400},
		{"missing graph", srv, "GET", "/data?graph=http://x/none", "", "", nil, 404},
		{"not acceptable", srv, "GET", "/data?default", "", "", []string{"Accept", "application/sparql-results+json"}, 406},
		{"PUT without token", srv, "PUT", "/data?default", "text/turtle", turtleDoc, nil, 401},
		{"DELETE with bad token", srv, "DELETE", "/data?default", "", "", []string{"Authorization", "Bearer x"}, 403},
		{"unsupported type", srv, "PUT", "/data?default", "application/json", "{}", bearer, 415},
		{"no store", noStore, "GET", "/data?default", "", "", nil, 501},
		{"PATCH not allowed", srv, "PATCH", "/data?default", "", "", bearer, 405},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(tc.h, tc.method, tc.target, tc.ctype, tc.body, tc.headers...)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.wantStatus, rec.Body)
			}
			if tc.method != "HEAD" {
				errorBody(t, rec)
			}
		})
	}
}
