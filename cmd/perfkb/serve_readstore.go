package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/server/backend"
)

// readStoreFlags are serve's --read-store and --read-wait: queries on a
// PostgreSQL hot standby (docs/postgres.md, "Read replicas").
type readStoreFlags struct {
	dsn    string
	wait   time.Duration
	router *backend.ReadRouter // set by open
}

func (f *readStoreFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.dsn, "read-store", "", "a postgres:// DSN of a hot standby of the --store database: queries go to it when it has replayed every write this server knows of (its own and, through the database's notices, other servers'), else to the primary")
	fs.DurationVar(&f.wait, "read-wait", 2*time.Second, "with --read-store: how long a query waits for the standby to replay the last known write before it runs on the primary")
}

// open opens the standby for primary, the store serve opened; it does
// nothing without --read-store. The returned func closes the standby.
func (f *readStoreFlags) open(ctx context.Context, primary kb.Dataset, logger *slog.Logger) (func(), error) {
	if f.dsn == "" {
		return func() {}, nil
	}
	p, ok := primary.(*pg.Store)
	if !ok {
		return nil, usageError(errors.New("--read-store needs a postgres:// --store (the primary)"))
	}
	if !strings.HasPrefix(f.dsn, "postgres://") && !strings.HasPrefix(f.dsn, "postgresql://") {
		return nil, usageError(fmt.Errorf("--read-store %q: want a postgres:// DSN", f.dsn))
	}
	replica, err := pg.Open(ctx, f.dsn, pg.Options{Schema: p.Schema()})
	if err != nil {
		return nil, fmt.Errorf("--read-store: %w", err)
	}
	f.router = &backend.ReadRouter{Replica: replica, Positions: pgPositions{p, replica}, Wait: f.wait, Logger: logger}
	p.OnCommit(f.router.Wrote)
	return func() { p.OnCommit(nil); replica.Close() }, nil
}

// pgPositions is backend.ReplicaPositions over a primary and its standby.
type pgPositions struct{ primary, replica *pg.Store }

func (p pgPositions) PrimaryPosition(ctx context.Context) (uint64, error) {
	return p.primary.WALPosition(ctx)
}

func (p pgPositions) ReplicaPosition(ctx context.Context) (uint64, bool, error) {
	return p.replica.ReplayPosition(ctx)
}

// alsoOnChange returns n with f run on each change it reports, before the
// change is passed on.
func alsoOnChange(n kb.ChangeNotifier, f func()) kb.ChangeNotifier {
	if f == nil {
		return n
	}
	return teeNotifier{n, f}
}

type teeNotifier struct {
	kb.ChangeNotifier
	f func()
}

func (t teeNotifier) Changes(ctx context.Context) (<-chan kb.Change, error) {
	in, err := t.ChangeNotifier.Changes(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan kb.Change)
	go func() {
		defer close(out)
		for c := range in {
			t.f()
			select {
			case out <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
