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
// fewer (at least one) while a light query is in progress.
func (a *Admission) heavyLanes() int {
	n := max(1, a.Slots)
	if n > 1 && a.lightRunning() {
		return n - 1
	}
	return n
}

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
