package backend

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestQueryMemoryThroughHTTP: a query or update past the engine's
// QueryMemory answers 422 with errorType "limit", the limit's name and
// its value; a query that fits still answers 200.
func TestQueryMemoryThroughHTTP(t *testing.T) {
	ds := native.OpenMemory()
	var quads []kb.TermQuad
	for i := range 300 {
		quads = append(quads, kb.TermQuad{S: kb.IRI(fmt.Sprintf("http://ex/n%d", i)), P: kb.IRI("http://ex/p"),
			O: kb.IRI(fmt.Sprintf("http://ex/n%d", i+1)), G: kb.DefaultGraph})
	}
	ids, err := kb.InternQuads(t.Context(), ds, quads)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(t.Context(), kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	store := graphstore.New(ds)
	srv := server.New(server.Options{
		Query: &QueryEngine{DS: ds, QueryMemory: 1 << 20}, Rules: &Reasoner{DS: ds}, Graphs: store, Sites: store, Store: store, Token: token,
	})
	tests := []struct {
		name       string
		update     bool
		text       string
		wantStatus int
	}{
		{"ORDER BY without LIMIT", false, "SELECT * { ?a ?p ?b . ?c ?q ?d } ORDER BY ?a ?c", 422},
		{"DISTINCT under COUNT", false, "SELECT (COUNT(*) AS ?n) { SELECT DISTINCT ?a ?c { ?a ?p ?b . ?c ?q ?d } }", 422},
		{"GROUP BY", false, "SELECT ?a ?c (COUNT(*) AS ?n) { ?a ?p ?b . ?c ?q ?d } GROUP BY ?a ?c", 422},
		{"DELETE/INSERT WHERE", true, "INSERT { ?a <http://ex/q> ?c } WHERE { ?a ?p ?b . ?c ?q ?d }", 422},
		{"ORDER BY with LIMIT fits", false, "SELECT * { ?a ?p ?b . ?c ?q ?d } ORDER BY ?a ?c LIMIT 5", 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var status int
			var body string
			if tc.update {
				rec := post(t, srv, "/sparql", "application/sparql-update", tc.text, "Authorization", "Bearer "+token)
				status, body = rec.Code, rec.Body.String()
			} else {
				rec := get(t, srv, "/sparql?query="+url.QueryEscape(tc.text), "Accept", "application/sparql-results+json")
				status, body = rec.Code, rec.Body.String()
			}
			if status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", status, tc.wantStatus, body)
			}
			if status == 200 {
				return
			}
			var e struct {
				ErrorType string `json:"errorType"`
				Error     string `json:"error"`
				Limit     string `json:"limit"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("not the error envelope: %v: %s", err, body)
			}
			if e.ErrorType != "limit" || e.Limit != "query-memory" || !strings.Contains(e.Error, "query-memory limit of 1 MiB exceeded") {
				t.Errorf("envelope %+v, want errorType limit, limit query-memory and the limit's value", e)
			}
		})
	}
	n, err := ds.Count(t.Context(), kb.Pattern{}, true)
	if err != nil || n != 300 {
		t.Errorf("store has %d quads (%v) after the refused update, want 300", n, err)
	}

	// Past the pool shared by all queries (--query-memory-total) the
	// answer is 503 with Retry-After: the query may pass later.
	pool := query.NewMemoryPool(1 << 20)
	busy := server.New(server.Options{
		Query: &QueryEngine{DS: ds, QueryMemory: 64 << 20, MemoryPool: pool}, Rules: &Reasoner{DS: ds}, Graphs: store, Sites: store, Store: store, Token: token,
	})
	rec := get(t, busy, "/sparql?query="+url.QueryEscape("SELECT * { ?a ?p ?b . ?c ?q ?d } ORDER BY ?a ?c"))
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"limit":"query-memory-total"`) {
		t.Errorf("past the pool: status %d, Retry-After %q: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if pool.InUse() != 0 {
		t.Errorf("the pool holds %d bytes after the request", pool.InUse())
	}
}

// TestQueryTextWithinBudget: query and update text whose parse alone
// would pass QueryMemory (ParseCost bytes a byte) is refused with 413
// before it is parsed; text within the bound still runs. With 1 MiB the
// bound is 16 KiB of text.
func TestQueryTextWithinBudget(t *testing.T) {
	ds := native.OpenMemory()
	store := graphstore.New(ds)
	srv := server.New(server.Options{
		Query: &QueryEngine{DS: ds, QueryMemory: 1 << 20}, Rules: &Reasoner{DS: ds}, Graphs: store, Sites: store, Store: store, Token: token,
	})
	in := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"s%06d"`, i)
		}
		return b.String()
	}
	// Each list item is 9 bytes plus ", ": 2,000 items are 21,998 bytes.
	big := "SELECT * { VALUES ?o { 1 } FILTER(?o IN (" + in(2000) + ")) }"
	small := "SELECT * { VALUES ?o { 1 } FILTER(?o IN (" + in(100) + ")) }"
	tests := []struct {
		name, ctype, text string
		code              int
	}{
		{"query past the bound", "application/sparql-query", big, 413},
		{"update past the bound", "application/sparql-update", "INSERT DATA { <http://e/s> <http://e/p> " + strings.Repeat(`"x", `, 4000) + `"x" }`, 413},
		{"query within the bound", "application/sparql-query", small, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := post(t, srv, "/sparql", tc.ctype, tc.text, "Authorization", "Bearer "+token)
			if rec.Code != tc.code {
				t.Fatalf("%d bytes: status %d, want %d: %.300s", len(tc.text), rec.Code, tc.code, rec.Body.String())
			}
			if tc.code == 413 && (!strings.Contains(rec.Body.String(), `"errorType":"too_large"`) || !strings.Contains(rec.Body.String(), "--query-memory")) {
				t.Errorf("envelope %s, want too_large naming --query-memory", rec.Body)
			}
		})
	}
}

// TestRuleTextWithinBudget: a rule file whose parse alone would pass the
// run's memory budget is refused with 413 by /rules/check and
// /rules/run; a small one is checked. With 1 MiB the bound is 16 KiB.
func TestRuleTextWithinBudget(t *testing.T) {
	ds := native.OpenMemory()
	store := graphstore.New(ds)
	srv := server.New(server.Options{
		Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds, Options: reasoner.Options{MemoryBudget: 1 << 20}}, Graphs: store, Sites: store, Store: store, Token: token,
	})
	rule := "[r%d: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]\n" // 50 bytes or more
	var big strings.Builder
	for i := range 400 {
		fmt.Fprintf(&big, rule, i)
	}
	for _, path := range []string{"/rules/check", "/rules/run"} {
		rec := post(t, srv, path, "text/plain", big.String(), "Authorization", "Bearer "+token)
		if rec.Code != 413 || !strings.Contains(rec.Body.String(), "--rules-memory") {
			t.Errorf("%s of %d bytes: %d %.300s, want 413 naming --rules-memory", path, big.Len(), rec.Code, rec.Body.String())
		}
	}
	rec := post(t, srv, "/rules/check", "text/plain", fmt.Sprintf(rule, 1), "Authorization", "Bearer "+token)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"valid":true`) {
		t.Errorf("/rules/check of one rule: %d %s", rec.Code, rec.Body.String())
	}
}
