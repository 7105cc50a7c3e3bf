package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/internal/pgtest"
)

// TestPostgresFailoverServe runs issue 28's failover on loopback through
// real perfkb serve processes: a PostgreSQL primary with a synchronous
// streaming standby (pg_basebackup -R), two servers on the primary taking
// writes and one on the standby taking reads, 16 writers and 16 readers
// over HTTP. Halfway through, one primary server is killed with SIGKILL;
// at the end the primary itself, and the standby is promoted. Then:
//   - every write a server acknowledged (HTTP 2xx) is on the promoted
//     standby, and every write is whole: each INSERT DATA adds a pair of
//     triples about one subject, and no read, during the run or after,
//     sees a subject with one of them;
//   - the standby's server answered every read except between the kill
//     of the primary and the end of the promotion, and the surviving
//     primary server kept acknowledging writes after its peer died;
//   - after promotion, the standby's server takes a write.
//
// It runs with PERFKB_PG_LONG set, for PERFKB_PG_LONG_SECONDS (default 60)
// seconds of writing.
func TestPostgresFailoverServe(t *testing.T) {
	if os.Getenv("PERFKB_PG_LONG") == "" {
		t.Skip("a failover test of a minute or more; set PERFKB_PG_LONG=1 to run it")
	}
	seconds := 60
	if s := os.Getenv("PERFKB_PG_LONG_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			t.Fatalf("PERFKB_PG_LONG_SECONDS=%q: want a number >= 2", s)
		}
		seconds = n
	}
	pair := pgtest.StartPair(t)
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, env: os.Environ()}
	const tok = "failover-token-0001"
	srvA := e.serveSpec(t, pair.Primary.DSN, "--token", tok)
	srvB := e.serveSpec(t, pair.Primary.DSN, "--token", tok)
	// The primary commits synchronously to the standby: the schema srvA
	// created is there.
	srvC := e.serveSpec(t, pair.Standby.DSN, "--token", tok)

	client := &http.Client{Timeout: 5 * time.Second}
	post := func(base, ctype, body string) (int, []byte, error) {
		req, err := http.NewRequest("POST", base+"/sparql", strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Accept", "application/sparql-results+json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	// pairs returns the number of triples of each subject in the test
	// graph, read through the server at base.
	const countQuery = `SELECT ?s (COUNT(*) AS ?n) WHERE { GRAPH <http://e/g> { ?s ?p ?o } } GROUP BY ?s`
	pairs := func(base string) (map[string]int, error) {
		code, body, err := post(base, "application/sparql-query", countQuery)
		if err != nil {
			return nil, err
		}
		if code != http.StatusOK {
			return nil, fmt.Errorf("HTTP %d: %.200s", code, body)
		}
		var res struct {
			Results struct {
				Bindings []map[string]struct{ Value string } `json:"bindings"`
			} `json:"results"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			return nil, err
		}
		out := map[string]int{}
		for _, b := range res.Results.Bindings {
			n, err := strconv.Atoi(b["n"].Value)
			if err != nil {
				return nil, err
			}
			out[b["s"].Value] = n
		}
		return out, nil
	}

	const writers, readers = 16, 16
	var (
		mu        sync.Mutex
		acked     = map[string]bool{}
		stop      atomic.Bool
		bDead     atomic.Bool
		ackedA    atomic.Int64 // srvA's acknowledgements after srvB died
		wg        sync.WaitGroup
		reads     atomic.Int64
		halves    atomic.Int64
		promoting atomic.Bool // from the primary's kill to the end of promotion
		readFails atomic.Int64
		failMsg   atomic.Value
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv := srvA
			if w%2 == 1 {
				srv = srvB
			}
			for i := 0; !stop.Load(); i++ {
				s := fmt.Sprintf("http://e/w%d-%d", w, i)
				code, _, err := post(srv.url, "application/sparql-update",
					fmt.Sprintf(`INSERT DATA { GRAPH <http://e/g> { <%s> <http://e/left> "v" . <%s> <http://e/right> "v" } }`, s, s))
				if err == nil && code/100 == 2 {
					mu.Lock()
					acked[s] = true
					mu.Unlock()
					if srv == srvA && bDead.Load() {
						ackedA.Add(1)
					}
				} else {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	readersDone := make(chan struct{})
	var rwg sync.WaitGroup
	for range readers {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-readersDone:
					return
				default:
				}
				during := promoting.Load()
				got, err := pairs(srvC.url)
				if err != nil {
					if !during && !promoting.Load() {
						readFails.Add(1)
						failMsg.Store(err.Error())
					}
					time.Sleep(50 * time.Millisecond)
					continue
				}
				reads.Add(1)
				for _, n := range got {
					if n != 2 {
						halves.Add(1)
					}
				}
			}
		}()
	}

	time.Sleep(time.Duration(seconds) * time.Second / 2)
	if err := srvB.cmd.Process.Kill(); err != nil { // kill -9 one server while its writers write
		t.Fatal(err)
	}
	bDead.Store(true)
	time.Sleep(time.Duration(seconds) * time.Second / 2)
	promoting.Store(true)
	if err := pair.KillPrimary(); err != nil {
		t.Fatalf("killing the primary: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if err := pair.Promote(); err != nil {
		t.Fatalf("promoting the standby: %v", err)
	}
	// The standby's server reconnects on its next request.
	var after map[string]int
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; {
		if after, err = pairs(srvC.url); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	promoting.Store(false)
	time.Sleep(time.Second) // reads after promotion must succeed again
	close(readersDone)
	rwg.Wait()
	if err != nil {
		t.Fatalf("reading through the standby's server after promotion: %v", err)
	}

	missing := 0
	for s := range acked {
		if after[s] != 2 {
			if missing++; missing <= 5 {
				t.Errorf("acknowledged write %s: %d of its 2 triples on the promoted standby", s, after[s])
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes are missing after failover", missing, len(acked))
	}
	for s, n := range after {
		if n != 2 {
			t.Errorf("%s has %d triples on the promoted standby: a partial write", s, n)
		}
	}
	if h := halves.Load(); h > 0 {
		t.Errorf("%d reads saw half a pair", h)
	}
	if n := readFails.Load(); n > 0 {
		t.Errorf("%d reads through the standby's server failed outside the promotion (last: %v)", n, failMsg.Load())
	}
	if len(acked) == 0 || reads.Load() == 0 || ackedA.Load() == 0 {
		t.Fatalf("the run acknowledged %d writes (%d by the surviving server after its peer died) and answered %d reads; want some of each",
			len(acked), ackedA.Load(), reads.Load())
	}
	code, body, err := post(srvC.url, "application/sparql-update", `INSERT DATA { GRAPH <http://e/g2> { <http://e/after> <http://e/p> "promoted" } }`)
	if err != nil || code/100 != 2 {
		t.Errorf("a write through the standby's server after promotion: HTTP %d %v %.200s", code, err, body)
	}
	t.Logf("%d acknowledged writes (%d by the surviving primary server after the other was killed), %d pairs on the promoted standby, %d reads through the standby's server, %d s of writing",
		len(acked), ackedA.Load(), len(after), reads.Load(), seconds)
}
