package backend

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// The tokens of the access tests: a reader and a writer for each of two
// sites' graph prefixes, and an administrator.
const accessFile = `{"users": [
 {"name": "vienna-read",  "token": "vienna-read-token-0001", "read": ["http://vienna/"]},
 {"name": "vienna-write", "token": "vienna-write-token-001", "write": ["http://vienna/"]},
 {"name": "linz-read",    "token": "linz-read-token-000001", "read": ["http://linz/"]},
 {"name": "linz-write",   "token": "linz-write-token-00001", "write": ["http://linz/"]},
 {"name": "admin",        "token": "admin-token-0000000001", "read": ["*"], "write": ["*"], "sites": ["*"]}
]}`

// accessData has 3 triples in a Vienna graph, 5 in a Linz graph and 2 in
// the default graph.
func accessData(graphs ...string) string {
	var b strings.Builder
	counts := map[string]int{"http://vienna/g1": 3, "http://linz/g1": 5, "urn:x-arq:DefaultGraph": 2}
	for _, g := range graphs {
		for i := range counts[g] {
			fmt.Fprintf(&b, "<%s/s%d> <http://e/p> \"%d\" <%s> .\n", g, i, i, g)
		}
	}
	return b.String()
}

func accessServer(t *testing.T, graphs ...string) http.Handler {
	t.Helper()
	ds := native.OpenMemory()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(accessData(graphs...)), rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "access.nq"}); err != nil {
		t.Fatal(err)
	}
	access, err := server.ParseAccess([]byte(accessFile))
	if err != nil {
		t.Fatal(err)
	}
	store := graphstore.New(ds)
	return server.New(server.Options{Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds}, Graphs: store, Sites: store, Store: store,
		Analysis: &Analysis{DS: ds}, Token: token, ProtectReads: true, Access: access})
}

func tokenOf(user string) string {
	switch user {
	case "vienna-read":
		return "vienna-read-token-0001"
	case "vienna-write":
		return "vienna-write-token-001"
	case "linz-read":
		return "linz-read-token-000001"
	case "linz-write":
		return "linz-write-token-00001"
	case "admin":
		return "admin-token-0000000001"
	}
	return "no-such-token-000000000"
}

func auth(user string) []string { return []string{"Authorization", "Bearer " + tokenOf(user)} }

// TestScopedQueriesSeeOnlyTheirGraphs checks that a token restricted to
// some graphs cannot count the others' triples by any query form: each
// query answers, for the restricted token over the whole store, exactly
// what the administrator gets over a store that holds only the graphs the
// token may read (the oracle).
func TestScopedQueriesSeeOnlyTheirGraphs(t *testing.T) {
	full := accessServer(t, "http://vienna/g1", "http://linz/g1", "urn:x-arq:DefaultGraph")
	views := map[string]http.Handler{
		"vienna-read": accessServer(t, "http://vienna/g1"),
		"linz-read":   accessServer(t, "http://linz/g1"),
	}
	queries := []string{
		`SELECT (COUNT(*) AS ?n) { ?s ?p ?o }`,
		`SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`,
		`SELECT (COUNT(*) AS ?n) FROM <http://linz/g1> { ?s ?p ?o }`,
		`SELECT (COUNT(*) AS ?n) FROM <http://vienna/g1> { ?s ?p ?o }`,
		`SELECT (COUNT(*) AS ?n) FROM <urn:x-arq:DefaultGraph> { ?s ?p ?o }`,
		`SELECT (COUNT(*) AS ?n) FROM NAMED <http://linz/g1> FROM NAMED <http://vienna/g1> { GRAPH ?g { ?s ?p ?o } }`,
		`SELECT (COUNT(*) AS ?n) { GRAPH <http://linz/g1> { ?s ?p ?o } }`,
		`SELECT (COUNT(*) AS ?n) { GRAPH <http://vienna/g1> { ?s ?p ?o } }`,
		`SELECT (COUNT(DISTINCT ?g) AS ?n) { GRAPH ?g { } }`,
		`SELECT (COUNT(*) AS ?n) { <http://linz/g1/s0> ?p ?o }`,
		`SELECT (COUNT(*) AS ?n) { ?s ?p ?o FILTER EXISTS { GRAPH ?g { ?s ?p ?o } } }`,
		`SELECT (COUNT(*) AS ?n) { { SELECT ?s { ?s ?p ?o } } }`,
		`SELECT (COUNT(*) AS ?n) { ?s <http://e/p>+ ?o }`,
		`ASK { GRAPH <http://linz/g1> { ?s ?p ?o } }`,
		`ASK { GRAPH <http://vienna/g1> { ?s ?p ?o } }`,
		`ASK { <http://linz/g1/s0> ?p ?o }`,
		`SELECT (COUNT(*) AS ?n) { ?s ?p ?o } GROUP BY ?p`,
	}
	for user, oracle := range views {
		for _, q := range queries {
			for _, protocol := range []string{"", "&named-graph-uri=http://linz/g1", "&default-graph-uri=http://linz/g1"} {
				target := "/sparql?query=" + url.QueryEscape(q) + protocol
				got := get(t, full, target, append(auth(user), "Accept", "application/sparql-results+json")...)
				want := get(t, oracle, target, append(auth("admin"), "Accept", "application/sparql-results+json")...)
				if got.Code != http.StatusOK || want.Code != http.StatusOK {
					t.Fatalf("%s %s%s: status %d (oracle %d): %s", user, q, protocol, got.Code, want.Code, got.Body)
				}
				if got.Body.String() != want.Body.String() {
					t.Errorf("%s: %s%s\n got %s\nwant %s (what the graphs it may read hold)", user, q, protocol, got.Body, want.Body)
				}
			}
		}
	}
	// The administrator sees both named graphs (3 + 5 triples): the
	// restriction is the scope's, not the store's.
	rec := get(t, full, "/sparql?query="+url.QueryEscape(`SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`), append(auth("admin"), "Accept", "text/csv")...)
	if !strings.Contains(rec.Body.String(), "\n8") {
		t.Errorf("the administrator counts %q, want 8", rec.Body.String())
	}
}

// TestScopedAccessMatrix checks every route with every kind of token:
// each denied case denied (401 without a token, 403 with one outside its
// scope) and each allowed case answered.
func TestScopedAccessMatrix(t *testing.T) {
	h := accessServer(t, "http://vienna/g1", "http://linz/g1", "urn:x-arq:DefaultGraph")
	nt := "<http://e/s> <http://e/p> <http://e/o> .\n"
	ins := func(g string) string {
		return "INSERT DATA { GRAPH <" + g + "> { <http://e/s> <http://e/p> <http://e/o> } }"
	}
	type req struct {
		method, target, ctype, body string
	}
	sel := func(q string) req { return req{"GET", "/sparql?query=" + url.QueryEscape(q), "", ""} }
	tests := []struct {
		user string
		r    req
		want int
	}{
		// SPARQL queries: any token reads (its graphs); none is 401.
		{"", sel("ASK {}"), 401},
		{"nobody", sel("ASK {}"), 403},
		{"vienna-read", sel("ASK {}"), 200},
		{"vienna-write", sel("ASK {}"), 200},
		// SERVICE to a site outside the scope (this server itself
		// included) is refused before any call.
		{"vienna-read", sel("SELECT * { SERVICE <http://127.0.0.1:7878/sparql> { ?s ?p ?o } }"), 403},
		{"vienna-read", req{"GET", "/sparql?sites=all&query=" + url.QueryEscape("ASK {}"), "", ""}, 403},
		// SPARQL updates: only into writable graphs.
		{"vienna-read", req{"POST", "/sparql", "application/sparql-update", ins("http://vienna/g2")}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", ins("http://vienna/g2")}, 200},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", ins("http://linz/g2")}, 403},
		// An update naming a graph outside the token's write scope is
		// refused before it runs, whether that graph exists or not (the
		// answer depends on the scope alone); one whose graphs come from
		// variables ranges over what the token sees (checked below).
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "DROP GRAPH <http://linz/g1>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "DROP SILENT GRAPH <http://linz/nothing-here>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "CLEAR GRAPH <http://linz/g1>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "CLEAR DEFAULT"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "DROP ALL"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "CLEAR NAMED"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "CREATE GRAPH <http://linz/g3>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "DELETE DATA { GRAPH <http://linz/g1> { <http://e/s> <http://e/p> <http://e/o> } }"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "DELETE WHERE { GRAPH <http://linz/g1> { ?s ?p ?o } }"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "WITH <http://linz/g1> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "COPY <http://linz/g1> TO <http://vienna/copy>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "ADD <http://vienna/g1> TO <http://linz/g1>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "MOVE <http://linz/g1> TO <http://vienna/moved>"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "INSERT { GRAPH <http://vienna/g5> { ?s ?p ?o } } USING <http://linz/g1> WHERE { ?s ?p ?o }"}, 403},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "COPY <http://vienna/g1> TO <http://vienna/copy>"}, 200},
		{"vienna-write", req{"POST", "/sparql", "application/sparql-update", "DELETE WHERE { GRAPH ?g { ?s ?p ?o } }"}, 200},
		{"linz-write", req{"POST", "/sparql", "application/sparql-update", ins("http://linz/g2")}, 200},
		{"admin", req{"POST", "/sparql", "application/sparql-update", ins("http://other/g")}, 200},
		// Graph Store Protocol.
		{"", req{"GET", "/data?graph=http://linz/g1", "", ""}, 401},
		{"vienna-read", req{"GET", "/data?graph=http://linz/g1", "", ""}, 403},
		{"linz-read", req{"GET", "/data?graph=http://linz/g1", "", ""}, 200},
		{"linz-read", req{"GET", "/data?default", "", ""}, 403},
		{"admin", req{"GET", "/data?default", "", ""}, 200},
		{"vienna-read", req{"PUT", "/data?graph=http://vienna/g9", "application/n-triples", nt}, 403},
		{"vienna-write", req{"PUT", "/data?graph=http://vienna/g9", "application/n-triples", nt}, 201},
		{"vienna-write", req{"PUT", "/data?graph=http://linz/g9", "application/n-triples", nt}, 403},
		{"vienna-write", req{"POST", "/data?graph=http://linz/g1", "application/n-triples", nt}, 403},
		{"vienna-write", req{"DELETE", "/data?graph=http://linz/g1", "", ""}, 403},
		{"linz-write", req{"DELETE", "/data?graph=http://linz/g1", "", ""}, 200},
		// Whole-store routes: rules, findings, analyses, validation,
		// sites, metrics need an unrestricted scope.
		{"vienna-write", req{"POST", "/rules/run", "text/plain", "[r: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]"}, 403},
		{"admin", req{"POST", "/rules/run", "text/plain", "[r: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]"}, 200},
		{"vienna-read", req{"GET", "/findings", "", ""}, 403},
		{"admin", req{"GET", "/findings", "", ""}, 200},
		{"vienna-read", req{"GET", "/explain?iri=http://e/x", "", ""}, 403},
		{"vienna-read", req{"GET", "/analysis/scaling", "", ""}, 403},
		{"vienna-write", req{"POST", "/analysis/run", "application/json", "{}"}, 403},
		{"vienna-read", req{"GET", "/validate", "", ""}, 403},
		{"vienna-read", req{"GET", "/sites", "", ""}, 403},
		{"admin", req{"GET", "/sites", "", ""}, 200},
		{"vienna-write", req{"POST", "/sites", "application/json", `{"name":"x","endpoint":"http://example.org/sparql"}`}, 403},
		{"vienna-read", req{"GET", "/metrics", "", ""}, 403},
		{"admin", req{"GET", "/metrics", "", ""}, 200},
		// The server's --token is a token for everything.
		{"legacy", req{"GET", "/findings", "", ""}, 200},
		{"legacy", req{"PUT", "/data?graph=http://linz/g8", "application/n-triples", nt}, 201},
	}
	for _, tc := range tests {
		t.Run(tc.user+" "+tc.r.method+" "+tc.r.target, func(t *testing.T) {
			req := httptest.NewRequest(tc.r.method, tc.r.target, strings.NewReader(tc.r.body))
			if tc.r.ctype != "" {
				req.Header.Set("Content-Type", tc.r.ctype)
			}
			switch tc.user {
			case "":
			case "legacy":
				req.Header.Set("Authorization", "Bearer "+token)
			default:
				req.Header.Set("Authorization", "Bearer "+tokenOf(tc.user))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("status %d, want %d: %.300s", rec.Code, tc.want, rec.Body)
			}
		})
	}
	// What the denied writes would have touched is unchanged: the Linz
	// graphs lost their triples only to linz-write's DELETE, and hold
	// linz-write's g2 and the --token's g8; no Vienna writer put anything
	// into Linz or removed anything from it.
	rec := get(t, h, "/sparql?query="+url.QueryEscape(`SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "http://linz/")) }`), append(auth("admin"), "Accept", "text/csv")...)
	if got := strings.TrimSpace(strings.TrimPrefix(rec.Body.String(), "n")); got != "2" {
		t.Errorf("Linz graphs hold %q triples, want 2 (g2 and g8)", got)
	}
}

// TestScopedBasicAuth checks that HTTP Basic maps to the same users: the
// user's name and token as password, nothing else.
func TestScopedBasicAuth(t *testing.T) {
	h := accessServer(t, "http://vienna/g1", "http://linz/g1")
	tests := []struct {
		name, password string
		want           int
	}{
		{"vienna-read", tokenOf("vienna-read"), 200},
		{"linz-read", tokenOf("vienna-read"), 403},
		{"vienna-read", tokenOf("linz-read"), 403},
		{"anyone", token, 200}, // the server's --token, any user name
	}
	for _, tc := range tests {
		req := httptest.NewRequest("GET", "/data?graph=http://vienna/g1", nil)
		req.SetBasicAuth(tc.name, tc.password)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Basic %s: status %d, want %d: %.200s", tc.name, rec.Code, tc.want, rec.Body)
		}
	}
}
