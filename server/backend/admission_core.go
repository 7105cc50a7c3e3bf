package backend

import (
	"context"
	"time"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// One core for light queries. The run slots bound how many queries run,
// but on a machine of two cores the heavy queries alone could hold two
// slots and keep both cores busy: a light query then ran in its reserve
// lane (LightReserve) beside them, sharing a core with a heavy query's
// thread, the garbage collector and whatever else the server does, and
// the Go runtime's run queues held it behind every other runnable
// goroutine for a 10 ms slice each. Under the hardening soak (a hostile
// cross-product COUNT and five decoders of large SERVICE answers at a
// time) the analysts' lookups waited 100-300 ms at p99 for a processor.
// So while any light query is in progress, heavy queries hold at most
// one slot fewer than Slots: a heavy query past that gives its slot back
// at its next checkpoint and waits for the light queries to end. With no
// light query about, heavy ones use every slot, so heavy work alone (a
// benchmark of aggregates, a batch of analyses) keeps all the cores.

// heavyLanes is how many slots heavy queries may hold now: Slots, or one
// fewer (at least one) while a light query is in progress or always with
// KeepLightCore.
func (a *Admission) heavyLanes() int {
	n := max(1, a.Slots)
	if n > 1 && (a.KeepLightCore || a.lightRunning()) {
		return n - 1
	}
	return n
}

// Keeping a core for light queries at all times (KeepLightCore). Handing
// the core back only while a light query is in progress leaves a lookup
// that arrives while heavy work holds every slot to share the cores with
// it until the heavy query's next checkpoint, and beside the garbage
// collector's mark worker the Go runtime has then no processor for it:
// the lookup waits for the scheduler's 10 ms preemption. In the hardening
// soak on two cores (a hostile cross-product COUNT always running, bulk
// parsing, SERVICE answers decoded) query evaluation ran on both cores
// for 45 % of a 15 s trace, and the readers' goroutines waited over 10 ms
// for a processor 300 times while it did. Light queries are rare and
// short, so on a small machine one core idle for them most of the time is
// the price of their tail; on a large one heavy work loses only one core
// of many.

// bulkTextBytes is the query text past which a query starts heavy: its
// parsing is bulk work (prepare) and its algebra's optimization grows with
// it as well — the soak's hostile path of 30,000 steps (400 KB) spent
// 100-150 ms of a core in the optimizer, in a light lane, before its first
// checkpoint.
const bulkTextBytes = bulkParseBytes

// lightRunning reports whether a light query is in progress: begun and
// not ended, waiting for a slot or running.
func (a *Admission) lightRunning() bool { return a.light.Load() > 0 }

// Bulk waits for a heavy query's slot for work that is not a query but
// takes a core as one does — checking an uploaded rule file, parsing a
// large sensor message — so that it too leaves a core to the light
// queries (heavyLanes) and takes turns with the heavy ones, in the heavy
// queue of ctx's client (server.ClientOf). It has no checkpoints: it
// keeps the slot until release, which must be called once. On a nil
// Admission it returns at once.
func (a *Admission) Bulk(ctx context.Context) (release func(), err error) {
	if a == nil {
		return func() {}, nil
	}
	q := &admitted{a: a, client: server.ClientOf(ctx), start: time.Now(), grant: make(chan struct{}, 1), heavy: true, slotted: true}
	if err := q.acquire(ctx); err != nil {
		return func() {}, err
	}
	return func() { q.leave() }, nil
}

// bulkParseBytes is the query text past which parsing is bulk work: an
// analyst's query is a few kilobytes, and a hostile one of 30,000 path
// steps (400 KB) took tens of milliseconds of a core to parse.
const bulkParseBytes = 64 << 10

// prepare parses a query, in a heavy slot (Admission.Bulk) when its text
// is past bulkParseBytes.
func (e *QueryEngine) prepare(ctx context.Context, text string, opts query.Options) (*query.Prepared, error) {
	if len(text) > bulkParseBytes {
		release, err := e.Admission.Bulk(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	return query.PrepareContext(ctx, text, opts)
}
