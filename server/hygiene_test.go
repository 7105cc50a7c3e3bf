package server

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHostHeaderChecked(t *testing.T) {
	s, _, _ := newTestServer(t, func(o *Options) { o.PublicBase = "" })
	base := startServer(t, s)
	port := base[strings.LastIndex(base, ":"):]
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1" + port, http.StatusOK},
		{"localhost" + port, http.StatusOK},
		{"rebound.attacker.example" + port, http.StatusForbidden},
		{"rebound.attacker.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodGet, base+"/sparql?query=ASK", nil)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %s: status %d, want %d: %s", tc.host, resp.StatusCode, tc.want, body)
		}
	}
}

func TestGraphNamesNotMintedFromHost(t *testing.T) {
	s, _, _ := newTestServer(t, func(o *Options) { o.PublicBase = "http://kb.example.org" })
	rec := do(s, http.MethodPost, "/data", "application/n-triples", "<http://e/s> <http://e/p> <http://e/o> .\n",
		"Authorization", "Bearer "+testToken, "Host", "evil.example")
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /data: %d %s", rec.Code, rec.Body)
	}
	loc := rec.Header().Get("Location")
	if !strings.Contains(loc, "kb.example.org") || strings.Contains(loc, "evil") {
		t.Fatalf("minted graph %q: want it under the public base, not the Host header", loc)
	}
}

func TestBasicAuthWithTokenAsPassword(t *testing.T) {
	s, fq, _ := newTestServer(t, nil)
	cred := base64.StdEncoding.EncodeToString([]byte("admin:" + testToken))
	rec := do(s, http.MethodPost, "/sparql", "application/sparql-update", "CLEAR ALL", "Authorization", "Basic "+cred)
	if rec.Code != http.StatusOK {
		t.Fatalf("update with Basic auth: %d %s", rec.Code, rec.Body)
	}
	if len(fq.updates) != 1 {
		t.Fatalf("update not applied: %d updates", len(fq.updates))
	}
}

func TestCORS(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	rec := do(s, http.MethodOptions, "/sparql", "", "", "Origin", "https://yasgui.example",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	if rec.Code/100 != 2 || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("read preflight: %d, Allow-Origin %q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
	}
	rec = do(s, http.MethodOptions, "/data", "", "", "Origin", "https://yasgui.example",
		"Access-Control-Request-Method", "PUT", "Access-Control-Request-Headers", "authorization")
	if rec.Header().Get("Access-Control-Allow-Origin") != "" && strings.Contains(strings.ToLower(rec.Header().Get("Access-Control-Allow-Headers")), "authorization") {
		t.Fatalf("a cross-origin write preflight was allowed by default: %v", rec.Header())
	}
	rec = do(s, http.MethodGet, "/sparql?query=ASK", "", "", "Origin", "https://yasgui.example")
	if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("GET from another origin lacks Access-Control-Allow-Origin: %v", rec.Header())
	}
}

func TestMetricsProtectedWithReads(t *testing.T) {
	s, _, _ := newTestServer(t, func(o *Options) { o.ProtectReads = true })
	if rec := do(s, http.MethodGet, "/metrics", "", ""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("/metrics without token under --protect-reads: %d", rec.Code)
	}
	if rec := do(s, http.MethodGet, "/metrics", "", "", "Authorization", "Bearer "+testToken); rec.Code != http.StatusOK {
		t.Fatalf("/metrics with token: %d", rec.Code)
	}
}

func TestGzipAndRequestLog(t *testing.T) {
	var logs bytes.Buffer
	s, _, _ := newTestServer(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	rec := do(s, http.MethodGet, "/sparql?query=SELECT+ROWS%3D2000", "", "", "Accept", "text/csv", "Accept-Encoding", "gzip", "X-Request-Id", "req-42")
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", rec.Header())
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if n := strings.Count(string(body), "\n"); n != 2001 {
		t.Fatalf("decompressed CSV has %d lines, want 2001", n)
	}
	line := logs.String()
	for _, want := range []string{"id=req-42", `query="SELECT ROWS=2000"`, "rows=2000"} {
		if !strings.Contains(line, want) {
			t.Errorf("request log lacks %s: %s", want, line)
		}
	}
}

func TestTimeoutNamesItsLimit(t *testing.T) {
	s, _, _ := newTestServer(t, func(o *Options) { o.Timeout = 50 * time.Millisecond })
	rec := do(s, http.MethodGet, "/sparql?query=SLOW", "", "")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "timed out after 50ms") {
		t.Fatalf("timeout answer: %d %s", rec.Code, rec.Body)
	}
}
