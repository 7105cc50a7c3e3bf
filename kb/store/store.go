// Package store opens a kb.Dataset from a store specification, the string
// users pass as --store: "memory:" (the native store's in-memory index),
// "native:PATH" (perfkb's own Pebble
// store, the embedded default), "leveldb:PATH", "memstore:" (Cayley's
// memstore), "postgres://…" or "postgresql://…" (Cayley's SQL backend).
// A bare path means "native:PATH".
package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyadapter"
	"github.com/perfkb/perfkb/kb/native"
)

// DefaultSpec is the store used when --store is not given: the embedded
// on-disk store in the working directory.
const DefaultSpec = "native:./perfkb.db"

// Options tune how a store is opened.
type Options struct {
	// ReadOnly opens an existing store without write access where the
	// backend supports it.
	ReadOnly bool
}

// Spec is a parsed store specification.
type Spec struct {
	Backend string // memory, native, leveldb, memstore, postgres
	Path    string // file path, or the DSN for postgres
}

// ParseSpec splits a store specification into backend and path.
func ParseSpec(spec string) (Spec, error) {
	if spec == "" {
		spec = DefaultSpec
	}
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		return Spec{Backend: "postgres", Path: spec}, nil
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
			return Spec{}, fmt.Errorf("store %q: %s needs a path, e.g. %s:./perfkb.db", spec, backend, backend)
		}
		return Spec{Backend: backend, Path: path}, nil
	case "postgres", "postgresql":
		return Spec{Backend: "postgres", Path: path}, nil
	}
	return Spec{}, fmt.Errorf("store %q: unknown backend %q (want memory:, native:PATH, leveldb:PATH, memstore: or a postgres:// DSN)", spec, backend)
}

// Open opens (creating if needed) the store a specification names.
func Open(ctx context.Context, spec string, opts Options) (kb.Dataset, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	switch s.Backend {
	case "memory":
		return native.OpenMemory(), nil
	case "native":
		ds, err := native.Open(ctx, s.Path, native.Options{ReadOnly: opts.ReadOnly})
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
			return nil, fmt.Errorf("store %q: postgres needs a DSN, e.g. postgres://user@host/db", spec)
		}
		return cayleyadapter.Open(ctx, cayleyadapter.Postgres, s.Path, cayleyadapter.OpenOptions{})
	}
	return nil, fmt.Errorf("store %q: backend %q is not available in this build yet", spec, s.Backend)
}
