package backend

import (
	"context"
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

// anonServer is accessServer's store (Vienna, Linz and default graphs)
// behind the users of accessFile with anonymous (a tokens file's
// "anonymous" entry, JSON, or "" for none) and --protect-reads as given.
func anonServer(t *testing.T, anonymous string, protect bool) http.Handler {
	t.Helper()
	ds := native.OpenMemory()
	data := accessData("http://vienna/g1", "http://linz/g1", "urn:x-arq:DefaultGraph")
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(data), rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "access.nq"}); err != nil {
		t.Fatal(err)
	}
	file := accessFile
	if anonymous != "" {
		file = `{"anonymous": ` + anonymous + `,` + strings.TrimPrefix(accessFile, "{")
	}
	access, err := server.ParseAccess([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	store := graphstore.New(ds)
	return server.New(server.Options{Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds}, Graphs: store, Sites: store, Store: store,
		Analysis: &Analysis{DS: ds}, Token: token, ProtectReads: protect, Access: access})
}

// anonRequests are reads and writes with and without tokens, over SPARQL,
// the Graph Store Protocol, the whole-store routes and /healthz.
func anonRequests() []struct{ name, method, target, ctype, body, user string } {
	count := func(q string) string { return "/sparql?query=" + url.QueryEscape(q) }
	return []struct{ name, method, target, ctype, body, user string }{
		{"count all, no token", "GET", count(`SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`), "", "", ""},
		{"count Linz, no token", "GET", count(`SELECT (COUNT(*) AS ?n) { GRAPH <http://linz/g1> { ?s ?p ?o } }`), "", "", ""},
		{"count Vienna, no token", "GET", count(`SELECT (COUNT(*) AS ?n) { GRAPH <http://vienna/g1> { ?s ?p ?o } }`), "", "", ""},
		{"count default, no token", "GET", count(`SELECT (COUNT(*) AS ?n) FROM <urn:x-arq:DefaultGraph> { ?s ?p ?o }`), "", "", ""},
		{"count all, Linz reader", "GET", count(`SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`), "", "", "linz-read"},
		{"POST query, no token", "POST", "/sparql", "application/sparql-query", `SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }`, ""},
		{"GSP Vienna, no token", "GET", "/data?graph=" + url.QueryEscape("http://vienna/g1"), "", "", ""},
		{"GSP Linz, no token", "GET", "/data?graph=" + url.QueryEscape("http://linz/g1"), "", "", ""},
		{"GSP Linz, Linz reader", "GET", "/data?graph=" + url.QueryEscape("http://linz/g1"), "", "", "linz-read"},
		{"findings, no token", "GET", "/findings", "", "", ""},
		{"findings, admin", "GET", "/findings", "", "", "admin"},
		{"update, no token", "POST", "/sparql", "application/sparql-update", `INSERT DATA { GRAPH <http://vienna/g2> { <http://e/s> <http://e/p> <http://e/o> } }`, ""},
		{"GSP write Vienna, no token", "PUT", "/data?graph=" + url.QueryEscape("http://vienna/g2"), "application/n-triples", "<http://e/s> <http://e/p> <http://e/o> .\n", ""},
		{"healthz, no token", "GET", "/healthz", "", "", ""},
		{"healthz, admin", "GET", "/healthz", "", "", "admin"},
	}
}

func doRequest(t *testing.T, h http.Handler, method, target, ctype, body, user string) (int, string) {
	t.Helper()
	accept := "text/csv"
	if strings.HasPrefix(target, "/data") {
		accept = "application/n-triples"
	}
	headers := []string{"Accept", accept}
	if user != "" {
		headers = append(headers, auth(user)...)
	}
	if method == "GET" {
		rec := get(t, h, target, headers...)
		return rec.Code, rec.Body.String()
	}
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestProtectReadsIsAnonymousScope checks that --protect-reads is one case
// of the tokens file's scopes: a server with it and one whose tokens file
// says "anonymous": {"read": []} answer every request alike, status and
// body (the oracle is the --protect-reads server).
func TestProtectReadsIsAnonymousScope(t *testing.T) {
	protect := anonServer(t, "", true)
	empty := anonServer(t, `{"read": []}`, false)
	for _, r := range anonRequests() {
		wantCode, wantBody := doRequest(t, protect, r.method, r.target, r.ctype, r.body, r.user)
		gotCode, gotBody := doRequest(t, empty, r.method, r.target, r.ctype, r.body, r.user)
		if gotCode != wantCode || normalizeBody(gotBody) != normalizeBody(wantBody) {
			t.Errorf("%s: %d %q; --protect-reads gives %d %q", r.name, gotCode, gotBody, wantCode, wantBody)
		}
	}
}

// normalizeBody drops what differs between two servers answering alike:
// the request id of an error document.
func normalizeBody(b string) string {
	if i := strings.Index(b, `"requestId"`); i >= 0 {
		if j := strings.IndexByte(b[i:], ','); j > 0 {
			return b[:i] + b[i+j+1:]
		}
	}
	return b
}

// TestAnonymousReadScope checks a tokens file that opens the Vienna graphs
// to everyone: without a token a request reads exactly those (3 triples;
// Linz's 5 and the default graph's 2 are absent, by every query form the
// table has), a token reads its own graphs and Vienna's, writes still
// need a token, and the whole-store routes and the store's size stay
// closed to requests without one.
func TestAnonymousReadScope(t *testing.T) {
	h := anonServer(t, `{"read": ["http://vienna/"]}`, false)
	want := map[string]struct {
		code int
		body string // a substring of the body; "" for none
		not  string // must not appear
	}{
		"count all, no token":        {200, "\n3", ""},
		"count Linz, no token":       {200, "\n0", ""},
		"count Vienna, no token":     {200, "\n3", ""},
		"count default, no token":    {200, "\n0", ""},
		"count all, Linz reader":     {200, "\n8", ""},
		"POST query, no token":       {200, "\n3", ""},
		"GSP Vienna, no token":       {200, "http://vienna/g1/s0", ""},
		"GSP Linz, no token":         {403, "", "http://linz/g1/s0"},
		"GSP Linz, Linz reader":      {200, "http://linz/g1/s0", ""},
		"findings, no token":         {403, "", ""},
		"findings, admin":            {200, "", ""},
		"update, no token":           {401, "", ""},
		"GSP write Vienna, no token": {401, "", ""},
		"healthz, no token":          {200, "", "quads"},
		"healthz, admin":             {200, "quads", ""},
	}
	for _, r := range anonRequests() {
		w, ok := want[r.name]
		if !ok {
			t.Fatalf("no expectation for %q", r.name)
		}
		code, body := doRequest(t, h, r.method, r.target, r.ctype, r.body, r.user)
		if code != w.code || !strings.Contains(body, w.body) || (w.not != "" && strings.Contains(body, w.not)) {
			t.Errorf("%s: %d %q; want %d with %q and without %q", r.name, code, body, w.code, w.body, w.not)
		}
	}
}

// TestAnonymousEntryParse checks the "anonymous" entry's errors: no empty
// scope entry, no write scope, no unknown field.
func TestAnonymousEntryParse(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"anonymous": {"read": [""]}, "users": []}`, "anonymous: an empty scope entry"},
		{`{"anonymous": {"read": ["http://a/"], "write": ["http://a/"]}, "users": []}`, `unknown field "write"`},
		{`{"anonymous": {"read": ["http://a/"], "token": "x"}, "users": []}`, `unknown field "token"`},
	} {
		if _, err := server.ParseAccess([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.want)
		}
	}
	a, err := server.ParseAccess([]byte(`{"anonymous": {"read": ["http://a/"]}, "users": []}`))
	if err != nil || !a.HasAnonymous() {
		t.Errorf("a valid anonymous entry: %v, HasAnonymous %v", err, a.HasAnonymous())
	}
}
