// Package store opens a kb.Dataset from a store specification, the string
// users pass as --store: "memory:" (the native store's in-memory index),
// "native:PATH" (perfkb's own Pebble
// store, the embedded default), "leveldb:PATH", "memstore:" (Cayley's
// memstore), "postgres://…" or "postgresql://…" (kb/pg, perfkb's own
// PostgreSQL store) and "cayley-sql:postgres://…" (Cayley's SQL backend on
// PostgreSQL, through the generic adapter). A bare path means
// "native:PATH".
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyadapter"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/pg"
)

// DefaultSpec is the store used when --store is not given: the embedded
// on-disk store in the working directory.
const DefaultSpec = "native:./perfkb.db"

// Options tune how a store is opened.
type Options struct {
	// ReadOnly opens an existing store without write access where the
	// backend supports it.
	ReadOnly bool
	// MustExist makes Open fail with a *NotFoundError instead of creating
	// an empty store when an on-disk store (native:, leveldb:) is missing.
	// Read commands set it so that a mistyped path is reported rather than
	// silently answered from a new, empty store.
	MustExist bool
}

// NotFoundError reports that an on-disk store named by a specification does
// not exist (and was not created because Options.MustExist was set).
type NotFoundError struct {
	Spec string // the specification as given
	Path string // the path that does not exist
}

func (e *NotFoundError) Error() string { return "no store at " + e.Path }

// SpecError reports a store specification that cannot be parsed (an unknown
// backend, a missing path): a usage mistake, not a failure of the store.
type SpecError struct{ msg string }

func (e *SpecError) Error() string { return e.msg }

func specErrorf(format string, args ...any) error {
	return &SpecError{msg: fmt.Sprintf(format, args...)}
}

// IsSpecError reports whether err comes from a malformed specification.
func IsSpecError(err error) bool {
	var se *SpecError
	return errors.As(err, &se)
}

// Spec is a parsed store specification.
type Spec struct {
	Backend string // memory, native, leveldb, memstore, postgres, cayley-sql
	Path    string // file path, or the DSN for postgres and cayley-sql
}

// ParseSpec splits a store specification into backend and path.
func ParseSpec(spec string) (Spec, error) {
	if spec == "" {
		spec = DefaultSpec
	}
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		return Spec{Backend: "postgres", Path: spec}, nil
	}
	if dsn, ok := strings.CutPrefix(spec, "cayley-sql:"); ok {
		if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
			return Spec{}, specErrorf("store %q: cayley-sql needs a PostgreSQL DSN, e.g. cayley-sql:postgres://user@host/db", spec)
		}
		return Spec{Backend: "cayley-sql", Path: dsn}, nil
	}
	backend, path, found := strings.Cut(spec, ":")
	if !found || strings.ContainsAny(backend, `/\.`) {
		return Spec{Backend: "native", Path: spec}, nil
	}
	switch backend {
	case "memory", "memstore":
		return Spec{Backend: backend}, nil
	case "native", "leveldb":
		if path == "" {
			return Spec{}, specErrorf("store %q: %s needs a path, e.g. %s:./perfkb.db", spec, backend, backend)
		}
		return Spec{Backend: backend, Path: path}, nil
	case "postgres", "postgresql":
		return Spec{Backend: "postgres", Path: path}, nil
	}
	return Spec{}, specErrorf("store %q: unknown backend %q (want memory:, native:PATH, leveldb:PATH, memstore:, a postgres:// DSN or cayley-sql:postgres://…)", spec, backend)
}

// Open opens the store a specification names, creating an on-disk store
// that does not exist yet unless opts.MustExist is set.
func Open(ctx context.Context, spec string, opts Options) (kb.Dataset, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if opts.MustExist && (s.Backend == "native" || s.Backend == "leveldb") {
		if _, err := os.Stat(s.Path); errors.Is(err, fs.ErrNotExist) {
			return nil, &NotFoundError{Spec: spec, Path: s.Path}
		}
	}
	switch s.Backend {
	case "memory":
		return native.OpenMemory(), nil
	case "native":
		// The in-memory read side pays off for a server answering many
		// queries, not for a CLI run (a load would copy every quad into
		// it): perfkb serve turns it on with SetMemoryBudget.
		ds, err := native.Open(ctx, s.Path, native.Options{ReadOnly: opts.ReadOnly, MemoryBudget: -1})
		if err != nil {
			return nil, err
		}
		return ds, nil
	case "memstore":
		return cayleyadapter.Open(ctx, cayleyadapter.Memstore, "", cayleyadapter.OpenOptions{})
	case "leveldb":
		return cayleyadapter.Open(ctx, cayleyadapter.LevelDB, s.Path, cayleyadapter.OpenOptions{})
	case "postgres":
		if s.Path == "" {
			return nil, specErrorf("store %q: postgres needs a DSN, e.g. postgres://user@host/db", spec)
		}
		return pg.Open(ctx, s.Path, pg.Options{})
	case "cayley-sql":
		return cayleyadapter.Open(ctx, cayleyadapter.Postgres, s.Path, cayleyadapter.OpenOptions{})
	}
	return nil, fmt.Errorf("store %q: backend %q is not available in this build yet", spec, s.Backend)
}
