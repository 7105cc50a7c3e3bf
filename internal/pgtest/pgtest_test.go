package pgtest_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/perfkb/perfkb/internal/pgtest"
)

func TestNewDatabase(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.NewDatabase(t)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name string
	if err := db.QueryRowContext(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatalf("query on %s: %v", dsn, err)
	}
	if name == "postgres" || name == "" {
		t.Errorf("NewDatabase connected to %q; want a fresh database", name)
	}
}
