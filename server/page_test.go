package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestPageStaticFiles checks what the query page loads besides itself: the
// vendored YASGUI with its licence, the ontology terms the editor completes,
// the examples, and the shipped rule texts.
func TestPageStaticFiles(t *testing.T) {
	srv := New(Options{})
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	tests := []struct {
		path, contentType, contains string
	}{
		{"/static/vendor/yasgui/yasgui.min.js", "text/javascript", "Yasgui"},
		{"/static/vendor/yasgui/yasgui.min.css", "text/css", ".yasqe"},
		{"/static/vendor/yasgui/LICENSE", "text/plain", "MIT License"},
		{"/static/vendor/yasgui/THIRD-PARTY-LICENSES.txt", "text/plain", "codemirror@"},
		{"/static/examples.json", "application/json", "Findings by problem class"},
		{"/rules/advice", "application/json", `"class":"http://www.par.univie.ac.at/project/scalea/perfonto#LateSender"`},
		{"/static/rules/PERFONTO", "text/plain", "perfonto:hasProblem"},
	}
	for _, tc := range tests {
		rec := get(tc.path)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.contentType) || !strings.Contains(rec.Body.String(), tc.contains) {
			t.Errorf("GET %s: %d %s, body has %q: %v", tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.contains, strings.Contains(rec.Body.String(), tc.contains))
		}
	}
	for _, path := range []string{"/static/index.html", "/static/rules/NOPE", "/static/vendor.sh", "/static/advice.json"} {
		if rec := get(path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}

	rec := get("/static/" + termsFile)
	var terms OntologyTerms
	if err := json.Unmarshal(rec.Body.Bytes(), &terms); err != nil {
		t.Fatalf("%s: %v", termsFile, err)
	}
	names := func(list []Term) []string {
		var out []string
		for _, t := range list {
			out = append(out, t.Name)
		}
		return out
	}
	if !slices.Contains(names(terms.Properties), "perfonto:hasChildRS") || !slices.Contains(names(terms.Classes), "perfonto:LateSender") ||
		!slices.Contains(names(terms.Classes), "perfonto:RegionSummary") {
		t.Errorf("terms lack hasChildRS, LateSender or RegionSummary: %d classes, %d properties", len(terms.Classes), len(terms.Properties))
	}
	if slices.Contains(names(terms.Classes), "perfonto:hasChildRS") {
		t.Errorf("a property is listed as a class")
	}
	wtime := slices.IndexFunc(terms.Metrics, func(m MetricTerm) bool { return m.Name == "wtime" })
	if wtime < 0 || terms.Metrics[wtime].Unit != "microsecond" {
		t.Errorf("metric catalog: wtime at %d, %+v", wtime, terms.Metrics)
	}
}
