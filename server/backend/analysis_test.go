package backend

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestAnalysisService runs the real analysis behind the server interface
// on the hand-built scaling group of package analysis.
func TestAnalysisService(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	f, err := os.Open("../../analysis/testdata/scaling.ttl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := rdfio.Load(ctx, ds, f, rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "scaling.ttl", Graph: kb.IRI("http://example.org/g")}); err != nil {
		t.Fatal(err)
	}
	a := &Analysis{DS: ds}
	rep, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Experiments != 3 || rep.Groups != 1 || rep.Findings != 2 || rep.Quads == 0 || len(rep.Issues) != 0 {
		t.Errorf("report %+v", rep)
	}
	out, err := a.Scaling(ctx, "http://example.org/v1")
	if err != nil {
		t.Fatal(err)
	}
	tables := out.([]analysis.Table)
	if len(tables) != 1 || len(tables[0].Rows) < 3 {
		t.Errorf("scaling tables %+v", tables)
	}
	if _, err := a.Scaling(ctx, "http://example.org/none"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("unknown version: %v, want ErrNotFound", err)
	}
	// Three runs are too few to model (Extra-P asks for 5 points): the
	// model tables say so.
	out, err = a.Models(ctx, "http://example.org/v1")
	if err != nil {
		t.Fatal(err)
	}
	var notModelled *analysis.Table
	for _, tb := range out.([]analysis.Table) {
		if tb.Name == "series not modelled" {
			notModelled = &tb
		}
	}
	if notModelled == nil || len(notModelled.Rows) != 1 {
		t.Errorf("model tables %+v: want one series not modelled", out)
	}
	if _, err := a.Models(ctx, "http://example.org/none"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("models of an unknown version: %v, want ErrNotFound", err)
	}
	d, err := a.Diff(ctx, "http://example.org/e4", "http://example.org/e8")
	if err != nil {
		t.Fatal(err)
	}
	if df := d.(*analysis.Diff); len(df.Rows) == 0 {
		t.Error("empty diff")
	}
	if _, err := a.Diff(ctx, "http://example.org/e4", "http://example.org/nope"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("unknown experiment: %v, want ErrNotFound", err)
	}
}

// TestAnalysisCacheFollowsWrites serves the analysis from a caching server:
// the scaling table and a difference are computed once for the data, and
// dropping the data's graph through the server makes the next answers
// follow (no experiments left: 404), where a stale cache would still
// answer 200.
func TestAnalysisCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	f, err := os.Open("../../analysis/testdata/scaling.ttl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := rdfio.Load(ctx, ds, f, rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "scaling.ttl", Graph: kb.IRI("http://example.org/g")}); err != nil {
		t.Fatal(err)
	}
	store := graphstore.New(ds)
	srv := server.New(server.Options{Analysis: &Analysis{DS: ds}, Graphs: store, Store: store, Token: "tok"})
	srv.CacheViews()
	if err := srv.WarmViews(ctx); err != nil {
		t.Fatal(err)
	}
	get := func(target string) int {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		return rec.Code
	}
	exps := sparqlRows(t, ds, pfx+`SELECT ?e WHERE { ?e perfonto:ofVersion <http://example.org/v1> } ORDER BY ?e`)
	if len(exps) < 2 {
		t.Fatalf("%d experiments of v1 in the sample", len(exps))
	}
	diff := "/analysis/diff?base=" + url.QueryEscape(exps[0][0]) + "&trial=" + url.QueryEscape(exps[1][0])
	for range 2 {
		if code := get("/analysis/scaling?version=http%3A%2F%2Fexample.org%2Fv1"); code != http.StatusOK {
			t.Fatalf("scaling before the drop: %d", code)
		}
		if code := get(diff); code != http.StatusOK {
			t.Fatalf("diff before the drop: %d", code)
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("DELETE", "/data?graph=http%3A%2F%2Fexample.org%2Fg", nil)
	req.Header.Set("Authorization", "Bearer tok")
	srv.ServeHTTP(rec, req)
	if rec.Code/100 != 2 {
		t.Fatalf("drop: %d %s", rec.Code, rec.Body)
	}
	if code := get("/analysis/scaling?version=http%3A%2F%2Fexample.org%2Fv1"); code != http.StatusNotFound {
		t.Errorf("scaling after the drop: %d, want 404 (no experiments of v1 left)", code)
	}
	if code := get(diff); code != http.StatusNotFound {
		t.Errorf("diff after the drop: %d, want 404", code)
	}
}
