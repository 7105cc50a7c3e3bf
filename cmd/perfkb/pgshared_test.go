package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/ontology"
)

// TestPostgresServersShareWrites runs two `perfkb serve --rules` processes
// on one PostgreSQL database, as behind a load balancer. A write through
// server A that makes a finding reaches a /findings/stream client of
// server B within a second of A's answer, and B's findings list (which B
// caches per write generation) shows it within a second too; the delete
// through A withdraws it from both likewise. B learns of A's writes only
// from the database (LISTEN/NOTIFY): without that, its cached list would
// keep answering what it computed before A's write.
func TestPostgresServersShareWrites(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.NewDatabase(t)
	dir := t.TempDir()
	rules := filepath.Join(dir, "slow.rules")
	if err := os.WriteFile(rules, []byte(`@prefix ex: <http://example.org/>.
@prefix perfonto: <`+ontology.Namespace+`>.
[slow: (?x ex:wtime ?w), greaterThan(?w, 10), makeSkolem(?p, ?x) -> (?x perfonto:hasProblem ?p), (?p rdf:type perfonto:LoadImbalance)]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, env: os.Environ()}
	const tok = "shared-writes-token-01"
	a := e.serveSpec(t, dsn, "--token", tok, "--rules", rules)
	b := e.serveSpec(t, dsn, "--token", tok, "--rules", rules)
	client := &http.Client{Timeout: 10 * time.Second}

	findings := func(base string) int {
		t.Helper()
		resp, err := client.Get(base + "/findings")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s/findings: HTTP %d: %.300s", base, resp.StatusCode, body)
		}
		return strings.Count(string(body), `"problem"`)
	}
	update := func(base, text string) time.Time {
		t.Helper()
		postUpdate(t, client, base, tok, text)
		return time.Now()
	}
	// within waits up to a second for B's cached list to show want.
	within := func(what string, since time.Time, want int) {
		t.Helper()
		for {
			if n := findings(b.url); n == want {
				t.Logf("%s: B's findings list showed it %v after A answered", what, time.Since(since).Round(time.Millisecond))
				return
			} else if time.Since(since) > time.Second {
				t.Fatalf("%s: B's findings list holds %d findings a second after A answered, want %d", what, n, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	if n := findings(b.url); n != 0 {
		t.Fatalf("B lists %d findings before any write", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", b.url+"/findings/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- ev
			}
		}
		close(events)
	}()
	waitEvent := func(want string, since time.Time, limit time.Duration) {
		t.Helper()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("B's stream ended waiting for %q", want)
				}
				if ev == want {
					t.Logf("B's stream: %q after %v", want, time.Since(since).Round(time.Millisecond))
					return
				}
			case <-time.After(time.Until(since.Add(limit))):
				t.Fatalf("B's stream: no %q event within %v", want, limit)
			}
		}
	}
	waitEvent("synced", time.Now(), 10*time.Second)

	at := update(a.url, `INSERT DATA { <http://example.org/r1> <http://example.org/wtime> 20 }`)
	waitEvent("finding", at, time.Second)
	within("the insert", at, 1)
	at = update(a.url, `DELETE DATA { <http://example.org/r1> <http://example.org/wtime> 20 }`)
	waitEvent("withdrawn", at, time.Second)
	within("the delete", at, 0)
}

// postUpdate sends a SPARQL update with the bearer token and fails t
// unless it is answered 2xx.
func postUpdate(t *testing.T, client *http.Client, base, tok, text string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/sparql", strings.NewReader(text))
	req.Header.Set("Content-Type", "application/sparql-update")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("update through %s: HTTP %d: %.300s", base, resp.StatusCode, body)
	}
}
