package pg_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/pg"
)

// The tests of this package share one throwaway PostgreSQL server and one
// database; each store gets a schema of its own.
var (
	server     *pgtest.Server
	skipReason string
	dsn        string
	pool       *pgxpool.Pool
	schemas    atomic.Int64
)

func TestMain(m *testing.M) {
	srv, stop, reason, err := pgtest.StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server, skipReason = srv, reason
	code := func() int {
		if srv == nil {
			return m.Run()
		}
		d, drop, err := srv.CreateDatabase(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer drop()
		dsn = d
		p, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer p.Close()
		pool = p
		return m.Run()
	}()
	stop()
	os.Exit(code)
}

// newStore opens a store in a new schema of the shared database.
func newStore(t testing.TB) *pg.Store {
	t.Helper()
	if server == nil {
		t.Skip(skipReason)
	}
	schema := fmt.Sprintf("t%d", schemas.Add(1))
	s, err := pg.OpenPool(context.Background(), pool, pg.Options{Schema: schema})
	if err != nil {
		t.Fatalf("pg.OpenPool: %v", err)
	}
	t.Cleanup(func() {
		_, _ = pool.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	return s
}

func TestDataset(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return newStore(t) })
}

// TestSchemaParameter: a DSN's perfkb_schema parameter picks the schema,
// and is not passed on to the server (which would reject it).
func TestSchemaParameter(t *testing.T) {
	if server == nil {
		t.Skip(skipReason)
	}
	ctx := context.Background()
	s, err := pg.Open(ctx, dsn+"&perfkb_schema=fromdsn", pg.Options{})
	if err != nil {
		t.Fatalf("Open with perfkb_schema: %v", err)
	}
	defer s.Close()
	t.Cleanup(func() { _, _ = pool.Exec(ctx, "DROP SCHEMA fromdsn CASCADE") })
	if s.Schema() != "fromdsn" {
		t.Errorf("Schema() = %q; want fromdsn", s.Schema())
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM fromdsn.quads").Scan(&n); err != nil {
		t.Errorf("the schema's quads table: %v", err)
	}
	if _, err := pg.Open(ctx, dsn, pg.Options{Schema: "Bad-Name"}); err == nil {
		t.Errorf("Open with schema Bad-Name succeeded; want an error")
	}
}
