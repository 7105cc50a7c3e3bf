package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfkb/perfkb/query"
)

func TestHealthz(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	loadTurtle(t, mem, siteGraph, turtleDoc)
	rec := do(srv, "GET", "/healthz", "", "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"quads":3`) {
		t.Errorf("status %d: %s", rec.Code, rec.Body)
	}
	mem.Close()
	if rec := do(srv, "GET", "/healthz", "", ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("closed store: status %d: %s", rec.Code, rec.Body)
	}
}

// TestHealthzStarting checks that /healthz says "starting" exactly while
// start-up work is marked, however many marks and however often each is
// ended.
func TestHealthzStarting(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	starting := func() bool {
		t.Helper()
		rec := do(srv, "GET", "/healthz", "", "")
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var h map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		return h["starting"] == true
	}
	steps := []struct {
		name string
		do   func()
		want bool
	}{
		{"fresh", func() {}, false},
		{"one mark", nil, true},
		{"two marks", nil, true},
		{"first ended twice", nil, true},
		{"both ended", nil, false},
	}
	var first, second func()
	steps[1].do = func() { first = srv.Starting() }
	steps[2].do = func() { second = srv.Starting() }
	steps[3].do = func() { first(); first() }
	steps[4].do = func() { second() }
	for _, st := range steps {
		st.do()
		if got := starting(); got != st.want {
			t.Errorf("%s: starting %v, want %v", st.name, got, st.want)
		}
	}
}

func TestMetrics(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	loadTurtle(t, mem, siteGraph, turtleDoc)
	do(srv, "GET", "/sparql?query=ASK", "", "")
	do(srv, "GET", "/sparql?query=BAD", "", "")
	do(srv, "POST", "/sparql", "application/sparql-update", "CLEAR ALL")
	rec := do(srv, "GET", "/metrics", "", "")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("status %d type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	body := rec.Body.String()
	for _, want := range []string{
		`perfkb_http_requests_total{code="200",handler="/sparql",method="GET"} 1`,
		`perfkb_http_requests_total{code="400",handler="/sparql",method="GET"} 1`,
		`perfkb_http_request_duration_seconds_bucket{handler="/sparql",le="+Inf"} 3`,
		`perfkb_http_requests_rejected_total{reason="unauthorized"} 1`,
		`perfkb_store_quads 3`,
		`perfkb_query_timeouts_total 0`,
		`go_goroutines`,
		// A slow light request's wait for a processor and the
		// collector's stops of the world.
		`go_sched_latencies_seconds_bucket`,
		`go_gc_pauses_seconds_bucket`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestSites(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	loadTurtle(t, mem, "http://perfkb.example/site/vienna", "@prefix p: <"+PerfontoNS+"> .\np:exp1 a p:Experiment .\np:exp2 a p:Experiment .\n")
	loadTurtle(t, mem, "urn:x-perfkb:inferred", "<http://x/a> <http://x/b> <http://x/c> .")
	rec := do(srv, "GET", "/sites", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var sites []query.SiteEntry
	dataOf(t, rec, &sites)
	if len(sites) != 1 || sites[0].Name != "vienna" || sites[0].Triples != 2 || len(sites[0].Experiments) != 2 {
		t.Errorf("sites %+v", sites)
	}
	noSites, _, _ := newTestServer(t, func(o *Options) { o.Sites = nil })
	if rec := do(noSites, "GET", "/sites", "", ""); rec.Code != http.StatusNotImplemented {
		t.Errorf("no registry: status %d", rec.Code)
	}
}

func TestPage(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	tests := []struct {
		target, wantType, wantIn string
		wantStatus               int
	}{
		{"/", "text/html", "<title>perfkb", 200},
		{"/static/app.js", "text/javascript", "PREFIX perfonto:", 200},
		{"/static/style.css", "text/css", "table", 200},
		{"/static/../server.go", "", "", 404},
		{"/static/nope.js", "", "", 404},
	}
	for _, tc := range tests {
		rec := do(srv, "GET", tc.target, "", "")
		if rec.Code != tc.wantStatus {
			t.Errorf("%s: status %d", tc.target, rec.Code)
			continue
		}
		if tc.wantStatus == 200 && (!strings.HasPrefix(rec.Header().Get("Content-Type"), tc.wantType) || !strings.Contains(rec.Body.String(), tc.wantIn)) {
			t.Errorf("%s: type %q, body lacks %q", tc.target, rec.Header().Get("Content-Type"), tc.wantIn)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the logger and the test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRequestLog(t *testing.T) {
	var logs syncBuffer
	srv, _, _ := newTestServer(t, func(o *Options) { o.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
	do(srv, "GET", "/sparql?query=BAD", "", "")
	var line map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String())), &line); err != nil {
		t.Fatalf("log is not one JSON line: %v\n%s", err, logs.String())
	}
	if line["msg"] != "request" || line["path"] != "/sparql" || line["status"] != float64(400) || !strings.Contains(line["error"].(string), "expected '{'") {
		t.Errorf("log line %v", line)
	}
}

func TestGracefulShutdown(t *testing.T) {
	fq := &fakeQuery{started: make(chan struct{}), released: make(chan struct{})}
	srv := New(Options{Query: fq, ShutdownGrace: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	addr := <-addrc

	type result struct {
		status int
		body   string
		err    error
	}
	inFlight := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + addr.String() + "/sparql?query=SLOW")
		if err != nil {
			inFlight <- result{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		inFlight <- result{resp.StatusCode, string(b), err}
	}()
	<-fq.started
	cancel() // begin shutdown while the query runs
	time.Sleep(50 * time.Millisecond)
	if _, err := net.DialTimeout("tcp", addr.String(), time.Second); err == nil {
		t.Error("the server still accepts connections during shutdown")
	}
	close(fq.released)
	r := <-inFlight
	if r.err != nil || r.status != http.StatusOK || !strings.Contains(r.body, "true") {
		t.Errorf("in-flight request: %+v", r)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve returned %v", err)
	}
}

func TestListenError(t *testing.T) {
	srv := New(Options{})
	err := srv.ListenAndServe(context.Background(), "256.0.0.1:1", nil)
	if err == nil || !strings.Contains(err.Error(), "256.0.0.1") {
		t.Errorf("err = %v", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("error does not wrap the net error: %v", err)
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		accept string
		offers []Format
		want   Format
		ok     bool
	}{
		{"", bindingsFormats, FormatJSON, true},
		{"*/*", bindingsFormats, FormatJSON, true},
		{"text/*", bindingsFormats, FormatCSV, true},
		{"text/*;q=0.5, text/tab-separated-values", bindingsFormats, FormatTSV, true},
		{"application/sparql-results+xml;q=0.9, application/sparql-results+json;q=0.8", bindingsFormats, FormatXML, true},
		{"application/json", bindingsFormats, FormatJSON, true},
		{"text/xml", bindingsFormats, FormatXML, true},
		{"application/sparql-results+json;q=0", bindingsFormats, "", false},
		{"image/png", bindingsFormats, "", false},
		{"application/n-triples, text/turtle;q=0.5", graphFormats, FormatNTriples, true},
		{"text/plain", graphFormats, FormatNTriples, true},
		{"application/x-turtle", graphFormats, FormatTurtle, true},
		{"application/rdf+xml", graphFormats, FormatRDFXML, true},
		{"TEXT/TURTLE", graphFormats, FormatTurtle, true},
	}
	for _, tc := range tests {
		got, ok := negotiate(tc.accept, tc.offers)
		if got != tc.want || ok != tc.ok {
			t.Errorf("negotiate(%q) = %v, %v; want %v, %v", tc.accept, got, ok, tc.want, tc.ok)
		}
	}
}
