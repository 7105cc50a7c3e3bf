package backend

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
)

// countingReleaser is a store that counts its ReleaseMapped calls.
type countingReleaser struct {
	kb.Dataset
	calls atomic.Int64
}

func (c *countingReleaser) ReleaseMapped() int64 { c.calls.Add(1); return 0 }

// TestReleaseWhenIdle checks that the engine releases the store's mapped
// pages once after queries stop, not while nothing was queried and not
// while a query is open.
func TestReleaseWhenIdle(t *testing.T) {
	ds := &countingReleaser{Dataset: native.OpenMemory()}
	defer ds.Close()
	e := &QueryEngine{DS: ds}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const idle = 20 * time.Millisecond
	e.ReleaseWhenIdle(ctx, idle)
	time.Sleep(5 * idle)
	if n := ds.calls.Load(); n != 0 {
		t.Fatalf("%d releases before any query, want 0", n)
	}
	// A query whose answer is still being read holds the release off.
	open, err := e.Query(ctx, server.QueryRequest{Query: "SELECT * { ?s ?p ?o }"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * idle)
	if n := ds.calls.Load(); n != 0 {
		t.Fatalf("%d releases while a query was open, want 0", n)
	}
	// A query that does not parse is no query in flight, and queries that
	// start and end while another is open are the same busy period: they run
	// inside it, so no scheduling gap between them can split it.
	if _, err := e.Query(ctx, server.QueryRequest{Query: "SELECT * {"}); err == nil {
		t.Fatal("a query that does not parse was answered")
	}
	for range 3 {
		res, err := e.Query(ctx, server.QueryRequest{Query: "SELECT * { ?s ?p ?o }"})
		if err != nil {
			t.Fatal(err)
		}
		for res.Solutions.Next() {
		}
		res.Solutions.Close()
	}
	if n := ds.calls.Load(); n != 0 {
		t.Fatalf("%d releases while a query was open, want 0", n)
	}
	open.Solutions.Close()
	deadline := time.Now().Add(5 * time.Second)
	for ds.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(idle)
	}
	time.Sleep(5 * idle)
	if n := ds.calls.Load(); n != 1 {
		t.Fatalf("%d releases after one busy period, want 1", n)
	}
}
