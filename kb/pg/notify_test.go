package pg_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/pg"
)

// TestChanges: two Stores on one schema (two servers on one database) and
// a third on another schema. A write one Store commits reaches the
// other's Changes within a second, a bulk load too; the listener's own
// writes, the other schema's writes and a write that fails (rolled back)
// send nothing; when the listening connection is killed it listens again
// and says Resync, and later writes still arrive; cancelling the context
// closes the channel.
func TestChanges(t *testing.T) {
	if server == nil {
		t.Skip(skipReason)
	}
	ctx := context.Background()
	schema := fmt.Sprintf("t%d", schemas.Add(1))
	t.Cleanup(func() { _, _ = pool.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	open := func() *pg.Store {
		s, err := pg.Open(ctx, dsn, pg.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b, other := open(), open(), newStore(t)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := a.Changes(lctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	write := func(s *pg.Store) {
		t.Helper()
		n++
		writeOne(t, s, n)
	}
	expect := func(what string, resync bool) time.Duration {
		t.Helper()
		start := time.Now()
		select {
		case c, ok := <-ch:
			if !ok {
				t.Fatalf("%s: the channel closed", what)
			}
			if c.Resync != resync {
				t.Fatalf("%s: got %+v, want Resync %v", what, c, resync)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s: no change within a second", what)
		}
		return time.Since(start)
	}
	quiet := func(what string) {
		t.Helper()
		select {
		case c := <-ch:
			t.Fatalf("%s: got %+v, want nothing", what, c)
		case <-time.After(300 * time.Millisecond):
		}
	}

	var worst time.Duration
	for range 20 {
		write(b)
		worst = max(worst, expect("a write through the other Store", false))
	}
	t.Logf("20 writes through the other Store: the slowest notice arrived %v after Apply returned", worst)
	write(a)
	quiet("a write through the listening Store")
	write(other)
	quiet("a write to another schema")
	if err := b.Apply(ctx, kb.Delta{Add: []kb.Quad{{S: 1 << 40, P: 1 << 40, O: 1 << 40, G: 1 << 40}}}); err == nil {
		t.Fatal("a write of unknown IDs succeeded")
	}
	quiet("a write that failed")

	bw, err := b.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := b.Intern(ctx, []kb.Term{kb.IRI("http://ex/bulk"), kb.IRI("http://ex/p"), kb.IRI("http://ex/g")})
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.Add(ctx, []kb.Quad{{S: ids[0], P: ids[1], O: ids[0], G: ids[2]}}); err != nil {
		t.Fatal(err)
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	expect("a bulk load through the other Store", false)

	// Kill the listening connection: a Resync, then notices again.
	tag, err := pool.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "+"perfkb_changes"+"'")
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("killing the listener: %v (%d rows)", err, tag.RowsAffected())
	}
	select {
	case c := <-ch:
		if !c.Resync {
			t.Fatalf("after the listener was killed: got %+v, want Resync", c)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no Resync within 3 s of killing the listener")
	}
	write(b)
	expect("a write after listening again", false)

	cancel()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("a change after the context ended")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the channel did not close when the context ended")
	}
}

// TestChangesOnStandby: a Store on a hot standby, where PostgreSQL takes
// no LISTEN, still follows the primary's writes (by the standby's replay
// position), and once the standby is promoted it listens: a write a Store
// commits to the promoted server arrives as a notice. Before the standby
// mode, Changes on the standby failed ("cannot execute LISTEN during
// recovery") and so did perfkb serve on a standby.
func TestChangesOnStandby(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a primary and a streaming standby; skipped with -short")
	}
	pair := pgtest.StartPair(t)
	ctx := context.Background()
	open := func(dsn string) *pg.Store {
		t.Helper()
		s, err := pg.Open(ctx, dsn, pg.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	primary := open(pair.Primary.DSN) // creates the schema, committed on the standby too
	standby := open(pair.Standby.DSN)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := standby.Changes(lctx)
	if err != nil {
		t.Fatalf("Changes on a hot standby: %v", err)
	}
	n := 0
	write := func(s *pg.Store) {
		t.Helper()
		n++
		writeOne(t, s, n)
	}
	// await waits for a Change with Resync resync, passing over others
	// (the standby's replay moves with any WAL the primary writes).
	await := func(what string, resync bool, within time.Duration) {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case c, ok := <-ch:
				if !ok {
					t.Fatalf("%s: the channel closed", what)
				}
				if c.Resync == resync {
					return
				}
			case <-deadline:
				t.Fatalf("%s: no change with Resync %v within %v", what, resync, within)
			}
		}
	}
	drain := func() {
		for {
			select {
			case <-ch:
			case <-time.After(2 * standbyPollForTest):
				return
			}
		}
	}
	for i := range 3 {
		drain()
		write(primary)
		await(fmt.Sprintf("write %d on the primary", i+1), false, 2*time.Second)
	}
	if err := pair.KillPrimary(); err != nil {
		t.Fatal(err)
	}
	if err := pair.Promote(); err != nil {
		t.Fatal(err)
	}
	await("the promotion", true, 10*time.Second)
	promoted := open(pair.Standby.DSN)
	for i := range 3 {
		drain()
		write(promoted)
		await(fmt.Sprintf("write %d on the promoted standby", i+1), false, time.Second)
	}
}

// standbyPollForTest is a little more than pg's standbyPoll.
const standbyPollForTest = 250 * time.Millisecond

// writeOne commits one quad through s, its subject numbered n.
func writeOne(t *testing.T, s *pg.Store, n int) {
	t.Helper()
	ctx := context.Background()
	ids, err := s.Intern(ctx, []kb.Term{kb.IRI(fmt.Sprintf("http://ex/s%d", n)), kb.IRI("http://ex/p"), kb.IRI("http://ex/g")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: []kb.Quad{{S: ids[0], P: ids[1], O: ids[0], G: ids[2]}}}); err != nil {
		t.Fatal(err)
	}
}
