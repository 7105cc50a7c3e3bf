package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/perfkb/perfkb/internal/pgtest"
)

// TestReadStore runs `perfkb serve --store PRIMARY --read-store STANDBY`
// on a primary and a streaming hot standby and checks where queries go:
//   - a client reads its own write at once, whether the standby has
//     replayed it or not;
//   - with the standby's replay paused, a change made on the primary
//     behind perfkb's back (no notice, no commit hook: raw SQL) is not
//     seen, so queries are answered by the standby;
//   - a write through the server while the standby stays paused is read
//     back (after --read-wait, from the primary), and so is the change
//     behind its back then;
//   - once replay resumes the standby answers again, and after it is
//     promoted queries still answer, from the primary.
func TestReadStore(t *testing.T) {
	pair := pgtest.StartPair(t)
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, env: os.Environ()}
	const tok = "read-store-token-0001"
	srv := e.serveSpec(t, pair.Primary.DSN, "--token", tok, "--read-store", pair.Standby.DSN, "--read-wait", "300ms")
	client := &http.Client{Timeout: 10 * time.Second}
	ctx := context.Background()

	update := func(text string) {
		t.Helper()
		postUpdate(t, client, srv.url, tok, text)
	}
	ask := func(pattern string) bool {
		t.Helper()
		resp, err := client.Get(srv.url + "/sparql?query=" + url.QueryEscape("ASK { "+pattern+" }"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ASK: HTTP %d: %.300s", resp.StatusCode, body)
		}
		return strings.Contains(string(body), "true")
	}
	conn := func(dsn string) *pgx.Conn {
		t.Helper()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	primary, standby := conn(pair.Primary.DSN), conn(pair.Standby.DSN)
	caughtUp := func() {
		t.Helper()
		for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
			var ok bool
			if err := standby.QueryRow(ctx, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", currentLSN(t, primary)).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if ok {
				return
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the standby did not catch up in 10 s")
			}
		}
	}

	const s1 = `<http://e/s1> <http://e/p> "1"`
	const s2 = `<http://e/s2> <http://e/p> "2"`
	update("INSERT DATA { " + s1 + " }")
	if !ask(s1) {
		t.Fatal("a client does not read its own write")
	}
	caughtUp()
	if _, err := standby.Exec(ctx, "SELECT pg_wal_replay_pause()"); err != nil {
		t.Fatal(err)
	}
	// Behind perfkb's back: every quad gone on the primary.
	if _, err := primary.Exec(ctx, "DELETE FROM perfkb.quads"); err != nil {
		t.Fatal(err)
	}
	if !ask(s1) {
		t.Fatal("with the standby paused, a change behind perfkb's back was seen: queries did not go to the standby")
	}
	update("INSERT DATA { " + s2 + " }")
	if !ask(s2) {
		t.Fatal("with the standby paused, a client does not read its own write")
	}
	if ask(s1) {
		t.Fatal("after a write the standby has not replayed, a query still went to the standby")
	}
	if _, err := standby.Exec(ctx, "SELECT pg_wal_replay_resume()"); err != nil {
		t.Fatal(err)
	}
	caughtUp()
	if ask(s1) || !ask(s2) {
		t.Fatal("after replay resumed, the standby's answers differ from the primary's")
	}
	if err := pair.Promote(); err != nil {
		t.Fatal(err)
	}
	// The promoted server takes no more reads: a write behind the
	// primary's back shows it is the primary that answers (committed
	// locally: the primary has no synchronous standby left to wait for).
	if _, err := primary.Exec(ctx, "SET synchronous_commit = local"); err != nil {
		t.Fatal(err)
	}
	if _, err := primary.Exec(ctx, "DELETE FROM perfkb.quads"); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ask(s2); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("5 s after the standby was promoted, queries still read it")
		}
	}
}

// currentLSN returns the primary's current WAL position as text.
func currentLSN(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	var lsn string
	if err := c.QueryRow(context.Background(), "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	return lsn
}
