package backend

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// heavyNow returns admission with slots run slots and no hand-over by
// time, where a query is heavy at its first checkpoint unless light says
// otherwise: light queries are heavy only after 100 checkpoints.
func heavyNow(slots int) *Admission {
	a := NewAdmission(time.Hour, slots)
	a.Steps = 100 * query.YieldEvery
	a.Quantum = time.Hour
	a.begun = func(q *admitted) {
		if q.text != a.memo.hash("light") {
			q.steps = a.Steps
		}
	}
	return a
}

func clientCtx(name string) context.Context {
	return server.WithClient(context.Background(), name)
}

// waitQueued waits until n queries wait for a slot.
func waitQueued(t *testing.T, a *Admission, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a.mu.Lock()
		got := len(a.lightq)
		for _, q := range a.queues {
			got += len(q)
		}
		a.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d queries wait for a slot, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// yieldAsync runs q's checkpoint on its own goroutine and reports when it
// returns.
func yieldAsync(ctx context.Context, q *admitted) <-chan error {
	done := make(chan error, 1)
	go func() { done <- q.yield(ctx) }()
	return done
}

func returnsSoon(t *testing.T, what string, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still waiting after 5s", what)
	}
}

func stillWaiting(t *testing.T, what string, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s went on (%v), want it waiting", what, err)
	case <-time.After(30 * time.Millisecond):
	}
}

// TestAdmissionSlots: as many heavy queries run as there are slots; the
// next waits until one ends, and light queries never wait.
func TestAdmissionSlots(t *testing.T) {
	a := heavyNow(2)
	ctx := clientCtx("c")
	// Each query is begun when the one before it is heavy: a query that
	// has begun counts as light until its first checkpoint, and heavy
	// queries leave a core to light ones (TestAdmissionCoreForLight).
	q1 := a.begin(ctx, "1")
	returnsSoon(t, "first heavy query", yieldAsync(ctx, q1))
	q2 := a.begin(ctx, "2")
	returnsSoon(t, "second heavy query", yieldAsync(ctx, q2))
	q3 := a.begin(ctx, "3")
	third := yieldAsync(ctx, q3)
	stillWaiting(t, "third heavy query with both slots held", third)

	// A light query passes its checkpoints while the slots are held.
	light := a.begin(ctx, "light")
	for range 10 {
		returnsSoon(t, "light query", yieldAsync(ctx, light))
	}
	light.end()

	q1.end()
	returnsSoon(t, "third heavy query after the first ended", third)
	q2.end()
	q3.end()
	if a.running != 0 || len(a.holders) != 0 || a.light.Load() != 0 {
		t.Errorf("after every query ended: %d slots held, %d holders, %d light", a.running, len(a.holders), a.light.Load())
	}
	q3.end() // twice is harmless
	if a.running != 0 {
		t.Errorf("ending twice gave back a slot twice: running %d", a.running)
	}

	var none *Admission
	if q := none.begin(ctx, "x"); q.yieldFunc() != nil || q.admit(ctx) != nil {
		t.Error("nil admission admits with checks")
	}
}

// TestAdmissionTurnsPerClient: slots go round the clients in turn,
// first come first served within a client, so a client with many
// waiting queries does not shut out one with a single query.
func TestAdmissionTurnsPerClient(t *testing.T) {
	a := heavyNow(1)
	hold := a.begin(clientCtx("a"), "h")
	returnsSoon(t, "holder", yieldAsync(clientCtx("a"), hold))

	type waiter struct {
		name string
		q    *admitted
		done <-chan error
	}
	var ws []waiter
	for i, c := range []string{"a", "a", "a", "b"} {
		ctx := clientCtx(c)
		q := a.begin(ctx, "w")
		ws = append(ws, waiter{name: c + string(rune('1'+i)), q: q, done: yieldAsync(ctx, q)})
		waitQueued(t, a, i+1)
	}
	// Queued a1 a2 a3 b4: turns go a, b, a, a.
	want := []string{"a1", "b4", "a2", "a3"}
	prev := hold
	for _, name := range want {
		prev.end()
		var got *waiter
		deadline := time.After(5 * time.Second)
		for got == nil {
			for i := range ws {
				select {
				case err := <-ws[i].done:
					if err != nil {
						t.Fatal(err)
					}
					got = &ws[i]
				default:
				}
			}
			select {
			case <-deadline:
				t.Fatalf("no waiter got the slot, want %s", name)
			case <-time.After(time.Millisecond):
			}
		}
		if got.name != name {
			t.Fatalf("%s got the slot, want %s (order %v)", got.name, name, want)
		}
		prev = got.q
	}
	prev.end()
}

// TestAdmissionQuantum: a heavy query that has held its slot for Quantum
// hands it to another client's waiting query at its next checkpoint and
// waits for a turn itself; alone, or with only its own client's queries
// waiting, it keeps the slot.
func TestAdmissionQuantum(t *testing.T) {
	a := heavyNow(1)
	a.Quantum = 10 * time.Millisecond
	ctx, other := clientCtx("c"), clientCtx("d")
	q1 := a.begin(ctx, "1")
	returnsSoon(t, "first", yieldAsync(ctx, q1))
	time.Sleep(15 * time.Millisecond)
	returnsSoon(t, "alone past its quantum", yieldAsync(ctx, q1))
	if !q1.holds {
		t.Fatal("a query alone gave up its slot")
	}
	own := a.begin(ctx, "own")
	ownDone := yieldAsync(ctx, own)
	waitQueued(t, a, 1)
	time.Sleep(15 * time.Millisecond)
	returnsSoon(t, "past its quantum with its own client's query waiting", yieldAsync(ctx, q1))
	if !q1.holds {
		t.Fatal("a query handed its slot to a query of its own client")
	}
	q2 := a.begin(other, "2")
	second := yieldAsync(other, q2)
	waitQueued(t, a, 2)
	first := yieldAsync(ctx, q1) // past its quantum, another client waits
	returnsSoon(t, "the other client's query after the holder's quantum", second)
	stillWaiting(t, "the holder that handed over", first)
	stillWaiting(t, "its own client's waiting query", ownDone)
	q2.end()
	returnsSoon(t, "the own client's query, first in its queue, after the other ended", ownDone)
	own.end()
	returnsSoon(t, "the first query after the own one ended", first)
	q1.end()
}

// TestAdmissionReclaimsStalledSlot: a holder that has been writing its
// answer for stallAfter (blocked on a client that does not read) loses
// its slot to a waiting query, and waits for one at its next checkpoint;
// a holder computing between checkpoints keeps its slot.
func TestAdmissionReclaimsStalledSlot(t *testing.T) {
	a := heavyNow(1)
	ctx := clientCtx("c")
	stalled := a.begin(ctx, "1")
	returnsSoon(t, "first", yieldAsync(ctx, stalled))
	computing := a.begin(ctx, "computing")
	waiting := yieldAsync(ctx, computing)
	waitQueued(t, a, 1)
	time.Sleep(2 * stallAfter)
	a.mu.Lock()
	a.reclaimLocked()
	a.mu.Unlock()
	stillWaiting(t, "a waiter behind a holder computing past stallAfter", waiting)
	computing.end()
	stalled.leaveEngine()
	q := a.begin(ctx, "2")
	start := time.Now()
	returnsSoon(t, "waiter behind a stalled holder", yieldAsync(ctx, q))
	if d := time.Since(start); d < stallAfter/2 {
		t.Errorf("the waiter got the slot after %v, before the holder had stalled for %v", d, stallAfter)
	}
	if stalled.holds {
		t.Fatal("the stalled holder kept its slot")
	}
	again := yieldAsync(ctx, stalled)
	stillWaiting(t, "the stalled holder at its next checkpoint", again)
	q.end()
	returnsSoon(t, "the stalled holder after the other ended", again)
	stalled.end()
}

// TestAdmissionCancel: a waiting query whose context ends stops waiting
// with the context's error and leaves the queue; no slot leaks.
func TestAdmissionCancel(t *testing.T) {
	a := heavyNow(1)
	ctx := clientCtx("c")
	q1 := a.begin(ctx, "1")
	returnsSoon(t, "first", yieldAsync(ctx, q1))
	cctx, cancel := context.WithCancel(ctx)
	q2 := a.begin(cctx, "2")
	done := yieldAsync(cctx, q2)
	waitQueued(t, a, 1)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a canceled waiting query went on without an error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a canceled waiting query still waits")
	}
	q2.end()
	waitQueued(t, a, 0)
	q1.end()
	if a.running != 0 || len(a.turns) != 0 {
		t.Errorf("after a canceled wait: %d slots held, %d clients in turn", a.running, len(a.turns))
	}
}

// TestAdmissionMemo: a text that was heavy is heavy from its start next
// time — it waits in the heavy queue, behind a light query that came
// after it — and light again once it ran light.
func TestAdmissionMemo(t *testing.T) {
	a := heavyNow(2)
	ctx := clientCtx("c")
	q := a.begin(ctx, "SELECT heavy")
	q.yield(ctx)
	q.end()

	hold1 := a.begin(ctx, "other")
	returnsSoon(t, "first holder", yieldAsync(ctx, hold1))
	hold2 := a.begin(ctx, "other")
	returnsSoon(t, "second holder", yieldAsync(ctx, hold2))
	a.begun = nil // no steps from here: light by their cost
	again := a.begin(ctx, "SELECT heavy")
	admitted := admitAsync(ctx, again)
	stillWaiting(t, "a known heavy text while the slots are held", admitted)
	fresh := a.begin(ctx, "SELECT new")
	freshDone := admitAsync(ctx, fresh)
	waitQueued(t, a, 2)
	hold1.end()
	returnsSoon(t, "an unknown text, which came later, at the first free slot", freshDone)
	stillWaiting(t, "the known heavy text while the light one holds the slot", admitted)
	hold2.end()
	returnsSoon(t, "the known heavy text once a slot is free", admitted)
	fresh.end()
	again.end() // ran no steps: light this time
	if a.memo.heavy(a.memo.hash("SELECT heavy")) {
		t.Error("a text that ran light is still taken for heavy")
	}
}

// admitAsync runs q.admit on its own goroutine and reports when it
// returns.
func admitAsync(ctx context.Context, q *admitted) <-chan error {
	done := make(chan error, 1)
	go func() { done <- q.admit(ctx) }()
	return done
}

type gauge struct{ used, limit atomic.Int64 }

func (g *gauge) InUse() int64 { return g.used.Load() }
func (g *gauge) Limit() int64 { return g.limit.Load() }

// TestAdmissionMemory: while the queries hold more than three quarters of
// the memory pool, a free slot goes to nobody while a heavy query runs;
// with none running, one always may.
func TestAdmissionMemory(t *testing.T) {
	a := heavyNow(2)
	g := &gauge{}
	g.used.Store(80)
	g.limit.Store(100)
	a.Memory = g
	ctx := clientCtx("c")
	q1, q2 := a.begin(ctx, "1"), a.begin(ctx, "2")
	returnsSoon(t, "first, with memory tight but nothing running", yieldAsync(ctx, q1))
	second := yieldAsync(ctx, q2)
	stillWaiting(t, "second, with memory tight", second)
	g.used.Store(10)
	q1.end() // frees memory and a slot
	returnsSoon(t, "second, after the first ended", second)
	q2.end()
}
