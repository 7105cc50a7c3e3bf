package backend

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
)

// decodingService is a SERVICE handler that "decodes" rows answer rows,
// charging each, after waiting for proceed before the row at pauseAt
// (none when proceed is nil); firstRow is closed once the first row's
// charge has returned.
type decodingService struct {
	rows, pauseAt int
	firstRow      chan struct{}
	proceed       chan struct{}
}

func (s *decodingService) Handle(ctx context.Context, req query.ServiceRequest) (*query.Solutions, error) {
	for i := range s.rows {
		if s.proceed != nil && i == s.pauseAt {
			<-s.proceed
		}
		if req.Charge != nil {
			if err := req.Charge(64); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			close(s.firstRow)
		}
	}
	return nil, nil
}

func serviceCall(ctx context.Context, q *admitted, h query.ServiceHandler) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := q.service(h).Handle(ctx, query.ServiceRequest{Endpoint: kb.IRI("http://site.example/sparql")})
		done <- err
	}()
	return done
}

// TestServiceAnswerDecodingTakesASlot: decoding a SERVICE answer is heavy
// work that runs only in a run slot (issue 30 (2): five federated queries
// decoding 60 MB answers outside the slots took the cores from the light
// reads). With the one slot held by a light query, the answer's first row
// waits for it; once the light query ends the decoding runs to its end and
// gives the slot back.
func TestServiceAnswerDecodingTakesASlot(t *testing.T) {
	a := NewAdmission(time.Hour, 1)
	ctx := clientCtx("c")
	light := a.begin(ctx, "light")
	if err := light.admit(ctx); err != nil {
		t.Fatal(err)
	}
	caller := a.begin(ctx, "SERVICE")
	svc := &decodingService{rows: 500, firstRow: make(chan struct{})}
	done := serviceCall(ctx, caller, svc)
	select {
	case <-svc.firstRow:
		t.Fatal("the answer's first row was decoded while a light query held the only slot")
	case <-time.After(300 * time.Millisecond):
	}
	light.end()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("service call: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the decoding did not finish after the slot was freed")
	}
	caller.end()
	a.mu.Lock()
	running := a.running
	a.mu.Unlock()
	if running != 0 {
		t.Errorf("%d slots held after the call, want 0", running)
	}
}

// TestServiceDecodingWaitingForSiteLosesSlot: a decoder waiting between two
// rows for the site (which may be this server, needing a slot for those
// rows) loses its slot to a waiting query, and asks for it again at its
// next row.
func TestServiceDecodingWaitingForSiteLosesSlot(t *testing.T) {
	a := NewAdmission(time.Hour, 1)
	ctx := clientCtx("c")
	caller := a.begin(ctx, "SERVICE")
	svc := &decodingService{rows: 100, pauseAt: 10, firstRow: make(chan struct{}), proceed: make(chan struct{})}
	done := serviceCall(ctx, caller, svc)
	<-svc.firstRow
	other := a.begin(clientCtx("d"), "light")
	admitted := make(chan error, 1)
	go func() { admitted <- other.admit(ctx) }()
	select {
	case err := <-admitted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a query waited 5s for the slot of a decoder waiting for its site")
	}
	close(svc.proceed)
	select {
	case <-done:
		t.Fatal("the decoder went on decoding while the other query held the only slot")
	case <-time.After(200 * time.Millisecond):
	}
	other.end()
	if err := <-done; err != nil {
		t.Fatalf("service call: %v", err)
	}
	caller.end()
}

// TestHeavyByProcessorTimeNotWaiting: a query on a thread of its own is
// heavy by After of its thread's processor time, not of the clock: on a
// loaded machine the soak's cheap lookups passed After by the clock while
// their threads waited for a processor, turned heavy and queued behind
// the attackers' heavy queries (issue 30 (2)). Its processor time passing
// After still makes it heavy.
func TestHeavyByProcessorTimeNotWaiting(t *testing.T) {
	var cpu atomic.Int64 // the fake thread clock, ns
	a := NewAdmission(20*time.Millisecond, 1)
	a.Steps = 0 // time alone decides
	a.cpu = func(context.Context) (time.Duration, bool) { return time.Duration(cpu.Load()), true }
	ctx := clientCtx("c")
	q := a.begin(ctx, "lookup")
	defer q.end()
	if err := q.admit(ctx); err != nil {
		t.Fatal(err)
	}
	cpu.Add(int64(time.Millisecond))
	time.Sleep(60 * time.Millisecond) // waiting for a processor: the clock runs, the thread's time does not
	if err := q.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if q.heavy {
		t.Fatal("heavy after 1ms of processor time in 60ms: the clock decided")
	}
	cpu.Add(int64(30 * time.Millisecond))
	if err := q.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if !q.heavy {
		t.Error("light after 31ms of processor time, want heavy past After (20ms)")
	}
}

// TestLightReserve: with every slot held by heavy work, a light query
// runs at once in a reserve lane, which no heavy query takes; once the
// reserve is full too, light queries wait as before (issue 30 (2): the
// soak's lookups waited up to a second for slots whose heavy holders'
// threads waited for a processor).
func TestLightReserve(t *testing.T) {
	a := NewAdmission(time.Hour, 1)
	a.LightReserve = 1
	ctx := clientCtx("c")
	heavy := a.begin(ctx, "heavy")
	defer heavy.end()
	heavy.becomeHeavy(ctx)
	if err := heavy.admit(ctx); err != nil {
		t.Fatal(err)
	}
	light := a.begin(ctx, "light")
	admitted := make(chan error, 1)
	go func() { admitted <- light.admit(ctx) }()
	select {
	case err := <-admitted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a light query waited 5s while the only slot was held by a heavy one and the reserve was free")
	}
	defer light.end()
	heavy2 := a.begin(clientCtx("d"), "heavy2")
	heavy2.becomeHeavy(ctx)
	light2 := a.begin(ctx, "light2")
	h2, l2 := make(chan error, 1), make(chan error, 1)
	go func() { h2 <- heavy2.admit(ctx) }()
	go func() { l2 <- light2.admit(ctx) }()
	waitQueued(t, a, 2)
	heavy.end()
	// The heavy slot goes to the waiting heavy query (none holds one
	// now), the light one still waits: the reserve is taken.
	select {
	case <-h2:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting heavy query did not get the freed slot")
	}
	select {
	case <-l2:
		t.Fatal("a second light query ran with the slot and the reserve lane both held")
	case <-time.After(100 * time.Millisecond):
	}
	light.end()
	select {
	case <-l2:
	case <-time.After(5 * time.Second):
		t.Fatal("the second light query did not get the freed reserve lane")
	}
	heavy2.end()
	light2.end()
}

// TestLightReserveFollowsHeavy: the reserve's lane opens for a waiting
// light query when a running light query turns heavy, not before: light
// queries alone hold no more lanes than there are slots.
func TestLightReserveFollowsHeavy(t *testing.T) {
	a := NewAdmission(time.Hour, 1)
	a.LightReserve = 1
	ctx := clientCtx("c")
	first := a.begin(ctx, "first")
	defer first.end()
	if err := first.admit(ctx); err != nil {
		t.Fatal(err)
	}
	second := a.begin(ctx, "second")
	defer second.end()
	done := admitAsync(ctx, second)
	waitQueued(t, a, 1)
	stillWaiting(t, "a second light query with the only slot held by a light one", done)
	first.becomeHeavy(ctx)
	returnsSoon(t, "the light query waiting when the slot's holder turned heavy", done)
}

// TestServiceCallGivesSlotAtOnce: a query entering a SERVICE call gives
// its slot to a query already waiting for one before the call goes on,
// not at the waiting query's next periodic check: lookups queued behind
// federated queries otherwise waited for those checks at every round of
// the soak's item 5.
func TestServiceCallGivesSlotAtOnce(t *testing.T) {
	a := NewAdmission(time.Hour, 1)
	ctx := clientCtx("fed")
	caller := a.begin(ctx, "SERVICE")
	if err := caller.admit(ctx); err != nil {
		t.Fatal(err)
	}
	rctx := clientCtx("reader")
	reader := a.begin(rctx, "lookup")
	admitted := make(chan error, 1)
	go func() { admitted <- reader.admit(rctx) }()
	for a.waiting.Load() == 0 {
		runtime.Gosched() // the reader is queued
	}
	caller.leaveService()
	a.mu.Lock()
	callerHolds, readerHolds := caller.holds, reader.holds
	a.mu.Unlock()
	if callerHolds || !readerHolds {
		t.Errorf("after entering the SERVICE call: caller holds %v, waiting reader holds %v; want false, true", callerHolds, readerHolds)
	}
	if err := <-admitted; err != nil {
		t.Fatal(err)
	}
	reader.end()
	caller.enterEngine()
	caller.end()
}

// TestAdmissionReclaimsBlockedWriterSoon: a holder whose answer has been
// blocked in a write for 20 ms (a client that does not read: a write to
// one that reads takes microseconds) gives its slot to a query that
// comes to wait, when it comes. The soak's lookups waited 100-180 ms
// behind its stalled clients' answers while the bound was 100 ms.
func TestAdmissionReclaimsBlockedWriterSoon(t *testing.T) {
	a := NewAdmission(time.Hour, 1)
	ctx := clientCtx("staller")
	holder := a.begin(ctx, "SELECT * WHERE { ?s ?p ?o }")
	if err := holder.admit(ctx); err != nil {
		t.Fatal(err)
	}
	holder.leaveEngine()
	holder.lastCheck.Store(time.Now().Add(-20 * time.Millisecond).UnixNano())
	rctx := clientCtx("reader")
	reader := a.begin(rctx, "lookup")
	admitted := make(chan error, 1)
	go func() { admitted <- reader.admit(rctx) }()
	var got atomic.Bool
	go func() { <-admitted; got.Store(true) }()
	for a.waiting.Load() == 0 && !got.Load() {
		runtime.Gosched()
	}
	a.mu.Lock() // the reader's queueing, and its reclaim, are done
	holds := holder.holds
	a.mu.Unlock()
	if holds {
		t.Error("a holder blocked 20 ms writing its answer kept its slot from a query that came to wait")
	}
	reader.end()
	holder.end()
}
