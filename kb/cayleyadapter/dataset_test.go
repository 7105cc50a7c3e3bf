package cayleyadapter_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyadapter"
	"github.com/perfkb/perfkb/kb/kbtest"
)

func TestMemstore(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset {
		ds, err := cayleyadapter.Open(context.Background(), cayleyadapter.Memstore, "", cayleyadapter.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	})
}

func TestLevelDB(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset {
		ds, err := cayleyadapter.Open(context.Background(), cayleyadapter.LevelDB, filepath.Join(t.TempDir(), "db"), cayleyadapter.OpenOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	})
}

func TestPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("PostgreSQL conformance run takes a while; skipped with -short")
	}
	srv := pgtest.Start(t)
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset {
		ds, err := cayleyadapter.Open(context.Background(), cayleyadapter.Postgres, srv.NewDatabase(t), cayleyadapter.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	})
}
