package server

import (
	"context"
	"fmt"
	"net/http"
	"testing"
)

type fakeAnalysis struct{ runs int }

func (f *fakeAnalysis) Run(context.Context) (AnalysisReport, error) {
	f.runs++
	return AnalysisReport{Experiments: 3, Graph: "urn:x-perfkb:analysis"}, nil
}

func (f *fakeAnalysis) Scaling(_ context.Context, version string) (any, error) {
	if version == "http://example.org/missing" {
		return nil, fmt.Errorf("no experiments of version <%s>: %w", version, ErrNotFound)
	}
	return map[string]string{"version": version}, nil
}

func (f *fakeAnalysis) Diff(_ context.Context, base, trial string) (any, error) {
	return map[string]string{"base": base, "trial": trial}, nil
}

func (f *fakeAnalysis) Models(_ context.Context, version string) (any, error) {
	if version == "http://example.org/missing" {
		return nil, fmt.Errorf("no experiments of version <%s>: %w", version, ErrNotFound)
	}
	return map[string]string{"models of": version}, nil
}

func (f *fakeAnalysis) Tree(_ context.Context, exp string, p TreeParams) (any, error) {
	if exp == "missing" {
		return nil, fmt.Errorf("no experiment %q: %w", exp, ErrNotFound)
	}
	return map[string]any{"experiment": exp, "pu": p.PU, "agg": p.Agg, "metric": p.Metric, "depth": p.Depth}, nil
}

func TestAnalysisRoutes(t *testing.T) {
	fa := &fakeAnalysis{}
	srv, _, _ := newTestServer(t, func(o *Options) { o.Analysis = fa })
	tests := []struct {
		name, method, target string
		auth                 bool
		want                 int
	}{
		{"run needs the token", "POST", "/analysis/run", false, http.StatusUnauthorized},
		{"run", "POST", "/analysis/run", true, http.StatusOK},
		{"scaling", "GET", "/analysis/scaling?version=http://example.org/v1", false, http.StatusOK},
		{"scaling of an unknown version", "GET", "/analysis/scaling?version=http://example.org/missing", false, http.StatusNotFound},
		{"diff", "GET", "/analysis/diff?base=http://example.org/a&trial=http://example.org/b", false, http.StatusOK},
		{"diff without trial", "GET", "/analysis/diff?base=http://example.org/a", false, http.StatusBadRequest},
		{"models", "GET", "/analysis/models?version=http://example.org/v1", false, http.StatusOK},
		{"models of an unknown version", "GET", "/analysis/models?version=http://example.org/missing", false, http.StatusNotFound},
		{"tree", "GET", "/analysis/tree?experiment=x/exp/1&pu=p1&agg=max&metric=L2_TCM&depth=2", false, http.StatusOK},
		{"tree without experiment", "GET", "/analysis/tree?pu=p1", false, http.StatusBadRequest},
		{"tree with a bad depth", "GET", "/analysis/tree?experiment=x/exp/1&depth=two", false, http.StatusBadRequest},
		{"tree of an unknown experiment", "GET", "/analysis/tree?experiment=missing", false, http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.auth {
				headers = bearer
			}
			rec := do(srv, tc.method, tc.target, "", "", headers...)
			if rec.Code != tc.want {
				t.Fatalf("%s %s: %d, want %d: %s", tc.method, tc.target, rec.Code, tc.want, rec.Body)
			}
		})
	}
	if fa.runs != 1 {
		t.Errorf("%d runs, want 1", fa.runs)
	}
	rec := do(srv, "GET", "/analysis/diff?base=http://example.org/a&trial=http://example.org/b", "", "")
	var got map[string]string
	dataOf(t, rec, &got)
	if got["base"] != "http://example.org/a" || got["trial"] != "http://example.org/b" {
		t.Errorf("diff answered %v", got)
	}
	rec = do(srv, "GET", "/analysis/tree?experiment=x/exp/1&pu=p1&agg=max&metric=L2_TCM&depth=2", "", "")
	var tree map[string]any
	dataOf(t, rec, &tree)
	if tree["experiment"] != "x/exp/1" || tree["pu"] != "p1" || tree["agg"] != "max" || tree["metric"] != "L2_TCM" || tree["depth"] != 2.0 {
		t.Errorf("tree answered %v: the parameters did not reach the service", tree)
	}
	plain, _, _ := newTestServer(t, nil)
	if rec := do(plain, "GET", "/analysis/scaling", "", ""); rec.Code != http.StatusNotImplemented {
		t.Errorf("without the service: %d, want 501", rec.Code)
	}
}
