package server

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/shacl"
)

// TestValidateEndpoint: GET /validate?graph= reports a graph that breaks
// the shipped shapes (X-Conforms false, one sh:ValidationResult per
// planted defect of shacl/testdata/perfonto/bad.ttl) and a conforming one
// as conforming.
func TestValidateEndpoint(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	if err := shacl.AddOntology(context.Background(), mem); err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile("../shacl/testdata/perfonto/bad.ttl")
	if err != nil {
		t.Fatal(err)
	}
	const good = `@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
<http://e/pu> a perfonto:ThreadUnit ; perfonto:inExperiment <http://e/exp> .`
	for graph, doc := range map[string]string{"http://e/bad": string(bad), "http://e/good": good} {
		if rec := do(srv, "PUT", "/data?graph="+url.QueryEscape(graph), "text/turtle", doc, bearer...); rec.Code/100 != 2 {
			t.Fatalf("PUT %s: %d %s", graph, rec.Code, rec.Body)
		}
	}
	for _, tc := range []struct {
		graph    string
		conforms string
		results  int
	}{{"http://e/bad", "false", 5}, {"http://e/good", "true", 0}} {
		rec := do(srv, "GET", "/validate?graph="+url.QueryEscape(tc.graph), "", "", "Accept", "text/turtle")
		if rec.Code != 200 {
			t.Fatalf("GET /validate?graph=%s: %d %s", tc.graph, rec.Code, rec.Body)
		}
		body := rec.Body.String()
		if got := rec.Header().Get("X-Conforms"); got != tc.conforms {
			t.Errorf("%s: X-Conforms = %q, want %s", tc.graph, got, tc.conforms)
		}
		if n := strings.Count(body, "sh:ValidationResult"); n != tc.results || !strings.Contains(body, `sh:conforms "`+tc.conforms+`"`) {
			t.Errorf("%s: %d results, want %d:\n%s", tc.graph, n, tc.results, body)
		}
	}
	if rec := do(srv, "GET", "/validate?graph=not-an-iri", "", ""); rec.Code != 400 {
		t.Errorf("a relative graph IRI: %d, want 400", rec.Code)
	}
}
