package backend

import (
	"context"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// Admission decides when queries run, by what they cost. Every query
// runs only while it holds one of Slots run slots (one per core), so the
// running queries never outnumber the cores: a query that waits takes no
// processor from the running ones, and requests finish in about the order
// they came instead of all sharing the cores and all finishing late.
//
// Every query starts light. Light queries wait for a slot in one queue,
// first come first served, and go before heavy ones; a light query keeps
// its slot to its end. A query becomes heavy when its observed cost
// passes a threshold — Steps evaluation steps or After of its own running
// time (its thread's processor time when it runs on a thread of its own,
// see ran) — or at once when its estimated cost does: the same text passed
// Steps when it last ran (or After, where steps do not count). Heavy queries wait in a queue per client, and slots go
// round the clients in turn, first come first served within a client, so
// one client sending many heavy queries gets no more of the cores than one
// sending a few. A heavy query holds its slot for Quantum, then hands it
// on when a light query or another client's heavy query waits; a client's
// own heavy queries run one after the other. Light queries go first, but
// not always: while no heavy query holds a slot, a waiting heavy query
// gets the next one, so a stream of light queries slows heavy work down
// without stopping it. So cheap queries wait only for the cheap queries
// ahead of them and for at most a quantum of heavy work, and heavy ones
// share the cores fairly. perfkb serve runs the Go runtime with one
// processor more than the cores, which the network and the requests'
// parsing and encoding use while the slots keep the cores busy.
//
// Memory counts as cost too: while the queries of Memory hold more than
// three quarters of its bound, no further heavy query gets a slot while
// one runs, so heavy queries finish rather than all fail for want of
// memory. A query's own budget and the pool still refuse what passes
// them.
//
// A query that holds a slot while its answer is being written, and has
// been writing for stallAfter — to a client that does not read it —
// loses the slot to a waiting query and asks for it again at its next
// checkpoint, so it costs the others that much at most. A query waiting
// for a SERVICE answer loses its slot to a waiting query at once: it uses
// no CPU, and the site may be this server, whose answer then needs a slot
// of its own (SERVICE <self> nested to the hop limit would otherwise wait
// stallAfter per level). A query that is
// computing keeps its slot between checkpoints however long they take:
// on a loaded machine a thread may not run for a while, and taking its
// slot then would let more queries share the cores than there are.
//
// nil admits everything at once.
type Admission struct {
	// After is the running time after which a query is heavy (0: only
	// Steps counts): the processor time of the query's own thread where
	// it has one (server.QueryCPU), else the wall-clock time.
	After time.Duration
	// Steps is the evaluation steps after which a query is heavy (0:
	// only After counts). Steps, unlike time, do not grow when the server
	// is busy, so a light query slowed by load is not taken for a heavy
	// one.
	Steps int64
	// Slots is how many queries run at once (at least one), and the most
	// a heavy query may join.
	Slots int
	// LightReserve is how many light queries may run beyond Slots: lanes
	// a heavy query never takes, so a cheap query does not wait for the
	// heavy ones holding the slots to reach a checkpoint. On a loaded
	// machine a thread holding a slot may not run for a long while, and
	// the soak's lookups waited up to a second for slots held so (0:
	// none). The reserve stands in only for slots that heavy queries
	// hold: light queries together never hold more than Slots, so while
	// no heavy query runs, no more queries run than there are cores. A
	// query beyond the cores would share them with the running ones and
	// take the processor the Go runtime keeps for the network (see
	// perfkb serve's processors): the requests it has not yet read then
	// wait for the scheduler's 10 ms ticks, in no order, and the tail of
	// the latency grows far past the median.
	LightReserve int
	// KeepLightCore keeps one slot from heavy work at all times, not only
	// while a light query is in progress (heavyLanes): a light query that
	// arrives then finds a core no heavy work holds. Meant for machines
	// of few cores, where heavy work on every core makes each arriving
	// lookup wait for the runtime's preemption (see admission_core.go).
	KeepLightCore bool
	// Quantum is how long a heavy query runs before it gives its slot to
	// a waiting one.
	Quantum time.Duration
	// Nice, when positive, is the OS priority (nice value, 1 to 19) a
	// heavy query's thread is lowered to (server.LowerPriority). Off by
	// default: the slots already keep heavy queries from taking more than
	// the cores, and a lowered thread loses the processor to everything
	// else on the machine, which throttles ordinary work.
	Nice int
	// ServiceNice, when positive, is the OS priority (nice value, 1 to
	// 19) of the threads that read SERVICE answers (server.RunBulk).
	// Reading a site's answer is bulk work its slot alone does not keep
	// from the light queries: the kernel shares a core evenly between
	// the reading thread and a lookup's. Five federated COUNTs over 60 MB
	// answers every 20 s, alone beside the soak's readers on 2 cores,
	// gave 20 and 55 reads over 6.6 ms in 100 s; at nice 10, 10 and 16.
	ServiceNice int
	// Memory is the server's query memory pool, a *query.MemoryPool (nil:
	// memory does not decide admission).
	Memory MemoryGauge

	light atomic.Int64 // light queries running
	// waiting counts the queries waiting for a slot, so that a heavy
	// query's checkpoint finds out without the lock whether to hand over.
	waiting atomic.Int64

	mu      sync.Mutex
	running int // slots held
	heavy   int // slots held by heavy queries
	// lightNext gives the next slot to a waiting light query even while
	// no heavy query holds one: a heavy query handed its slot over.
	lightNext bool
	holders   map[*admitted]struct{}
	lightq    []*admitted            // waiting light queries, in arrival order
	queues    map[string][]*admitted // waiting heavy queries per client
	turns     []string               // clients with waiting queries, in turn order

	memo costMemo
	// begun, when set, sees each query begin (tests).
	begun func(*admitted)
	// cpu, when set, replaces server.QueryCPU, the clock of a query's
	// own running time (tests).
	cpu func(context.Context) (time.Duration, bool)
}

// MemoryGauge says how much memory the queries hold and the bound on it
// (0: none); *query.MemoryPool is one.
type MemoryGauge interface {
	InUse() int64
	Limit() int64
}

// DefaultSteps is Admission.Steps: about 30 times what the soak test's
// selective lookups take (a three-pattern join with a filter: 13,000
// steps), and a few percent of a scan of a 200,000-triple store.
const DefaultSteps = 32 * query.YieldEvery

// DefaultQuantum is Admission.Quantum: long enough that handing a slot
// over (a goroutine switch, a cache refill) is a small part of it, short
// enough that a query waiting behind a few others starts within a few
// tens of milliseconds.
const DefaultQuantum = 20 * time.Millisecond

// DefaultSlots is Admission.Slots on cores processors: one per core.
func DefaultSlots(cores int) int { return max(1, cores) }

// stallAfter is how long a query may hold a slot while it waits outside
// the engine (its answer being written, see leaveEngine) before a waiting
// query takes the slot; waiting queries look every stallAfter/2. A write
// to a client that reads takes microseconds; one blocked this long is
// blocked on a client that does not read. At 100 ms the soak's lookups
// waited 100-180 ms in the light queue whenever its stalled clients (an
// answer of the whole store, never read) had just sent their query.
const stallAfter = 10 * time.Millisecond

// NewAdmission returns admission with heavy queries those past
// DefaultSteps steps or older than after, slots of them running at once
// (at least one), each for DefaultQuantum at a time.
func NewAdmission(after time.Duration, slots int) *Admission {
	return &Admission{After: after, Steps: DefaultSteps, Slots: max(1, slots), Quantum: DefaultQuantum}
}

// admitted is one query's standing with the admission.
type admitted struct {
	a      *Admission
	client string
	text   uint64 // hash of the query text, for the cost memo
	// large: the text is past bulkTextBytes, so the query starts heavy.
	large bool
	// start is when the query began to run: when it first got a slot, or
	// when it began if it never asked for one. Time spent waiting for a
	// slot does not make a query heavy.
	start time.Time
	// cpuStart is its thread's processor time at start, when onThread:
	// the query runs on a thread of its own, whose processor time is
	// then its running time (ran).
	cpuStart time.Duration
	onThread bool
	// Only the query's own goroutine uses these.
	steps   int64
	heavy   bool
	slotted bool      // it got a slot before it started (admit)
	granted time.Time // when it last got its slot
	// lastCheck is when the query last reached a checkpoint, in Unix ns.
	lastCheck atomic.Int64
	// holding mirrors holds for the query's checkpoints, read without
	// the lock.
	holding atomic.Bool
	// writing is set while the query waits outside the engine (the
	// server writes its rows, or a SERVICE call runs); lastCheck is then
	// when it began.
	writing atomic.Bool
	// inService is set while the query waits for a SERVICE answer: it
	// uses no CPU, and the answer may need a slot of this same server
	// (SERVICE <self>), so a waiting query takes its slot at once rather
	// than after stallAfter.
	inService atomic.Bool
	grant     chan struct{} // a slot was given to the waiting query
	// holds, heldHeavy and ended are guarded by a.mu.
	holds     bool
	heldHeavy bool // its slot counts among the heavy ones
	ended     bool
}

// begin starts counting a query's cost; its client is the one ctx names
// (server.ClientOf). end must be called when its answer is done.
func (a *Admission) begin(ctx context.Context, text string) *admitted {
	if a == nil || (a.After <= 0 && a.Steps <= 0) {
		return nil
	}
	q := &admitted{a: a, client: server.ClientOf(ctx), text: a.memo.hash(text), start: time.Now(), grant: make(chan struct{}, 1), large: len(text) > bulkTextBytes}
	q.lastCheck.Store(q.start.UnixNano())
	q.cpuStart, q.onThread = a.threadCPU(ctx)
	a.light.Add(1)
	if a.begun != nil {
		a.begun(q)
	}
	return q
}

// admit waits for the query's run slot before it starts: in the light
// queue, or in its client's heavy queue when its text was heavy when it
// last ran.
func (q *admitted) admit(ctx context.Context) error {
	if q == nil {
		return nil
	}
	if q.large || q.a.memo.heavy(q.text) {
		q.becomeHeavy(ctx)
	}
	if err := q.acquire(ctx); err != nil {
		return err
	}
	q.slotted = true
	q.start = time.Now()
	q.lastCheck.Store(q.start.UnixNano())
	if q.onThread {
		q.cpuStart, q.onThread = q.a.threadCPU(ctx)
	}
	return nil
}

// threadCPU is the processor time of the query thread of ctx (false when
// the query has no thread of its own).
func (a *Admission) threadCPU(ctx context.Context) (time.Duration, bool) {
	if a.cpu != nil {
		return a.cpu(ctx)
	}
	return server.QueryCPU(ctx)
}

// ran is how long the query has been running: its thread's processor time
// since start when it runs on a thread of its own, else the wall-clock
// time since start. On a loaded machine a cheap query's wall-clock time
// grows with every thread ahead of it: the soak's lookups, at a few
// milliseconds of processor each, passed After by the clock, turned heavy
// and queued behind the attackers' heavy queries of the same address.
func (q *admitted) ran(ctx context.Context, now time.Time) time.Duration {
	if q.onThread {
		if cpu, ok := q.a.threadCPU(ctx); ok {
			return cpu - q.cpuStart
		}
	}
	return now.Sub(q.start)
}

func (q *admitted) becomeHeavy(ctx context.Context) {
	q.heavy = true
	a := q.a
	a.light.Add(-1)
	if a.costly(q.steps, q.ran(ctx, time.Now())) {
		a.memo.mark(q.text, true)
	}
	if a.Nice > 0 {
		server.LowerPriority(ctx, a.Nice)
	}
	// A light query's thread that wakes beside this one runs first; this
	// one keeps its share of the processor.
	server.LongSlice(ctx)
	if q.holding.Load() {
		a.mu.Lock()
		if q.holds && !q.heldHeavy {
			q.heldHeavy = true
			a.heavy++
			// One light query fewer runs: a waiting one may take the
			// reserve's lane.
			a.grantLocked()
		}
		a.mu.Unlock()
	}
}

// yield is query.Options.Yield: the query's checkpoint.
func (q *admitted) yield(ctx context.Context) error {
	if q == nil {
		return nil
	}
	q.steps += query.YieldEvery
	now := time.Now()
	q.lastCheck.Store(now.UnixNano())
	a := q.a
	if !q.heavy {
		if (a.Steps <= 0 || q.steps < a.Steps) && (a.After <= 0 || q.ran(ctx, now) < a.After) {
			if q.slotted && !q.holding.Load() {
				// Its slot was taken back while it stalled.
				return q.acquire(ctx)
			}
			return nil
		}
		q.becomeHeavy(ctx)
	}
	if q.holding.Load() && (now.Sub(q.granted) < a.Quantum || a.waiting.Load() == 0) && !a.lightRunning() {
		if a.light.Load() > 0 {
			// A light query's goroutine may be queued behind this one.
			runtime.Gosched()
		}
		return nil
	}
	a.mu.Lock()
	holds := q.holds
	handOver := holds && now.Sub(q.granted) >= a.Quantum && a.othersWaitLocked(q.client)
	if yieldCore := holds && q.heldHeavy && a.heavy > a.heavyLanes(); yieldCore && !handOver {
		// A light query runs: the core it needs is one a heavy query
		// gives back (admission_core.go).
		a.releaseLocked(q)
		holds = false
	}
	if handOver {
		if len(a.turns) > 0 && a.turns[0] == q.client {
			// The slot is for another client: this one's turn comes after.
			a.turns = append(a.turns[1:], q.client)
		}
		// Its quantum was heavy work: the slot goes to a light query if
		// one waits, or the light ones would wait a quantum per heavy
		// query.
		a.lightNext = true
		a.releaseLocked(q)
	}
	a.mu.Unlock()
	if holds && !handOver {
		return nil
	}
	return q.acquire(ctx)
}

// othersWaitLocked reports whether a light query or a client other than
// client has a query waiting for a slot. A client's own heavy queries do
// not take turns with each other: run one after the other, the first
// finishes long before the last, where taking turns would finish them all
// late.
func (a *Admission) othersWaitLocked(client string) bool {
	return len(a.lightq) > 0 || len(a.turns) > 1 || (len(a.turns) == 1 && a.turns[0] != client)
}

// acquire waits for a slot: at once when one is free and nobody waits
// before it, else in the light queue or in the client's heavy queue.
func (q *admitted) acquire(ctx context.Context) error {
	a := q.a
	a.mu.Lock()
	if q.holds {
		a.mu.Unlock()
		return nil
	}
	if len(a.lightq) == 0 && (!q.heavy || len(a.turns) == 0) && a.free(q.heavy) {
		a.takeLocked(q)
		a.mu.Unlock()
		return nil
	}
	if q.heavy {
		if len(a.queues[q.client]) == 0 {
			a.turns = append(a.turns, q.client)
		}
		if a.queues == nil {
			a.queues = map[string][]*admitted{}
		}
		a.queues[q.client] = append(a.queues[q.client], q)
	} else {
		a.lightq = append(a.lightq, q)
	}
	a.waiting.Add(1)
	a.grantLocked() // a light query may pass heavy ones that memory holds back
	a.reclaimLocked()
	a.mu.Unlock()
	waitStart := time.Now()
	defer func() { server.NoteAdmissionWait(ctx, time.Since(waitStart)) }()
	check := time.NewTicker(stallAfter / 2)
	defer check.Stop()
	for {
		select {
		case <-q.grant:
			return nil
		case <-ctx.Done():
			a.mu.Lock()
			if q.holds {
				a.releaseLocked(q)
			} else {
				a.dequeueLocked(q)
			}
			a.mu.Unlock()
			return ctx.Err()
		case <-check.C:
			a.mu.Lock()
			a.grantLocked() // a light query may have ended since (heavyLanes)
			a.reclaimLocked()
			a.mu.Unlock()
		}
	}
}

// lanes is how many queries may hold a slot at once: Slots and the
// light queries' reserve.
func (a *Admission) lanes() int { return max(1, a.Slots) + max(0, a.LightReserve) }

// free reports whether a slot may be given now to a query, heavy or not:
// while fewer than Slots and LightReserve run, for a light one while fewer
// than Slots light ones do, and for a heavy one while fewer than heavyLanes
// heavy ones do.
func (a *Admission) free(heavy bool) bool {
	if a.running >= a.lanes() {
		return false
	}
	if heavy {
		if a.heavy >= a.heavyLanes() {
			return false
		}
	} else if a.running-a.heavy >= max(1, a.Slots) {
		return false
	}
	if heavy && a.running > 0 && a.Memory != nil && a.Memory.Limit() > 0 && a.Memory.InUse() > a.Memory.Limit()/4*3 {
		return false
	}
	return true
}

func (a *Admission) takeLocked(q *admitted) {
	a.running++
	q.holds = true
	q.holding.Store(true)
	if q.heavy {
		q.heldHeavy = true
		a.heavy++
	}
	q.granted = time.Now()
	// A query that waited long must not lose the slot at once as stalled.
	q.lastCheck.Store(q.granted.UnixNano())
	if a.holders == nil {
		a.holders = map[*admitted]struct{}{}
	}
	a.holders[q] = struct{}{}
}

// releaseLocked gives q's slot back and to the next waiting query.
func (a *Admission) releaseLocked(q *admitted) {
	if !q.holds {
		return
	}
	q.holds = false
	q.holding.Store(false)
	a.running--
	if q.heldHeavy {
		q.heldHeavy = false
		a.heavy--
	}
	delete(a.holders, q)
	a.grantLocked()
}

// grantLocked gives free slots to waiting queries: light ones first, in
// arrival order, except that a waiting heavy query goes first while no
// heavy query holds a slot (unless a heavy one has just handed its slot
// over after its quantum); heavy ones one client at a time.
func (a *Admission) grantLocked() {
	for a.running < a.lanes() {
		heavyFirst := len(a.turns) > 0 && a.heavy == 0 && a.free(true) && !a.lightNext
		a.lightNext = false
		if len(a.lightq) > 0 && !heavyFirst && a.free(false) {
			next := a.lightq[0]
			a.lightq[0] = nil
			a.lightq = a.lightq[1:]
			a.waiting.Add(-1)
			a.takeLocked(next)
			next.grant <- struct{}{}
			continue
		}
		if len(a.turns) == 0 || !a.free(true) {
			return
		}
		client := a.turns[0]
		a.turns = a.turns[1:]
		waiting := a.queues[client]
		next := waiting[0]
		if len(waiting) == 1 {
			delete(a.queues, client)
		} else {
			a.queues[client] = waiting[1:]
			a.turns = append(a.turns, client)
		}
		a.waiting.Add(-1)
		a.takeLocked(next)
		next.grant <- struct{}{}
	}
}

// dequeueLocked takes a waiting query out of its queue.
func (a *Admission) dequeueLocked(q *admitted) {
	for i, w := range a.lightq {
		if w == q {
			a.lightq = append(a.lightq[:i:i], a.lightq[i+1:]...)
			a.waiting.Add(-1)
			return
		}
	}
	waiting := a.queues[q.client]
	for i, w := range waiting {
		if w != q {
			continue
		}
		a.waiting.Add(-1)
		waiting = append(waiting[:i:i], waiting[i+1:]...)
		if len(waiting) > 0 {
			a.queues[q.client] = waiting
			return
		}
		delete(a.queues, q.client)
		for j, c := range a.turns {
			if c == q.client {
				a.turns = append(a.turns[:j:j], a.turns[j+1:]...)
				break
			}
		}
		return
	}
}

// reclaimLocked takes the slots of holders that have been writing their
// answer for stallAfter and gives them to waiting queries; such a holder
// asks for a slot again at its next checkpoint.
func (a *Admission) reclaimLocked() {
	if a.waiting.Load() == 0 {
		return
	}
	stale := time.Now().Add(-stallAfter).UnixNano()
	for h := range a.holders {
		if h.writing.Load() && (h.inService.Load() || h.lastCheck.Load() < stale) {
			a.releaseLocked(h)
			if a.waiting.Load() == 0 {
				return
			}
		}
	}
}

// end takes the query out of the admission: gives back its slot or its
// place in a queue, and notes in the memo whether its text was heavy.
// Safe to call twice.
func (q *admitted) end() {
	if q == nil || !q.leave() {
		return
	}
	a := q.a
	if !q.heavy {
		a.memo.mark(q.text, false)
	} else {
		// Heavy by the memo, or by its time on a loaded machine: its cost
		// this time decides.
		a.memo.mark(q.text, a.costly(q.steps, time.Since(q.start)))
	}
}

// costly reports whether a query's cost makes its text heavy for the
// memo: its steps when steps count, else its running time. A query that
// turned heavy by time alone while steps count is not remembered: on a
// loaded machine every query runs long, and remembering it would send
// the next runs of a cheap text to wait behind the light queries.
func (a *Admission) costly(steps int64, ran time.Duration) bool {
	if a.Steps > 0 {
		return steps >= a.Steps
	}
	return a.After > 0 && ran >= a.After
}

// leave gives back q's slot, or its place in a queue; false when it had
// already left.
func (q *admitted) leave() bool {
	a := q.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if q.ended {
		return false
	}
	q.ended = true
	if !q.heavy {
		// Before its slot is given on: a heavy query waiting for the
		// core this light one kept (heavyLanes) may take it now.
		a.light.Add(-1)
	}
	if q.holds {
		a.releaseLocked(q)
	} else {
		a.dequeueLocked(q)
	}
	return true
}

// leaveEngine marks the query as waiting outside the engine — for the
// server to write its rows, which may block on a client that does not
// read, or for a SERVICE call's answer, which may need a slot of this same
// server — and enterEngine marks it back in the engine.
func (q *admitted) leaveEngine() {
	if q == nil {
		return
	}
	q.lastCheck.Store(time.Now().UnixNano())
	q.writing.Store(true)
}

// leaveService is leaveEngine for a SERVICE call, whose slot a waiting
// query may take at once (see inService): a query waiting now gets it
// here rather than at its next check (reclaimLocked, every stallAfter/2).
// Five federated queries arriving together hold both light lanes until
// then, and under the soak's load the lookups queued behind them waited
// 250-340 ms at the start of each round.
func (q *admitted) leaveService() {
	if q == nil {
		return
	}
	q.inService.Store(true)
	q.leaveEngine()
	if q.a.waiting.Load() > 0 {
		q.a.mu.Lock()
		q.a.releaseLocked(q)
		q.a.mu.Unlock()
	}
}

func (q *admitted) enterEngine() {
	if q != nil {
		q.writing.Store(false)
		q.inService.Store(false)
	}
}

// service wraps a SERVICE handler so that the query counts as outside
// the engine while a call runs (see leaveEngine).
func (q *admitted) service(h query.ServiceHandler) query.ServiceHandler {
	if q == nil || h == nil {
		return h
	}
	if d, ok := h.(query.ServiceDescriber); ok {
		return outsideDescriber{outsideService{h: h, q: q}, d}
	}
	return outsideService{h: h, q: q}
}

type outsideService struct {
	h query.ServiceHandler
	q *admitted
}

func (s outsideService) Handle(ctx context.Context, req query.ServiceRequest) (sols *query.Solutions, err error) {
	s.q.leaveService()
	defer s.q.enterEngine()
	var d answerDecode
	req.Charge = d.charging(ctx, s.q, req.Charge)
	defer d.end()
	server.RunBulk(s.q.a.ServiceNice, func() { sols, err = s.h.Handle(ctx, req) })
	return sols, err
}

// Vet implements query.EndpointVetter for the wrapped handler.
func (s outsideService) Vet(endpoint kb.Term) error {
	if v, ok := s.h.(query.EndpointVetter); ok {
		return v.Vet(endpoint)
	}
	return nil
}

// decodeYieldRows is how many rows of a SERVICE answer are decoded between
// two checkpoints of its decoding.
const decodeYieldRows = 32

// answerDecode makes the decoding of a SERVICE answer heavy work of the
// query's client, run only while it holds a run slot. Waiting for the site
// takes no processor and holds no slot, but decoding its answer does take
// one: five queries decoding 60 MB answers at once, outside the slots,
// took the cores from the light queries the slots were keeping them for
// (the soak's read p99 rose from 19 ms to a second during each round of
// such queries). The slot is asked for at the answer's first row, in the
// client's heavy queue, and handed over like a heavy query's, at a
// checkpoint every decodeYieldRows rows. It is one goroutine's: the
// service handler decodes an answer on one.
type answerDecode struct {
	q    *admitted
	rows int
}

// charging returns the answer's row charge (query.ServiceRequest.Charge)
// with the decoding's admission in front of inner (nil: none); q is the
// query calling the service.
func (d *answerDecode) charging(ctx context.Context, q *admitted, inner func(int64) error) func(int64) error {
	return func(n int64) error {
		if d.q == nil {
			d.q = &admitted{a: q.a, client: q.client, start: time.Now(), grant: make(chan struct{}, 1), heavy: true, slotted: true}
			// Between two rows the decoder may wait for the site, which
			// may be this server needing a slot for the rows to come: a
			// waiting query may take the slot as from a query writing its
			// answer (reclaimLocked), and the decoder asks for it again
			// at its next row.
			d.q.writing.Store(true)
		}
		d.q.lastCheck.Store(time.Now().UnixNano())
		if !d.q.holding.Load() {
			if err := d.q.acquire(ctx); err != nil {
				return err
			}
		} else if d.rows++; d.rows%decodeYieldRows == 0 {
			if err := d.q.yield(ctx); err != nil {
				return err
			}
		}
		if inner != nil {
			return inner(n)
		}
		return nil
	}
}

// end gives back the decoding's slot, or its place in a queue.
func (d *answerDecode) end() {
	if d.q != nil {
		d.q.leave()
	}
}

// outsideDescriber is an outsideService whose handler also DESCRIBEs at
// endpoints (fan-out DESCRIBE), likewise outside the engine.
type outsideDescriber struct {
	outsideService
	d query.ServiceDescriber
}

func (s outsideDescriber) Describe(ctx context.Context, endpoint kb.Term, resources []kb.Term) (g *query.Graph, err error) {
	s.q.leaveService()
	defer s.q.enterEngine()
	server.RunBulk(s.q.a.ServiceNice, func() { g, err = s.d.Describe(ctx, endpoint, resources) })
	return g, err
}

// workers is query.Options.Workers: the goroutines one operator of the
// query may use now — its own slot and the slots nobody holds, and only
// its own while any query waits — so that a query's parallel workers do
// not take the cores from the queries admitted beside it.
func (q *admitted) workers() int {
	a := q.a
	if a.waiting.Load() > 0 {
		return 1
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if q.heldHeavy && a.lightRunning() {
		return 1 // the other cores are for the light queries (heavyLanes)
	}
	if q.heldHeavy && a.KeepLightCore {
		return max(1, 1+a.heavyLanes()-a.heavy) // the lanes heavy work may use
	}
	n := max(1, a.Slots) - a.running
	if q.holds {
		n++
	}
	return max(1, n)
}

// workersFunc returns q.workers, or nil when nothing is admitted.
func (q *admitted) workersFunc() func() int {
	if q == nil {
		return nil
	}
	return q.workers
}

// yieldFunc returns q.yield, or nil when nothing is admitted.
func (q *admitted) yieldFunc() func(context.Context) error {
	if q == nil {
		return nil
	}
	return q.yield
}

// costMemo remembers which query texts were heavy when they last ran,
// the estimate of a query's cost before it runs: a dashboard or a
// benchmark repeats its queries, and a heavy one that waits for a slot
// before it starts takes no processor from the running ones meanwhile.
// It holds at most memoSize texts (by hash); when full it forgets them
// all, which only makes the next runs start light.
type costMemo struct {
	mu   sync.Mutex
	seed maphash.Seed
	once sync.Once
	set  map[uint64]struct{}
}

const memoSize = 4096

func (m *costMemo) hash(text string) uint64 {
	m.once.Do(func() { m.seed = maphash.MakeSeed() })
	return maphash.String(m.seed, text)
}

func (m *costMemo) heavy(h uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.set[h]
	return ok
}

func (m *costMemo) mark(h uint64, heavy bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !heavy {
		delete(m.set, h)
		return
	}
	if m.set == nil || len(m.set) >= memoSize {
		m.set = map[uint64]struct{}{}
	}
	m.set[h] = struct{}{}
}
