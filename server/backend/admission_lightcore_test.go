package backend

import (
	"strings"
	"testing"
	"time"
)

// TestKeepLightCore: with KeepLightCore, heavy work holds one slot fewer
// than Slots even while no light query is in progress, so a light query
// that arrives finds a slot no heavy work holds; without it heavy work
// takes every slot.
func TestKeepLightCore(t *testing.T) {
	for _, tc := range []struct {
		keep      bool
		secondRun bool // the second heavy query gets a slot with no light query about
	}{
		{keep: false, secondRun: true},
		{keep: true, secondRun: false},
	} {
		a := heavyNow(2)
		a.KeepLightCore = tc.keep
		a.LightReserve = 2 // as perfkb serve sets it
		ctx := clientCtx("c")
		q1 := a.begin(ctx, "1")
		returnsSoon(t, "first heavy query", yieldAsync(ctx, q1))
		q2 := a.begin(ctx, "2")
		second := yieldAsync(ctx, q2)
		if tc.secondRun {
			returnsSoon(t, "second heavy query, no light core kept", second)
		} else {
			stillWaiting(t, "second heavy query with a light core kept", second)
		}
		light := a.begin(ctx, "light")
		returnsSoon(t, "a light query", admitAsync(ctx, light))
		light.end()
		q1.end()
		if !tc.secondRun {
			returnsSoon(t, "second heavy query after the first ended", second)
		}
		q2.end()
		if a.running != 0 || a.heavy != 0 {
			t.Errorf("keep %v: after every query ended: %d slots held, %d heavy", tc.keep, a.running, a.heavy)
		}
	}
}

// TestLargeTextStartsHeavy: a query whose text is past bulkTextBytes
// starts heavy, in the heavy queue, before any checkpoint: its parsing
// and optimization grow with the text, and in a light lane they kept the
// lookups waiting. A short text starts light as before.
func TestLargeTextStartsHeavy(t *testing.T) {
	a := NewAdmission(time.Hour, 2)
	a.Steps = 0 // only the hour counts: nothing turns heavy by running
	a.Quantum = time.Hour
	a.KeepLightCore = true // one heavy lane of the two slots
	ctx := clientCtx("c")
	large := "SELECT * { ?s " + strings.Repeat("<http://e/p>/", bulkTextBytes/13+1) + "<http://e/p> ?o }"
	q1 := a.begin(ctx, large)
	returnsSoon(t, "first large query", admitAsync(ctx, q1))
	if !q1.heavy {
		t.Fatalf("a query of %d bytes of text started light", len(large))
	}
	q2 := a.begin(ctx, large+" ")
	second := admitAsync(ctx, q2)
	stillWaiting(t, "second large query while the heavy lane is held", second)
	small := a.begin(ctx, "ASK {}")
	returnsSoon(t, "a short query", admitAsync(ctx, small))
	if small.heavy {
		t.Errorf("a short query started heavy")
	}
	small.end()
	q1.end()
	returnsSoon(t, "second large query after the first ended", second)
	q2.end()
}
