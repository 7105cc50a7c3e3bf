package backend

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestErrorEnvelopePositions sends a bad SPARQL query, a bad rule file and
// a bad Turtle document to the real services and expects the same
// envelope from each: 400, errorType bad_data, and the source, line and
// column of the *textpos.Error the parser returned, read by the envelope
// without any adapter. The positions were worked out by hand from the
// files in testdata/errpos.
func TestErrorEnvelopePositions(t *testing.T) {
	ds := kbtest.NewMemory()
	store := graphstore.New(ds)
	srv := server.New(server.Options{Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds}, Graphs: store, Store: store, Token: token})
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "errpos", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name         string
		method, path string
		contentType  string
		file         string
		source       string
		line, col    int
		error        string
	}{
		// A query's text has no name: no source.
		{"SPARQL query", "POST", "/sparql", "application/sparql-query", "bad.rq", "", 3, 15,
			"3:15: expected expression, found ')'"},
		// An uploaded rule file is named by ?name=.
		{"rule upload", "POST", "/rules/run?name=bad.rules", "text/plain", "bad.rules", "bad.rules", 3, 18,
			"bad.rules:3:18: expected ')'"},
		// A Graph Store upload is the request body.
		{"Turtle upload", "PUT", "/data?graph=" + url.QueryEscape("http://example.org/g"), "text/turtle", "bad.ttl", "request body", 3, 9,
			"request body:3:9: expected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(read(tc.file)))
			req.Header.Set("Content-Type", tc.contentType)
			req.Header.Set("Authorization", "Bearer "+token)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", rec.Code, rec.Body)
			}
			var env struct {
				Status, ErrorType, Error string
				Source                   *string
				Line, Column             int
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
				t.Fatalf("%v: %s", err, rec.Body)
			}
			if env.ErrorType != string(server.ErrorBadData) || env.Line != tc.line || env.Column != tc.col {
				t.Errorf("envelope %s: want bad_data at line %d, column %d", rec.Body, tc.line, tc.col)
			}
			switch {
			case tc.source == "" && env.Source != nil:
				t.Errorf("envelope has source %q; a query text has none", *env.Source)
			case tc.source != "" && (env.Source == nil || *env.Source != tc.source):
				t.Errorf("envelope %s: want source %q", rec.Body, tc.source)
			}
			if !strings.HasPrefix(env.Error, tc.error) {
				t.Errorf("error %q, want it to start with %q", env.Error, tc.error)
			}
		})
	}
}
