package backend

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
)

// TestAdmissionCoreForLight: heavy queries alone keep every slot at their
// checkpoints; while a light query is in progress one of them gives its
// slot back at its next checkpoint and waits until the light query ends,
// and the other keeps running. With or without a reserve lane for the
// light query, the heavy queries would otherwise hold both cores.
func TestAdmissionCoreForLight(t *testing.T) {
	for _, reserve := range []int{0, 2} {
		a := heavyNow(2)
		a.LightReserve = reserve
		ctx := clientCtx("c")
		q1 := a.begin(ctx, "1")
		returnsSoon(t, "first heavy query", yieldAsync(ctx, q1))
		q2 := a.begin(ctx, "2")
		returnsSoon(t, "second heavy query", yieldAsync(ctx, q2))
		returnsSoon(t, "a heavy query's checkpoint with no light query", yieldAsync(ctx, q1))
		returnsSoon(t, "the other's checkpoint with no light query", yieldAsync(ctx, q2))

		light := a.begin(ctx, "light")
		admitted := make(chan error, 1)
		go func() { admitted <- light.admit(ctx) }()
		first := yieldAsync(ctx, q1)
		stillWaiting(t, "a heavy query's checkpoint while a light query is in progress", first)
		returnsSoon(t, "the light query", admitted)
		returnsSoon(t, "the other heavy query's checkpoint", yieldAsync(ctx, q2))
		a.mu.Lock()
		heavy := a.heavy
		a.mu.Unlock()
		if heavy != 1 {
			t.Errorf("reserve %d: %d heavy queries hold slots while a light one runs, want 1", reserve, heavy)
		}

		light.end()
		returnsSoon(t, "the heavy query after the light one ended", first)
		q1.end()
		q2.end()
		if a.running != 0 || a.light.Load() != 0 || a.waiting.Load() != 0 {
			t.Errorf("reserve %d: after every query ended: %d slots held, %d light, %d waiting", reserve, a.running, a.light.Load(), a.waiting.Load())
		}
	}
}

// TestAdmissionBulk: bulk work (Admission.Bulk) takes a heavy query's
// slot: while a light query is in progress only one core's worth runs,
// the next waits until the light query ends, and a wait that outlives
// its request ends with the request's error.
func TestAdmissionBulk(t *testing.T) {
	a := heavyNow(2)
	ctx := clientCtx("c")
	light := a.begin(ctx, "light")
	if err := light.admit(ctx); err != nil {
		t.Fatal(err)
	}
	release1, err := a.Bulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	var release2 func()
	go func() {
		var err error
		release2, err = a.Bulk(ctx)
		second <- err
	}()
	stillWaiting(t, "second bulk work while a light query is in progress", second)

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := a.Bulk(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("bulk work waiting past its deadline: %v, want the deadline's error", err)
	}

	light.end()
	returnsSoon(t, "second bulk work after the light query ended", second)
	release1()
	release2()
	if a.running != 0 || a.heavy != 0 || a.waiting.Load() != 0 {
		t.Errorf("after the bulk work: %d slots held, %d heavy, %d waiting", a.running, a.heavy, a.waiting.Load())
	}
	var none *Admission
	if release, err := none.Bulk(ctx); err != nil {
		t.Errorf("nil admission: %v", err)
	} else {
		release()
	}
}

// TestLargeQueryTextParsedInSlot: a query text past bulkParseBytes is
// parsed only in a heavy slot, so while the slots are held it waits (and
// here runs out of time); an analyst's short query is parsed and answered
// at once.
func TestLargeQueryTextParsedInSlot(t *testing.T) {
	ds := native.OpenMemory()
	defer ds.Close()
	a := heavyNow(1)
	a.LightReserve = 1 // the short query's lane
	e := &QueryEngine{DS: ds, Admission: a}
	held, err := a.Bulk(clientCtx("other"))
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	large := "ASK { ?s ?p ?o FILTER(?o IN (" + strings.Repeat(`"x",`, bulkParseBytes/4) + `"y")) }`
	ctx, cancel := context.WithTimeout(clientCtx("c"), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Query(ctx, server.QueryRequest{Query: large}); err == nil {
		t.Error("a large query text was parsed while the heavy slot was held")
	}
	res, err := e.Query(clientCtx("c"), server.QueryRequest{Query: "ASK { ?s ?p ?o }"})
	if err != nil {
		t.Fatalf("a short query: %v", err)
	}
	if res.Kind != server.ResultBoolean || res.Boolean {
		t.Errorf("a short query over an empty store: %+v, want false", res)
	}
}
