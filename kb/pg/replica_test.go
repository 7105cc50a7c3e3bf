package pg_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/pg"
)

// TestFailover runs writers against two stores on a primary (two servers
// sharing one database) and readers against a store on its synchronous
// hot standby; then it closes one primary store while writes are in
// flight, kills the primary with SIGKILL and promotes the standby. Every
// write that was acknowledged must be on the promoted standby, and every
// write whole: each Apply adds a pair of quads, and no snapshot, on the
// standby during the run or after promotion, may hold half a pair.
//
// The servers are kb/pg stores in this process, each with its own
// connection pool, not perfkb serve processes. It runs with PERFKB_PG_LONG
// set, for PERFKB_PG_LONG_SECONDS (default 20) seconds of writing.
func TestFailover(t *testing.T) {
	if os.Getenv("PERFKB_PG_LONG") == "" {
		t.Skip("a failover test of about a minute; set PERFKB_PG_LONG=1 to run it")
	}
	seconds := 20
	if s := os.Getenv("PERFKB_PG_LONG_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("PERFKB_PG_LONG_SECONDS=%q: want a positive number", s)
		}
		seconds = n
	}
	ctx := context.Background()
	pair := pgtest.StartPair(t)
	open := func(dsn string) *pg.Store {
		t.Helper()
		s, err := pg.Open(ctx, dsn, pg.Options{})
		if err != nil {
			t.Fatalf("pg.Open(%s): %v", dsn, err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	srvA, srvB := open(pair.Primary.DSN), open(pair.Primary.DSN)
	vocab, err := srvA.Intern(ctx, []kb.Term{kb.IRI("http://e/left"), kb.IRI("http://e/right"), kb.IRI("http://e/g"), kb.String("v")})
	if err != nil {
		t.Fatal(err)
	}
	left, right, g, v := vocab[0], vocab[1], vocab[2], vocab[3]
	// The standby store opens once the schema has replicated.
	var reader *pg.Store
	for deadline := time.Now().Add(30 * time.Second); ; {
		s, err := pg.Open(ctx, pair.Standby.DSN, pg.Options{})
		if err == nil {
			reader = s
			t.Cleanup(func() { _ = s.Close() })
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("opening the store on the standby: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	const writers, readers = 16, 16
	var (
		mu    sync.Mutex
		acked = map[string]bool{} // subjects whose pair was acknowledged
		stop  atomic.Bool
		wg    sync.WaitGroup
		reads atomic.Int64
	)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv := srvA
			if w%2 == 1 {
				srv = srvB
			}
			for i := 0; !stop.Load(); i++ {
				name := fmt.Sprintf("http://e/w%d-%d", w, i)
				wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				ids, err := srv.Intern(wctx, []kb.Term{kb.IRI(name)})
				if err == nil {
					err = srv.Apply(wctx, kb.Delta{Add: []kb.Quad{{S: ids[0], P: left, O: v, G: g}, {S: ids[0], P: right, O: v, G: g}}})
				}
				cancel()
				if err == nil {
					mu.Lock()
					acked[name] = true
					mu.Unlock()
				} else {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	var halves atomic.Int64
	checkPairs := func(s *pg.Store) (int, error) {
		quads, err := kb.Collect(s.Match(ctx, kb.Pattern{G: g}))
		if err != nil {
			return 0, err
		}
		n := map[kb.ID]int{}
		for _, q := range quads {
			n[q.S]++
		}
		for _, c := range n {
			if c != 2 {
				halves.Add(1)
			}
		}
		return len(n), nil
	}
	readersDone := make(chan struct{})
	var rwg sync.WaitGroup
	for r := 0; r < readers; r++ {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-readersDone:
					return
				default:
				}
				if _, err := checkPairs(reader); err == nil {
					reads.Add(1)
				} else {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}

	time.Sleep(time.Duration(seconds) * time.Second / 2)
	_ = srvB.Close() // one server goes away while its writers are writing
	time.Sleep(time.Duration(seconds) * time.Second / 2)
	if err := pair.KillPrimary(); err != nil {
		t.Fatalf("killing the primary: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if err := pair.Promote(); err != nil {
		t.Fatalf("promoting the standby: %v", err)
	}
	close(readersDone)
	rwg.Wait()

	promoted := open(pair.Standby.DSN)
	subjects, err := checkPairs(promoted)
	if err != nil {
		t.Fatalf("reading the promoted standby: %v", err)
	}
	missing := 0
	for name := range acked {
		id, ok, err := promoted.Lookup(ctx, kb.IRI(name))
		if err == nil && ok {
			if n, err := promoted.Count(ctx, kb.Pattern{S: id, G: g}, true); err == nil && n == 2 {
				continue
			}
		}
		if missing++; missing <= 5 {
			t.Errorf("acknowledged write %s is not on the promoted standby", name)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes are missing after failover", missing, len(acked))
	}
	if h := halves.Load(); h > 0 {
		t.Errorf("%d snapshots held half a pair", h)
	}
	if len(acked) == 0 || reads.Load() == 0 {
		t.Fatalf("the run wrote %d pairs and read %d snapshots; want some of each", len(acked), reads.Load())
	}
	// A write on the promoted standby succeeds.
	if err := promoted.Apply(ctx, kb.Delta{Add: []kb.Quad{{S: left, P: left, O: v, G: g}}}); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("writing to the promoted standby: %v", err)
	}
	t.Logf("%d acknowledged pairs, %d pairs on the promoted standby, %d reads on the standby during the run", len(acked), subjects, reads.Load())
}
