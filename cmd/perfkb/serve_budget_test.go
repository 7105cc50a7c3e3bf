package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveBudgetEnv runs TestServeQueryMemory, which builds perfkb, loads
// 100,000 triples and runs a server: too slow for every `go test`.
const serveBudgetEnv = "PERFKB_TEST_SERVE_BUDGET"

// TestServeQueryMemory runs `perfkb serve --query-memory 64MiB` as its own
// process over 100,000 triples and sends it queries that buffer without
// bound over cross joins (10^10 rows). Each must end in a clean answer:
// 422 naming the limit when it fails before the first row, a cut
// connection when rows were already streaming (never a complete 200), a
// timeout for COUNT(*), which streams; four at once share the pool
// (--query-memory-total). The server's peak RSS (VmHWM) must stay below
// the budget plus 256 MiB.
func TestServeQueryMemory(t *testing.T) {
	if os.Getenv(serveBudgetEnv) == "" {
		t.Skip("builds perfkb, loads 100k triples and runs a server for ~20 s; set " + serveBudgetEnv + "=1 to run it")
	}
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, sites: map[string]*siteProc{}}
	e.env = append(os.Environ(), "PERFKB_TOKEN=")

	nt := filepath.Join(dir, "data.nt")
	f, err := os.Create(nt)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const triples = 100000
	for i := range triples {
		fmt.Fprintf(w, "<http://ex/s%d> <http://ex/p%d> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", i/10, i%10, i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	e.mustRun(t, "--store", "native:store.db", "load", nt)
	const budget = 64 << 20
	// The pool of all queries is the one query's budget too, so queries
	// at once cannot hold more than one alone.
	p := e.serve(t, "store.db", "--query-memory", "64MiB", "--query-memory-total", "64MiB", "--timeout", "30s")

	const cross = "?a ?b ?c . ?d ?e ?f"
	tests := []struct {
		name  string
		query string
		want  string // "limit", "cut" or "timeout"
	}{
		{"ORDER BY without LIMIT", "SELECT * { " + cross + " } ORDER BY ?c ?f", "limit"},
		{"DISTINCT under COUNT", "SELECT (COUNT(*) AS ?n) { SELECT DISTINCT ?a ?c ?d ?f { " + cross + " } }", "limit"},
		{"GROUP BY", "SELECT ?c ?f (COUNT(*) AS ?n) { " + cross + " } GROUP BY ?c ?f", "limit"},
		{"streaming DISTINCT", "SELECT DISTINCT ?c ?f { " + cross + " }", "cut"},
		{"COUNT(*) of a three-way cross join", "SELECT (COUNT(*) AS ?n) { " + cross + " . ?g ?h ?i }", "timeout"},
	}
	client := &http.Client{Timeout: 60 * time.Second}
	t.Logf("server RSS before the queries %d MiB", vmHWM(t, p.cmd.Process.Pid)>>20)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := p.url + "/sparql?query=" + url.QueryEscape(tc.query)
			if tc.want == "timeout" {
				target += "&timeout=2s"
			}
			start := time.Now()
			resp, err := client.Get(target)
			if err != nil {
				t.Fatal(err)
			}
			body, readErr := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Logf("%d after %v, %d bytes, read error %v", resp.StatusCode, time.Since(start).Round(time.Millisecond), len(body), readErr)
			var envelope struct {
				ErrorType string `json:"errorType"`
				Error     string `json:"error"`
				Limit     string `json:"limit"`
			}
			switch tc.want {
			case "limit":
				if resp.StatusCode != http.StatusUnprocessableEntity {
					t.Fatalf("status %d, want 422: %.300s", resp.StatusCode, body)
				}
				if err := json.Unmarshal(body, &envelope); err != nil {
					t.Fatalf("not the error envelope: %v: %.300s", err, body)
				}
				if envelope.Limit != "query-memory" || !strings.Contains(envelope.Error, "query-memory limit of 64 MiB exceeded") {
					t.Errorf("envelope %+v, want the query-memory limit of 64 MiB", envelope)
				}
			case "cut":
				// Rows were sent before the budget ran out: the server
				// aborts the response so it cannot pass for complete.
				if resp.StatusCode == http.StatusOK && readErr == nil {
					t.Fatalf("a complete 200 of %d bytes, want the response cut", len(body))
				}
				if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnprocessableEntity {
					t.Fatalf("status %d: %.300s", resp.StatusCode, body)
				}
			case "timeout":
				if resp.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("status %d, want 503 (timed out): %.300s", resp.StatusCode, body)
				}
			}
			t.Logf("server peak RSS so far %d MiB", vmHWM(t, p.cmd.Process.Pid)>>20)
		})
	}
	t.Run("4 ORDER BY at once", func(t *testing.T) {
		type answer struct {
			status int
			body   string
			err    error
		}
		answers := make(chan answer, 4)
		for range 4 {
			go func() {
				resp, err := client.Get(p.url + "/sparql?query=" + url.QueryEscape("SELECT * { "+cross+" } ORDER BY ?f ?c"))
				if err != nil {
					answers <- answer{err: err}
					return
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				answers <- answer{resp.StatusCode, string(body), err}
			}()
		}
		for range 4 {
			a := <-answers
			if a.err != nil {
				t.Fatal(a.err)
			}
			// 422 for the query's own limit, 503 for the shared one.
			ok := a.status == 422 && strings.Contains(a.body, `"limit":"query-memory"`) ||
				a.status == 503 && strings.Contains(a.body, `"limit":"query-memory-total"`)
			if !ok {
				t.Errorf("status %d: %.300s", a.status, a.body)
			}
			t.Logf("%d %.120s", a.status, a.body)
		}
		t.Logf("server peak RSS so far %d MiB", vmHWM(t, p.cmd.Process.Pid)>>20)
	})
	hwm := vmHWM(t, p.cmd.Process.Pid)
	t.Logf("server peak RSS (VmHWM) %d MiB with --query-memory 64MiB", hwm>>20)
	if hwm > budget+256<<20 {
		t.Errorf("server peak RSS %d MiB, want below the budget + 256 MiB (%d MiB)", hwm>>20, (budget+256<<20)>>20)
	}
	// The server still answers.
	resp, err := client.Get(p.url + "/sparql?query=" + url.QueryEscape("ASK { ?s ?p ?o }"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the refused queries: status %d", resp.StatusCode)
	}
}

// vmHWM reads a process's peak resident set size from /proc.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc to read the server's RSS from: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kib << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
