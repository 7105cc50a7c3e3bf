package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb/store"
)

func TestOpenMustExist(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"native", "leveldb"} {
		t.Run(backend, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "typo.db")
			_, err := store.Open(ctx, backend+":"+path, store.Options{MustExist: true})
			var nf *store.NotFoundError
			if !errors.As(err, &nf) || nf.Path != path {
				t.Fatalf("Open of a missing store: err = %v, want NotFoundError for %s", err, path)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Open with MustExist created %s (stat err %v)", path, err)
			}
			// Without MustExist the store is created, and then MustExist opens it.
			ds, err := store.Open(ctx, backend+":"+path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ds.Close()
			ds, err = store.Open(ctx, backend+":"+path, store.Options{MustExist: true})
			if err != nil {
				t.Fatalf("MustExist on an existing store: %v", err)
			}
			ds.Close()
		})
	}
}

func TestSpecErrors(t *testing.T) {
	for _, spec := range []string{"bogus:x", "native:", "leveldb:", "postgres:", "cayley-sql:", "cayley-sql:/tmp/x"} {
		_, err := store.Open(context.Background(), spec, store.Options{})
		if !store.IsSpecError(err) {
			t.Errorf("Open(%q): err = %v, want a SpecError", spec, err)
		}
	}
}
