package federation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

func TestClientDescribe(t *testing.T) {
	var queries []string
	answer := func(contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err != nil {
				t.Error(err)
			}
			queries = append(queries, r.Form.Get("query"))
			if !strings.HasPrefix(r.Header.Get("Accept"), "application/n-triples") {
				t.Errorf("Accept %q: want RDF syntaxes", r.Header.Get("Accept"))
			}
			w.Header().Set("Content-Type", contentType)
			w.Write([]byte(body))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/nt", answer("application/n-triples; charset=UTF-8",
		"<http://a>\t<http://p>\t\"x\"@EN .\n<http://a> <http://q> _:b1 .\n_:b1 <http://p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"))
	mux.HandleFunc("/plain", answer("text/plain", "<http://a> <http://p> <http://b> .\n"))
	mux.HandleFunc("/ttl", answer("text/turtle", "@prefix e: <http://e/> .\n<http://a> e:p e:b, [ e:q 2 ] .\n"))
	mux.HandleFunc("/xml", answer("application/rdf+xml", `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><rdf:Description rdf:about="http://a"><e:p>v</e:p></rdf:Description></rdf:RDF>`))
	mux.HandleFunc("/bad", answer("application/n-triples", "<http://a> <http://p> <http://b> .\n<http://a> <http://p> .\n"))
	mux.HandleFunc("/json", answer("application/sparql-results+json", okJSON))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		path    string
		triples []string // N-Triples, blank nodes written as _:
		errHas  string
	}{
		{path: "/nt", triples: []string{`<http://a> <http://p> "x"@en .`, `<http://a> <http://q> _: .`, `_: <http://p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .`}},
		{path: "/plain", triples: []string{`<http://a> <http://p> <http://b> .`}},
		{path: "/ttl", triples: []string{`<http://a> <http://e/p> <http://e/b> .`, `<http://a> <http://e/p> _: .`, `_: <http://e/q> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .`}},
		{path: "/xml", triples: []string{`<http://a> <http://e/p> "v" .`}},
		{path: "/bad", errHas: "bad results from bad-site at byte"},
		{path: "/json", errHas: "not N-Triples, Turtle or RDF/XML"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			c := NewClient([]Site{{Name: "bad-site", Endpoint: srv.URL + "/bad"}})
			g, err := c.Describe(context.Background(), kb.IRI(srv.URL+tc.path), []kb.Term{kb.IRI("http://a"), kb.IRI("http://c")})
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range g.Triples {
				got = append(got, blankless(tr.S)+" "+tr.P.String()+" "+blankless(tr.O)+" .")
			}
			sort.Strings(got)
			sort.Strings(tc.triples)
			if strings.Join(got, "\n") != strings.Join(tc.triples, "\n") {
				t.Errorf("triples\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.triples, "\n"))
			}
			if g.Bytes == 0 || g.Status != http.StatusOK {
				t.Errorf("stats: %d bytes, status %d", g.Bytes, g.Status)
			}
		})
	}
	if q := queries[0]; q != "DESCRIBE <http://a> <http://c>\n" {
		t.Errorf("query sent: %q", q)
	}
	// Only IRIs are sent: a blank node from another answer names nothing.
	c := NewClient(nil)
	if _, err := c.Describe(context.Background(), kb.IRI(srv.URL+"/nt"), []kb.Term{kb.Blank("x")}); err == nil {
		t.Error("DESCRIBE of a blank node: want an error")
	}
	// The SSRF guard applies to DESCRIBE too.
	c.Allow = func(endpoint string) error { return errNotAllowed(endpoint) }
	if _, err := c.Describe(context.Background(), kb.IRI(srv.URL+"/nt"), []kb.Term{kb.IRI("http://a")}); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("Allow: %v, want the refusal", err)
	}
}

type errNotAllowed string

func (e errNotAllowed) Error() string {
	return "endpoint " + url.PathEscape(string(e)) + " not allowed"
}

// blankless writes a term in N-Triples, every blank node as "_:" (labels
// are the parser's).
func blankless(t kb.Term) string {
	if t.IsBlank() {
		return "_:"
	}
	return t.String()
}
