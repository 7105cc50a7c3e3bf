package cayleyadapter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	cayleyleveldb "github.com/cayleygraph/cayley/graph/kv/leveldb"
	_ "github.com/cayleygraph/cayley/graph/memstore"     // registers "memstore"
	_ "github.com/cayleygraph/cayley/graph/sql/postgres" // registers "postgres"
	_ "github.com/lib/pq"                                // the "postgres" database/sql driver
)

// Backend names, as Cayley registers them.
const (
	Memstore = "memstore"
	LevelDB  = "leveldb"
	Postgres = "postgres"
)

// OpenOptions tune Open.
type OpenOptions struct {
	Options
	// NoSync skips fsync on each write transaction where the backend
	// supports it (leveldb); faster, but a crash can lose recent writes.
	NoSync bool
}

// Open opens (creating it if needed) a Cayley store of a registered backend
// and wraps it: address is a directory for leveldb, a DSN for postgres and
// empty for memstore.
func Open(ctx context.Context, backend, address string, opts OpenOptions) (*Dataset, error) {
	if backend == LevelDB {
		return openLevelDB(address, opts)
	}
	if !graph.IsRegistered(backend) {
		return nil, fmt.Errorf("cayleyadapter: unknown Cayley backend %q (have %v)", backend, graph.QuadStores())
	}
	cayleyOpts := graph.Options{}
	if opts.NoSync {
		cayleyOpts["nosync"] = true
	}
	if graph.IsPersistent(backend) {
		if address == "" {
			return nil, fmt.Errorf("cayleyadapter: backend %s needs an address (a path or DSN)", backend)
		}
		exists := false
		if backend == Postgres {
			// Cayley's SQL Init logs an error when the tables exist, so
			// look first.
			var err error
			if exists, err = postgresInitialised(ctx, address); err != nil {
				return nil, fmt.Errorf("cayleyadapter: postgres: %w", err)
			}
		}
		if !exists {
			if err := graph.InitQuadStore(backend, address, cayleyOpts); err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
				return nil, fmt.Errorf("cayleyadapter: create %s store at %s: %w", backend, redact(backend, address), err)
			}
		}
	} else {
		address = ""
	}
	qs, err := graph.NewQuadStore(backend, address, cayleyOpts)
	if err != nil {
		return nil, fmt.Errorf("cayleyadapter: open %s store at %s: %w", backend, redact(backend, address), err)
	}
	return New(qs, opts.Options), nil
}

// openLevelDB opens Cayley's leveldb backend directly: Cayley registers its
// key-value backends in an init function that runs before hidalgo's leveldb
// driver registers itself, so graph.NewQuadStore("leveldb", …) does not
// find it; and only this path honours nosync.
func openLevelDB(path string, opts OpenOptions) (*Dataset, error) {
	if path == "" {
		return nil, fmt.Errorf("cayleyadapter: leveldb needs a directory")
	}
	cayleyOpts := graph.Options{"nosync": opts.NoSync}
	db, err := cayleyleveldb.Create(path, cayleyOpts)
	if errors.Is(err, graph.ErrDatabaseExists) {
		db, err = cayleyleveldb.Open(path, cayleyOpts)
	}
	if err != nil {
		return nil, fmt.Errorf("cayleyadapter: open leveldb store at %s: %w", path, err)
	}
	if err := cayleykv.Init(db, cayleyOpts); err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
		db.Close()
		return nil, fmt.Errorf("cayleyadapter: create leveldb store at %s: %w", path, err)
	}
	qs, err := cayleykv.New(db, cayleyOpts)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cayleyadapter: open leveldb store at %s: %w", path, err)
	}
	return New(qs, opts.Options), nil
}

// postgresInitialised reports whether Cayley's tables exist in the database.
func postgresInitialised(ctx context.Context, dsn string) (bool, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return false, err
	}
	defer db.Close()
	var exists bool
	err = db.QueryRowContext(ctx, `SELECT to_regclass('quads') IS NOT NULL AND to_regclass('nodes') IS NOT NULL`).Scan(&exists)
	return exists, err
}

// redact hides a password in a DSN for error messages.
func redact(backend, address string) string {
	if backend != Postgres {
		return address
	}
	if u, err := url.Parse(address); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return "(DSN)"
}
