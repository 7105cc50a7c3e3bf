package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/kb/store"
)

// TestCayleyBackendsPersist loads into each Cayley-backed spec and into
// kb/pg (postgres://), reopens it
// and checks the data is there with literals intact.
func TestCayleyBackendsPersist(t *testing.T) {
	specs := []struct {
		name       string
		spec       func(t *testing.T) string
		persistent bool
	}{
		{"memstore", func(*testing.T) string { return "memstore:" }, false},
		{"leveldb", func(t *testing.T) string { return "leveldb:" + filepath.Join(t.TempDir(), "db") }, true},
		{"postgres", func(t *testing.T) string {
			if testing.Short() {
				t.Skip("PostgreSQL store test skipped with -short")
			}
			return pgtest.Start(t).NewDatabase(t)
		}, true},
		{"cayley-sql", func(t *testing.T) string {
			if testing.Short() {
				t.Skip("PostgreSQL store test skipped with -short")
			}
			return "cayley-sql:" + pgtest.Start(t).NewDatabase(t)
		}, true},
	}
	const doc = `<http://e/s> <http://e/p> "007"^^<http://www.w3.org/2001/XMLSchema#integer> <http://e/g> .
<http://e/s> <http://e/p> "hallo"@de <http://e/g> .
`
	for _, tc := range specs {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			spec := tc.spec(t)
			ds, err := store.Open(ctx, spec, store.Options{})
			if err != nil {
				t.Fatalf("Open(%s): %v", spec, err)
			}
			if _, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
				t.Fatalf("Load: %v", err)
			}
			if err := ds.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if !tc.persistent {
				return
			}
			ds, err = store.Open(ctx, spec, store.Options{})
			if err != nil {
				t.Fatalf("reopen %s: %v", spec, err)
			}
			defer ds.Close()
			for _, want := range []kb.Term{kb.Literal("007", "http://www.w3.org/2001/XMLSchema#integer"), kb.LangLiteral("hallo", "de")} {
				id, ok, err := ds.Lookup(ctx, want)
				if err != nil || !ok {
					t.Fatalf("after reopen, Lookup(%v) = %v, %v", want, ok, err)
				}
				if n, err := ds.Count(ctx, kb.Pattern{O: id}, true); err != nil || n != 1 {
					t.Errorf("after reopen, Count(O=%v) = %d, %v; want 1", want, n, err)
				}
			}
			st, err := ds.Stats(ctx)
			if err != nil || st.Quads != 2 || len(st.ByGraph) != 1 {
				t.Errorf("after reopen, Stats = %+v, %v; want 2 quads in 1 graph", st, err)
			}
		})
	}
}

func TestParseCayleySpecs(t *testing.T) {
	tests := []struct {
		spec, backend, path string
	}{
		{"memstore:", "memstore", ""},
		{"leveldb:./x.db", "leveldb", "./x.db"},
		{"postgres://u@h/db?sslmode=disable", "postgres", "postgres://u@h/db?sslmode=disable"},
		{"postgresql://u@h/db", "postgres", "postgresql://u@h/db"},
		{"cayley-sql:postgres://u@h/db", "cayley-sql", "postgres://u@h/db"},
	}
	for _, tc := range tests {
		s, err := store.ParseSpec(tc.spec)
		if err != nil || s.Backend != tc.backend || s.Path != tc.path {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %s %s", tc.spec, s, err, tc.backend, tc.path)
		}
	}
	if _, err := store.Open(context.Background(), "leveldb:", store.Options{}); err == nil {
		t.Errorf("Open(leveldb:) without a path succeeded")
	}
}
