package backend

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// The main goroutine keeps the main thread, as in cmd/perfkb: the runtime
// cannot end that thread, so server.LowerPriority leaves a request there
// alone.
func init() { runtime.LockOSThread() }

// nicedThreads lists this process's threads running at nice.
func nicedThreads(t *testing.T, nice string) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 16 && f[16] == nice { // nice is field 19 of stat(5)
			out = append(out, p)
		}
	}
	return out
}

// TestHeavyQueryLowersItsThread runs the real engine behind the real
// server: a cross join, heavy by its steps, runs on a thread at the
// admission's nice value (deprecated --long-query-nice) while it lasts, and that thread is gone once the
// request is; a short query alongside is not lowered.
func TestHeavyQueryLowersItsThread(t *testing.T) {
	// Under nice the threads start above 0 and a request is only ever
	// lowered from there.
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Fatal(err)
	}
	base, err := strconv.Atoi(strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))[16])
	if err != nil {
		t.Fatal(err)
	}
	if base+9 > 19 {
		t.Skipf("the tests run at nice %d: no room to lower a thread by 9", base)
	}
	nice := strconv.Itoa(base + 9)
	if len(nicedThreads(t, nice)) > 0 {
		t.Skip("threads of this process already run at nice " + nice)
	}
	ds := native.OpenMemory()
	var buf bytes.Buffer
	if _, err := sample.Generate(context.Background(), &buf, sample.Options{Sites: 1, Triples: 5000, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := rdfio.Load(context.Background(), ds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatal(err)
	}
	long := NewAdmission(time.Hour, 1) // heavy by steps only
	long.Steps, long.Nice = 4*query.YieldEvery, base+9
	store := graphstore.New(ds)
	ts := httptest.NewServer(server.New(server.Options{
		Query: &QueryEngine{DS: ds, Admission: long}, Graphs: store, Store: store, ThreadPerQuery: true,
	}))
	defer ts.Close()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
			ts.URL+"/sparql?timeout=30&query="+url.QueryEscape("SELECT (COUNT(*) AS ?n) { ?s ?p ?o . ?a ?b ?c }"), nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(nicedThreads(t, nice)) == 0 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("no thread ran at nice " + nice + " while the cross join ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(nicedThreads(t, nice)); n != 1 {
		t.Errorf("%d threads at nice %s, want the long query's one", n, nice)
	}
	resp, err := http.Get(ts.URL + "/sparql?query=" + url.QueryEscape("ASK { ?s ?p ?o }"))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a short query beside the long one: %v %v", resp, err)
	}
	resp.Body.Close()
	if n := len(nicedThreads(t, nice)); n != 1 {
		t.Errorf("%d threads at nice %s after a short query, want 1", n, nice)
	}
	cancel()
	<-done
	deadline = time.Now().Add(10 * time.Second)
	for len(nicedThreads(t, nice)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("threads still at nice %s after the long query ended: %v", nice, nicedThreads(t, nice))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
