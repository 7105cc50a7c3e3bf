package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// The hardening tests run a real perfkb serve on loopback that has
// registered itself as a site, the set-up of the abuses they guard against.

const hardenToken = "harden-write-token"

// hardenEnv builds perfkb and starts a server whose store has the server
// registered as site "self".
func hardenEnv(t *testing.T, extra ...string) (*fedEnv, *siteProc) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds perfkb and starts a server; skipped with -short")
	}
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, sites: map[string]*siteProc{}}
	e.env = append(os.Environ(), "PERFKB_TOKEN="+hardenToken)
	p := e.serve(t, "self.db", extra...)
	code, body := hardenDo(t, http.MethodPost, p.url+"/sites", "application/json", `{"name":"self","endpoint":"`+p.url+`/sparql"}`, true)
	if code != http.StatusCreated {
		t.Fatalf("POST /sites: %d %s", code, body)
	}
	return e, p
}

// hardenDo sends one request and returns the status and body.
func hardenDo(t *testing.T, method, url, contentType, body string, auth bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth {
		req.Header.Set("Authorization", "Bearer "+hardenToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// nestedService is SERVICE <endpoint> nested depth times around one
// pattern.
func nestedService(endpoint string, depth int) string {
	inner := "{ BIND(1 AS ?x) }"
	for range depth {
		inner = "{ SERVICE <" + endpoint + "> " + inner + " }"
	}
	return "SELECT * WHERE " + inner
}

func TestServeHardening(t *testing.T) {
	_, p := hardenEnv(t, "--timeout", "20s", "--queue-wait", "100ms", "--site-timeout", "1s")

	t.Run("SERVICE hops", func(t *testing.T) {
		// 70 nested SERVICE <self>: each level is a request to the same
		// server. The hop count ends the chain at federation.MaxHops.
		start := time.Now()
		code, body := hardenDo(t, http.MethodPost, p.url+"/sparql", "application/sparql-query", nestedService(p.url+"/sparql", 70), false)
		if code != http.StatusLoopDetected || !strings.Contains(body, "Perfkb-Hops") {
			t.Errorf("nested SERVICE <self>: %d %s, want 508 naming Perfkb-Hops", code, body)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("nested SERVICE <self> took %v", d)
		}
		// A shallow SERVICE <self> still works.
		code, body = hardenDo(t, http.MethodPost, p.url+"/sparql", "application/sparql-query", nestedService(p.url+"/sparql", 2), false)
		var doc struct {
			Results struct {
				Bindings []map[string]struct{ Value string } `json:"bindings"`
			} `json:"results"`
		}
		if code != http.StatusOK || json.Unmarshal([]byte(body), &doc) != nil || len(doc.Results.Bindings) != 1 || doc.Results.Bindings[0]["x"].Value != "1" {
			t.Errorf("SERVICE <self> two deep: %d %s, want one row x=1", code, body)
		}
	})
	t.Run("tokenEnv", func(t *testing.T) { hardenTokenEnv(t, p) })
	t.Run("regex rule", func(t *testing.T) { hardenRegexRule(t, p) })
	t.Run("SERVICE failures", func(t *testing.T) { hardenServiceFailures(t, p) })
}

// hardenTokenEnv: POST /sites may only name PERFKB_SITE_ variables, not
// another secret of the server's environment (its own write token here).
func hardenTokenEnv(t *testing.T, p *siteProc) {
	for _, tc := range []struct {
		env  string
		code int
	}{
		{"PERFKB_TOKEN", http.StatusBadRequest},
		{"HOME", http.StatusBadRequest},
		{"PERFKB_SITE_OTHER", http.StatusCreated},
	} {
		body := `{"name":"t` + strings.ToLower(strings.ReplaceAll(tc.env, "_", "")) + `","endpoint":"` + p.url + `/sparql","tokenEnv":"` + tc.env + `"}`
		code, resp := hardenDo(t, http.MethodPost, p.url+"/sites", "application/json", body, true)
		if code != tc.code {
			t.Errorf("POST /sites with tokenEnv %s: %d %s, want %d", tc.env, code, resp, tc.code)
		}
		if code == http.StatusBadRequest && !strings.Contains(resp, "PERFKB_SITE_") {
			t.Errorf("POST /sites with tokenEnv %s: %s, want the rule in the message", tc.env, resp)
		}
	}
}

// hardenRegexRule: a rule whose regex pattern does not compile fails the
// check with its position, and a run of it is refused as bad input, not
// answered 500.
func hardenRegexRule(t *testing.T, p *siteProc) {
	const rule = "[r: (?a <http://ex/p> ?b) regex(?b, 'a(') -> (?a <http://ex/q> ?b)]\n"
	code, body := hardenDo(t, http.MethodPost, p.url+"/rules/check?name=bad.rules", "text/plain", rule, false)
	var rep struct {
		Data struct {
			Valid       bool
			Diagnostics []struct {
				File         string
				Line, Column int
				Message      string
			}
		}
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &rep) != nil {
		t.Fatalf("POST /rules/check: %d %s", code, body)
	}
	// 'a(' starts at column 37 of line 1.
	d := rep.Data.Diagnostics
	if rep.Data.Valid || len(d) != 1 || d[0].Line != 1 || d[0].Column != 37 || !strings.Contains(d[0].Message, "missing closing )") {
		t.Errorf("POST /rules/check of an invalid regex: %s, want invalid at 1:37", body)
	}
	code, body = hardenDo(t, http.MethodPost, p.url+"/rules/run", "text/plain", rule, true)
	if code != http.StatusBadRequest || !strings.Contains(body, "missing closing )") {
		t.Errorf("POST /rules/run of an invalid regex: %d %s, want 400", code, body)
	}
}

// hardenServiceFailures: a SERVICE call that fails at the site's end is
// answered 502 (504 when the site's own time limit ran out, reported as
// that limit) with the site named, not 500 "internal".
func hardenServiceFailures(t *testing.T, p *siteProc) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer failing.Close()
	malformed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		io.WriteString(w, `{"head":{"vars":["x"]},"results":{"bindings":[{"x" }`)
	}))
	defer malformed.Close()
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hanging.Close()
	defer close(release)
	for name, url := range map[string]string{"failing": failing.URL, "malformed": malformed.URL, "hanging": hanging.URL} {
		code, body := hardenDo(t, http.MethodPost, p.url+"/sites", "application/json", `{"name":"`+name+`","endpoint":"`+url+`/sparql"}`, true)
		if code != http.StatusCreated {
			t.Fatalf("POST /sites %s: %d %s", name, code, body)
		}
	}
	for _, tc := range []struct {
		site, url, has string
		code           int
	}{
		{"failing", failing.URL, "HTTP 500", http.StatusBadGateway},
		{"malformed", malformed.URL, "bad results from malformed", http.StatusBadGateway},
		{"hanging", hanging.URL, "timed out after 1s (the site's time limit", http.StatusGatewayTimeout},
	} {
		q := "SELECT * WHERE { SERVICE <" + tc.url + "/sparql> { ?s ?p ?o } }"
		code, body := hardenDo(t, http.MethodPost, p.url+"/sparql", "application/sparql-query", q, false)
		if code != tc.code || !strings.Contains(body, `"site":"`+tc.site+`"`) || !strings.Contains(body, tc.has) {
			t.Errorf("SERVICE at %s: %d %s, want %d naming the site and %q", tc.site, code, body, tc.code, tc.has)
		}
	}
}
