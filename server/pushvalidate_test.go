package server

import (
	"context"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// goodPush conforms to the shipped shapes: a thread unit in exactly one
// experiment.
const goodPush = `@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
<http://e/pu> a perfonto:ThreadUnit ; perfonto:inExperiment <http://e/exp> .`

// storeQuads returns every quad of the store, sorted, to compare a store
// before and after a refused write.
func storeQuads(t *testing.T, mem *native.MemStore) []kb.Quad {
	t.Helper()
	qs, err := kb.Collect(mem.Match(context.Background(), kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(qs, func(a, b kb.Quad) int {
		return slices.Compare([]kb.ID{a.S, a.P, a.O, a.G}, []kb.ID{b.S, b.P, b.O, b.G})
	})
	return qs
}

// TestPushValidationReject: with ValidateReject, a Graph Store write whose
// document violates the shipped shapes (shacl/testdata/perfonto/bad.ttl,
// five planted defects) is refused with 422 and the report (five
// sh:ValidationResult), whatever the client accepts, and the store keeps
// exactly the quads it had; a conforming document is stored; a document
// that does not parse is refused as without validation.
func TestPushValidationReject(t *testing.T) {
	srv, _, mem := newTestServer(t, func(o *Options) { o.ValidatePushes = PushValidation{Mode: ValidateReject} })
	bad, err := os.ReadFile("../shacl/testdata/perfonto/bad.ttl")
	if err != nil {
		t.Fatal(err)
	}
	g := "/data?graph=" + url.QueryEscape("http://e/g")
	rec := do(srv, "PUT", g, "text/turtle", goodPush, bearer...)
	if rec.Code/100 != 2 || rec.Header().Get("X-Conforms") != "true" {
		t.Fatalf("PUT of a conforming document: %d, X-Conforms %q: %s", rec.Code, rec.Header().Get("X-Conforms"), rec.Body)
	}
	before := storeQuads(t, mem)
	if len(before) != 2 {
		t.Fatalf("store holds %d quads after the conforming PUT, want 2", len(before))
	}
	for _, tc := range []struct {
		method, target, accept string
	}{
		{"PUT", g, "text/turtle"},
		{"POST", g, ""},
		{"POST", "/data", "application/json"}, // a new graph: none is created
		{"PUT", "/data?default", "application/n-triples"},
	} {
		rec := do(srv, tc.method, tc.target, "text/turtle", string(bad), append([]string{"Accept", tc.accept}, bearer...)...)
		body := rec.Body.String()
		if rec.Code != 422 || rec.Header().Get("X-Conforms") != "false" {
			t.Errorf("%s %s: %d, X-Conforms %q, want 422 and false: %.500s", tc.method, tc.target, rec.Code, rec.Header().Get("X-Conforms"), body)
			continue
		}
		want := 5
		if n := strings.Count(body, "ValidationResult"); n != want {
			t.Errorf("%s %s (Accept %q): %d results in the report, want %d:\n%s", tc.method, tc.target, tc.accept, n, want, body)
		}
		if tc.accept == "application/n-triples" && !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/n-triples") {
			t.Errorf("%s %s: report as %q, want N-Triples", tc.method, tc.target, rec.Header().Get("Content-Type"))
		}
		if after := storeQuads(t, mem); !slices.Equal(before, after) {
			t.Errorf("%s %s changed the store: %d quads, had %d", tc.method, tc.target, len(after), len(before))
		}
	}
	if rec := do(srv, "POST", g, "text/turtle", "<http://e/a> <http://e/b> .", bearer...); rec.Code != 400 {
		t.Errorf("a malformed document: %d, want 400: %s", rec.Code, rec.Body)
	}
	if after := storeQuads(t, mem); !slices.Equal(before, after) {
		t.Errorf("the malformed document changed the store")
	}
}

// TestPushValidationWarn: with ValidateWarn the non-conforming document is
// stored, flagged by X-Conforms: false.
func TestPushValidationWarn(t *testing.T) {
	srv, _, mem := newTestServer(t, func(o *Options) { o.ValidatePushes = PushValidation{Mode: ValidateWarn} })
	const bad = `@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
<http://e/pu> a perfonto:ThreadUnit .` // no experiment: sh:minCount 1
	rec := do(srv, "PUT", "/data?graph="+url.QueryEscape("http://e/g"), "text/turtle", bad, bearer...)
	if rec.Code/100 != 2 || rec.Header().Get("X-Conforms") != "false" {
		t.Fatalf("PUT: %d, X-Conforms %q, want 2xx and false: %s", rec.Code, rec.Header().Get("X-Conforms"), rec.Body)
	}
	if n := len(storeQuads(t, mem)); n != 1 {
		t.Errorf("store holds %d quads, want the 1 pushed", n)
	}
}
