package backend

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/query"
)

// lightOnly returns admission with slots run slots where no query turns
// heavy by its cost (only by the memo).
func lightOnly(slots int) *Admission {
	a := NewAdmission(time.Hour, slots)
	a.Steps = 0
	return a
}

// TestAdmissionBoundsRunning: however many light queries arrive at once,
// no more run than there are slots — the light reserve's lanes stand in
// only for slots heavy queries hold — and they get their slots in the
// order they came. The queries check in one after another so the arrival
// order is known.
func TestAdmissionBoundsRunning(t *testing.T) {
	cases := []struct{ slots, reserve, queries int }{{1, 0, 6}, {2, 0, 16}, {4, 0, 40}, {1, 1, 6}, {2, 2, 16}}
	for _, tc := range cases {
		a := lightOnly(tc.slots)
		a.LightReserve = tc.reserve
		ctx := clientCtx("c")
		var running, peak atomic.Int64
		var wg sync.WaitGroup
		queries := make([]*admitted, tc.queries)
		release := make(chan struct{})
		for i := range tc.queries {
			q := a.begin(ctx, "SELECT light")
			queries[i] = q
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := q.admit(ctx); err != nil {
					t.Error(err)
					return
				}
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				<-release
				running.Add(-1)
				q.end()
			}()
			// The first slots are taken at once; the rest queue in turn.
			if i < tc.slots {
				waitRunning(t, &running, int64(i+1))
			} else {
				waitQueued(t, a, i+1-tc.slots)
			}
		}
		close(release)
		wg.Wait()
		if got := peak.Load(); got != int64(tc.slots) {
			t.Errorf("%d slots, reserve %d, %d queries: %d ran at once", tc.slots, tc.reserve, tc.queries, got)
		}
		// Slots are given under the lock, one after another, each
		// stamped when given.
		for i := 1; i < len(queries); i++ {
			if queries[i].granted.Before(queries[i-1].granted) {
				t.Errorf("%d slots: query %d got its slot before query %d, which came earlier", tc.slots, i, i-1)
			}
		}
		if a.running != 0 || a.waiting.Load() != 0 {
			t.Errorf("%d slots: %d slots held, %d waiting after all ended", tc.slots, a.running, a.waiting.Load())
		}
	}
}

func waitRunning(t *testing.T, running *atomic.Int64, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for running.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d queries run, want %d", running.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAdmissionLightPassesHeavy: a light query that arrives while heavy
// queries hold every slot and more wait runs after at most a quantum of
// heavy work, before the heavy queries that came earlier; and while no
// heavy query holds a slot, a waiting heavy one goes before waiting light
// ones, so a stream of light queries cannot stop heavy work.
func TestAdmissionLightPassesHeavy(t *testing.T) {
	a := heavyNow(1)
	a.Quantum = 10 * time.Millisecond
	ctx := clientCtx("c")
	h1 := a.begin(ctx, "h1")
	returnsSoon(t, "first heavy", yieldAsync(ctx, h1))
	h2 := a.begin(clientCtx("d"), "h2")
	h2Done := yieldAsync(clientCtx("d"), h2)
	waitQueued(t, a, 1)
	a.begun = nil
	light := a.begin(ctx, "light")
	lightDone := admitAsync(ctx, light)
	waitQueued(t, a, 2)
	time.Sleep(2 * a.Quantum)
	// h1's checkpoint past its quantum hands the slot over: to the light
	// query, though h2 waited longer.
	h1Again := yieldAsync(ctx, h1)
	returnsSoon(t, "the light query after the heavy one's quantum", lightDone)
	stillWaiting(t, "the heavy query that came before the light one", h2Done)
	// With no heavy query holding a slot, a heavy one goes first.
	next := a.begin(ctx, "light")
	nextDone := admitAsync(ctx, next)
	waitQueued(t, a, 3)
	light.end()
	returnsSoon(t, "the waiting heavy query once no heavy one runs", h2Done)
	stillWaiting(t, "a light query while a heavy one holds the only slot", nextDone)
	h2.end()
	returnsSoon(t, "the first heavy query, waiting again, while no heavy one runs", h1Again)
	stillWaiting(t, "a light query while a heavy one holds the only slot", nextDone)
	time.Sleep(2 * a.Quantum)
	handed := yieldAsync(ctx, h1) // past its quantum: hands over, waits
	returnsSoon(t, "the light query after the heavy one's quantum", nextDone)
	stillWaiting(t, "the heavy query that handed its slot over", handed)
	next.end()
	returnsSoon(t, "the heavy query once the light one ended", handed)
	h1.end()
	if a.running != 0 || a.heavy != 0 || a.waiting.Load() != 0 {
		t.Errorf("after all ended: %d slots held, %d heavy, %d waiting", a.running, a.heavy, a.waiting.Load())
	}
}

// TestAdmissionWorkers: a query may use its own slot and the free ones
// for its operators' workers, and only its own while any query waits.
func TestAdmissionWorkers(t *testing.T) {
	a := lightOnly(4)
	ctx := context.Background()
	q := a.begin(ctx, "a")
	if err := q.admit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := q.workers(); got != 4 {
		t.Errorf("alone on 4 slots: %d workers, want 4", got)
	}
	others := make([]*admitted, 3)
	for i := range others {
		others[i] = a.begin(ctx, "b")
		if err := others[i].admit(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := q.workers(), 3-i; got != want {
			t.Errorf("with %d others running: %d workers, want %d", i+1, got, want)
		}
	}
	w := a.begin(ctx, "c")
	done := admitAsync(ctx, w)
	waitQueued(t, a, 1)
	if got := q.workers(); got != 1 {
		t.Errorf("with a query waiting: %d workers, want 1", got)
	}
	q.end()
	returnsSoon(t, "the waiting query", done)
	for _, o := range others {
		o.end()
	}
	if got := w.workers(); got != 4 {
		t.Errorf("alone again: %d workers, want 4", got)
	}
	w.end()
}

type blockingService struct {
	called  chan struct{}
	release chan struct{}
}

func (b blockingService) Handle(ctx context.Context, req query.ServiceRequest) (*query.Solutions, error) {
	close(b.called)
	<-b.release
	return &query.Solutions{}, nil
}

// TestAdmissionServiceCallGivesUpSlot: a query waiting for a SERVICE
// answer (which may need a slot of this same server) gives its slot to a
// waiting query, and asks for one again at its next checkpoint.
func TestAdmissionServiceCallGivesUpSlot(t *testing.T) {
	a := lightOnly(1)
	ctx := clientCtx("c")
	caller := a.begin(ctx, "SELECT * { SERVICE <http://self/sparql> { ?s ?p ?o } }")
	if err := caller.admit(ctx); err != nil {
		t.Fatal(err)
	}
	svc := blockingService{called: make(chan struct{}), release: make(chan struct{})}
	h := caller.service(svc)
	called := make(chan error, 1)
	go func() { _, err := h.Handle(ctx, query.ServiceRequest{}); called <- err }()
	<-svc.called
	inner := a.begin(ctx, "SELECT inner")
	innerDone := admitAsync(ctx, inner)
	// The waiter takes the slot back when it arrives.
	returnsSoon(t, "the query waiting behind a SERVICE call", innerDone)
	close(svc.release)
	returnsSoon(t, "the SERVICE call", called)
	again := yieldAsync(ctx, caller)
	stillWaiting(t, "the caller at its next checkpoint while the other holds the slot", again)
	inner.end()
	returnsSoon(t, "the caller once the slot is free", again)
	caller.end()
}

// TestAdmissionMemoIgnoresTime: a query that turns heavy by its running
// time alone (a loaded machine) while steps count is not remembered as
// heavy; one past the steps is, and with steps off, time decides.
func TestAdmissionMemoIgnoresTime(t *testing.T) {
	cases := []struct {
		name      string
		steps     int64 // Admission.Steps
		ran       int64 // checkpoints the query reaches
		wantHeavy bool
	}{
		{"heavy by time, few steps", 100 * query.YieldEvery, 1, false},
		{"past the steps", 2 * query.YieldEvery, 3, true},
		{"steps off, past the time", 0, 1, true},
	}
	for _, tc := range cases {
		a := NewAdmission(time.Millisecond, 1)
		a.Steps = tc.steps
		ctx := clientCtx("c")
		q := a.begin(ctx, "SELECT x")
		if err := q.admit(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // past After
		for range tc.ran {
			if err := q.yield(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if !q.heavy {
			t.Errorf("%s: the query did not turn heavy", tc.name)
		}
		q.end()
		if got := a.memo.heavy(a.memo.hash("SELECT x")); got != tc.wantHeavy {
			t.Errorf("%s: remembered heavy = %v, want %v", tc.name, got, tc.wantHeavy)
		}
	}
}
