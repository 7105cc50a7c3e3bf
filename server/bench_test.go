package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// BenchmarkQueryHandler measures the server's own cost per SELECT (routing,
// middleware, negotiation, JSON writing) with a fake engine returning three
// rows.
func BenchmarkQueryHandler(b *testing.B) {
	srv, _, _ := newTestServer(&testing.T{}, nil)
	target := "/sparql?query=" + url.QueryEscape("SELECT ?s ?n WHERE { ?s ?p ?n }")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
}

// BenchmarkGraphStorePost measures a Graph Store POST of ten triples into
// the in-memory store.
func BenchmarkGraphStorePost(b *testing.B) {
	srv, _, _ := newTestServer(&testing.T{}, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rec := do(srv, http.MethodPost, "/data?graph=http://bench.example/g", "application/n-triples",
			"<http://x/a> <http://x/p> \"1\" .\n<http://x/b> <http://x/p> \"2\" .\n<http://x/c> <http://x/p> \"3\" .\n", bearer...)
		if rec.Code/100 != 2 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
