package backend

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// envInt reads a positive integer from the environment.
func envInt(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// opStats collects the latencies and status codes of one kind of request.
type opStats struct {
	mu        sync.Mutex
	latencies []time.Duration
	codes     map[int]int
}

func (s *opStats) add(d time.Duration, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.codes == nil {
		s.codes = map[int]int{}
	}
	s.latencies = append(s.latencies, d)
	s.codes[code]++
}

func (s *opStats) percentile(p float64) time.Duration {
	if len(s.latencies) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), s.latencies...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return sorted[int(p*float64(len(sorted)-1))]
}

// TestLoad is the server's load test: 32 clients on loopback mix simple
// SELECTs, Graph Store POSTs of small batches and one rule run against
// sample data, then every acknowledged write is checked. It runs only with
// PERFKB_LOADTEST=1; PERFKB_LOADTEST_SECONDS (default 60),
// PERFKB_LOADTEST_TRIPLES (default 1000000), PERFKB_LOADTEST_CLIENTS
// (default 32) and PERFKB_LOADTEST_STORE (default memory:; native:PATH for
// the embedded store) tune it; PERFKB_LOADTEST_RULES=0 and
// PERFKB_LOADTEST_WRITES=0 leave out the rule run and the writes (to
// measure SELECTs alone).
func TestLoad(t *testing.T) {
	if os.Getenv("PERFKB_LOADTEST") == "" {
		t.Skip("load test: set PERFKB_LOADTEST=1 to run it (it takes a minute or more)")
	}
	seconds := envInt(t, "PERFKB_LOADTEST_SECONDS", 60)
	triples := envInt(t, "PERFKB_LOADTEST_TRIPLES", 1000000)
	clients := int(envInt(t, "PERFKB_LOADTEST_CLIENTS", 32))
	skipRules := os.Getenv("PERFKB_LOADTEST_RULES") == "0"
	skipWrites := os.Getenv("PERFKB_LOADTEST_WRITES") == "0"
	spec := os.Getenv("PERFKB_LOADTEST_STORE")
	if spec == "" {
		spec = "memory:"
	}
	ctx := context.Background()
	ds, err := store.Open(ctx, spec, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()

	loadStart := time.Now()
	pr, pw := io.Pipe()
	go func() {
		_, err := sample.Generate(ctx, pw, sample.Options{Sites: 3, Triples: triples, Seed: 11})
		pw.CloseWithError(err)
	}()
	if _, err := rdfio.Load(ctx, ds, pr, rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "sample"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d sample triples into %s in %.1fs", triples, spec, time.Since(loadStart).Seconds())

	// Region summaries to look up.
	res, err := query.Run(ctx, ds, `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?rs WHERE { ?rs perfonto:hasMetric ?m } LIMIT 2000`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := res.Rows()
	res.Close()
	if err != nil || len(rows) == 0 {
		t.Fatalf("no region summaries: %v", err)
	}
	var summaries []string
	for _, r := range rows {
		summaries = append(summaries, r[0].Value)
	}

	st := graphstore.New(ds)
	srv := server.New(server.Options{
		Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds}, Graphs: st, Sites: st, Store: st,
		Token: token, MaxConcurrent: 64, Timeout: 2 * time.Minute,
	})
	ts := httptest.NewServer(srv) // loopback only
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2, MaxConnsPerHost: clients * 2}}

	// Requests are counted apart while the rule run is in progress (it
	// competes for the two cores and the store's writer).
	var selects, writes, selectsDuringRules, writesDuringRules, ruleRun opStats
	var rulesRunning atomic.Bool
	acked := make([]int, clients) // acknowledged batches per client
	const batch = 10
	start := time.Now()
	deadline := start.Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 42))
			graph := "http://loadtest.example/client/" + strconv.Itoa(c)
			ruleRunDone := false
			for n := 0; time.Now().Before(deadline); n++ {
				if c == 0 && !ruleRunDone && !skipRules && time.Since(start) > time.Duration(seconds)*time.Second/2 {
					// The one rule run, half-way through.
					ruleRunDone = true
					rulesRunning.Store(true)
					t0 := time.Now()
					req, _ := http.NewRequest("POST", ts.URL+"/rules/run", nil)
					req.Header.Set("Authorization", "Bearer "+token)
					resp, err := client.Do(req)
					if err != nil {
						t.Errorf("rule run: %v", err)
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					rulesRunning.Store(false)
					ruleRun.add(time.Since(t0), resp.StatusCode)
					t.Logf("rule run: %d in %.1fs: %s", resp.StatusCode, time.Since(t0).Seconds(), strings.TrimSpace(string(body)))
					continue
				}
				if !skipWrites && rng.IntN(10) == 0 {
					var doc strings.Builder
					for i := 0; i < batch; i++ {
						fmt.Fprintf(&doc, "<%s/s/%d/%d> <http://loadtest.example/p> \"%d\" .\n", graph, n, i, i)
					}
					t0 := time.Now()
					req, _ := http.NewRequest("POST", ts.URL+"/data?graph="+url.QueryEscape(graph), strings.NewReader(doc.String()))
					req.Header.Set("Content-Type", "application/n-triples")
					req.Header.Set("Authorization", "Bearer "+token)
					resp, err := client.Do(req)
					if err != nil {
						t.Errorf("write: %v", err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if rulesRunning.Load() {
						writesDuringRules.add(time.Since(t0), resp.StatusCode)
					} else {
						writes.add(time.Since(t0), resp.StatusCode)
					}
					if resp.StatusCode/100 == 2 {
						acked[c]++
					}
					continue
				}
				q := `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?name ?value WHERE { <` + summaries[rng.IntN(len(summaries))] + `> perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?value }`
				t0 := time.Now()
				resp, err := client.Get(ts.URL + "/sparql?query=" + url.QueryEscape(q))
				if err != nil {
					t.Errorf("select: %v", err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if rulesRunning.Load() {
					selectsDuringRules.add(time.Since(t0), resp.StatusCode)
				} else {
					selects.add(time.Since(t0), resp.StatusCode)
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)

	ruleSeconds := 0.0
	if len(ruleRun.latencies) > 0 {
		ruleSeconds = ruleRun.latencies[0].Seconds()
	}
	quietSeconds := elapsed.Seconds() - ruleSeconds
	report := func(name string, s *opStats, seconds float64) {
		rate := 0.0
		if seconds > 0 {
			rate = float64(len(s.latencies)) / seconds
		}
		t.Logf("%-22s %7d requests, %7.0f/s, p50 %7.2f ms, p99 %8.2f ms, status codes %v", name, len(s.latencies),
			rate, float64(s.percentile(0.5).Microseconds())/1000, float64(s.percentile(0.99).Microseconds())/1000, s.codes)
		for code, n := range s.codes {
			if code >= 500 {
				t.Errorf("%s: %d responses with status %d", name, n, code)
			}
		}
	}
	t.Logf("%d clients for %.1fs on %d triples (%s); the rule run took %.1fs of it", clients, elapsed.Seconds(), triples, spec, ruleSeconds)
	report("SELECT", &selects, quietSeconds)
	report("GSP POST", &writes, quietSeconds)
	report("SELECT during rules", &selectsDuringRules, ruleSeconds)
	report("GSP POST during rules", &writesDuringRules, ruleSeconds)
	report("rule run", &ruleRun, elapsed.Seconds())

	// Every acknowledged write is there.
	for c := 0; c < clients; c++ {
		graph := kb.IRI("http://loadtest.example/client/" + strconv.Itoa(c))
		size, err := st.Size(ctx, graph)
		if err != nil {
			t.Fatal(err)
		}
		if size != int64(acked[c]*batch) {
			t.Errorf("client %d: %d triples in its graph, %d acknowledged", c, size, acked[c]*batch)
		}
	}
}
