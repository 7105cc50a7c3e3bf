package federation

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/syntax"
)

const okJSON = `{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri","value":"http://a"}},{"x":{"type":"literal","value":"7","datatype":"http://www.w3.org/2001/XMLSchema#integer"}}]}}`

func TestClientSelect(t *testing.T) {
	var calls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okJSON))
	})
	mux.HandleFunc("/xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+xml")
		w.Write([]byte(`<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head><results><result><binding name="x"><uri>http://a</uri></binding></result></results></sparql>`))
	})
	// The decoder stops after the second comma: byte 87.
	const bad = `{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri","value":"http://a"}},,]}}`
	mux.HandleFunc("/bad", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(bad))
	})
	mux.HandleFunc("/flaky", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okJSON))
	})
	hung := make(chan struct{})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hung:
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(okJSON)) })
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(okJSON))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(hung)
	t.Setenv("PERFKB_SITE_FED_TEST", "s3cret")

	tests := []struct {
		path     string
		rows     int
		errHas   string
		maxBytes int64
	}{
		{path: "/ok", rows: 2},
		{path: "/xml", rows: 1},
		{path: "/flaky", rows: 2},
		{path: "/bad", errHas: "bad results from bad-site at byte 90"},
		{path: "/hang", errHas: "timed out after 300ms"},
		{path: "/loop", errHas: "more than 3 redirects"},
		{path: "/big", errHas: "answer larger than 20 bytes", maxBytes: 20},
		{path: "/token", rows: 2},
		{path: "/missing", errHas: "404"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			c := NewClient([]Site{{Name: "bad-site", Endpoint: srv.URL + "/bad"}, {Name: "tok", Endpoint: srv.URL + "/token", TokenEnv: "PERFKB_SITE_FED_TEST"}})
			c.Timeout = 2 * time.Second
			if tc.path == "/hang" {
				c.Timeout = 300 * time.Millisecond
			}
			if tc.maxBytes > 0 {
				c.MaxBytes = tc.maxBytes
			}
			start := time.Now()
			rs, _, err := c.Select(context.Background(), srv.URL+tc.path, "SELECT * {}")
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want one containing %q", err, tc.errHas)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error %v shows the token", err)
				}
				if time.Since(start) > 2*time.Second {
					t.Errorf("failure took %v", time.Since(start))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Rows) != tc.rows {
				t.Errorf("%d rows, want %d", len(rs.Rows), tc.rows)
			}
		})
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("flaky endpoint called %d times, want 3 (two retries)", n)
	}
}

func TestClientRefusesSchemes(t *testing.T) {
	c := NewClient(nil)
	for _, ep := range []string{"file:///etc/passwd", "gopher://x/", "relative/sparql"} {
		if _, _, err := c.Select(context.Background(), ep, "ASK {}"); err == nil || !strings.Contains(err.Error(), "only http and https") {
			t.Errorf("%s: err %v, want a refusal", ep, err)
		}
	}
	c.Allow = func(string) error { return errors.New("not a registered site") }
	if _, _, err := c.Select(context.Background(), "http://127.0.0.1:1/sparql", "ASK {}"); err == nil || !strings.Contains(err.Error(), "not a registered site") {
		t.Errorf("guard: err %v", err)
	}
}

func TestBuildQuery(t *testing.T) {
	req := eval.ServiceRequest{
		Endpoint: kb.IRI("http://a/sparql"),
		Text:     "{ ?s ex:p ?o }",
		Prefixes: []algebra.Prefix{{Prefix: "ex", IRI: "http://ex/"}},
		Base:     "http://base/",
		Bindings: &eval.Solutions{Vars: []algebra.Var{"s", "o"}, Rows: [][]kb.Term{{kb.IRI("http://s1"), {}}, {kb.Blank("b"), kb.String("x")}}},
	}
	got, err := BuildQuery(req)
	if err != nil {
		t.Fatal(err)
	}
	want := "BASE <http://base/>\nPREFIX ex: <http://ex/>\nSELECT * WHERE { ?s ex:p ?o }\nVALUES (?s ?o) {\n  (<http://s1> UNDEF)\n  (UNDEF \"x\")\n}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestPushDown(t *testing.T) {
	tests := []struct{ query, want string }{
		{`SELECT ?s ?v WHERE { ?s <http://p> ?v } ORDER BY DESC(?v) ?s LIMIT 10 OFFSET 5`, "ORDER BY DESC(?v) ?s\nLIMIT 15"},
		{`SELECT ?s WHERE { ?s <http://p> ?v } LIMIT 3`, "LIMIT 3"},
		{`SELECT DISTINCT ?s WHERE { ?s <http://p> ?v } LIMIT 3`, ""},
		{`SELECT ?s (COUNT(?v) AS ?n) WHERE { ?s <http://p> ?v } GROUP BY ?s ORDER BY ?n LIMIT 3`, ""},
		{`SELECT ?s ((?v * 2) AS ?w) WHERE { ?s <http://p> ?v } ORDER BY ?w LIMIT 3`, ""},
		{`SELECT ?s ((?v * 2) AS ?w) WHERE { ?s <http://p> ?v } ORDER BY ?v LIMIT 3`, "ORDER BY ?v\nLIMIT 3"},
		{`SELECT ?s WHERE { ?s <http://p> ?v } ORDER BY ?v`, ""},
		{`ASK { ?s <http://p> ?v }`, ""},
	}
	for _, tc := range tests {
		q, err := syntax.ParseQuery(tc.query, syntax.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := FanOut(q, []Site{{Name: "a", Endpoint: "http://a/sparql"}}, FanOutOptions{}); err != nil {
			t.Fatal(err)
		}
		var got string
		algebra.Walk(q.Pattern, func(op algebra.Op) bool {
			if s, ok := op.(*algebra.Service); ok {
				got = s.Suffix
			}
			return true
		})
		if got != tc.want {
			t.Errorf("%s: pushed %q, want %q", tc.query, got, tc.want)
		}
	}
}

func TestAggregatePushDown(t *testing.T) {
	tests := []struct{ query, want string }{
		{`SELECT ?c (COUNT(?f) AS ?n) (AVG(?v) AS ?a) WHERE { ?f a ?c ; <http://v> ?v } GROUP BY ?c`,
			"{ SELECT ?c (COUNT(?f) AS ?fedpart0) (SUM(?v) AS ?fedpart1) (COUNT(?v) AS ?fedpart2) WHERE { ?f a ?c ; <http://v> ?v } GROUP BY ?c }"},
		{`SELECT ?c (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) (COUNT(*) AS ?n) WHERE { ?f a ?c ; <http://v> ?v } GROUP BY ?c`,
			"{ SELECT ?c (MIN(?v) AS ?fedpart0) (MAX(?v) AS ?fedpart1) (COUNT(*) AS ?fedpart2) WHERE { ?f a ?c ; <http://v> ?v } GROUP BY ?c }"},
		// Not combinable: the WHERE pattern is forwarded as it is.
		{`SELECT ?c (COUNT(DISTINCT ?f) AS ?n) WHERE { ?f a ?c } GROUP BY ?c`, "{ ?f a ?c }"},
		{`SELECT ?c (SAMPLE(?f) AS ?s) WHERE { ?f a ?c } GROUP BY ?c`, "{ ?f a ?c }"},
		{`SELECT (COUNT(?f) AS ?n) WHERE { ?f a ?c }`, "{ ?f a ?c }"},
		{`SELECT DISTINCT ?c WHERE { ?f a ?c } ORDER BY ?c`, "{ SELECT DISTINCT * WHERE { ?f a ?c } }"},
		{`SELECT REDUCED ?c WHERE { ?f a ?c }`, "{ ?f a ?c }"},
		{`SELECT ?k (COUNT(?f) AS ?n) WHERE { ?f a ?c } GROUP BY (STR(?c) AS ?k)`, "{ ?f a ?c }"},
	}
	for _, tc := range tests {
		q, err := syntax.ParseQuery(tc.query, syntax.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := FanOut(q, []Site{{Name: "a", Endpoint: "http://a/sparql"}}, FanOutOptions{}); err != nil {
			t.Fatal(err)
		}
		var got string
		algebra.Walk(q.Pattern, func(op algebra.Op) bool {
			if s, ok := op.(*algebra.Service); ok {
				got = s.Text
			}
			return true
		})
		if got != tc.want {
			t.Errorf("%s:\nforwarded %s\nwant      %s", tc.query, got, tc.want)
		}
	}
}
