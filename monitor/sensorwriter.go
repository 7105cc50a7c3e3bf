package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/convert/sensor"
	"github.com/perfkb/perfkb/internal/timeslice"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

// instanceKey identifies a sensor instance's buffer (6.2.3.6: "Based on
// (SensorID, ResourceID), SM can setup appropriate buffers").
type instanceKey struct{ sensor, resource string }

// batch holds the messages received since the last write, per instance in
// arrival order of the instances.
type batch struct {
	buffers map[instanceKey][]received
	order   []instanceKey
	n       int
	bytes   int64 // parsed size (received.size) of the messages
	oldest  time.Time
}

func (b *batch) add(r received) {
	if b.buffers == nil {
		b.buffers = map[instanceKey][]received{}
	}
	k := instanceKey{r.msg.SensorID, r.msg.ResourceID}
	if _, ok := b.buffers[k]; !ok {
		b.order = append(b.order, k)
	}
	b.buffers[k] = append(b.buffers[k], r)
	if b.n == 0 || r.at.Before(b.oldest) {
		b.oldest = r.at
	}
	b.n++
	b.bytes += r.size
}

func (b *batch) reset() {
	clear(b.buffers)
	b.order = b.order[:0]
	b.n = 0
	b.bytes = 0
}

// writer converts and stores messages: as soon as no batch is being
// written, else every Batch messages or FlushInterval, and once more when
// l.msgs is closed. It is two
// goroutines: this one buffers and converts (the Mapper is not
// concurrent), the other applies converted batches in order, so that the
// conversion of one batch overlaps the store write of the previous one.
//
// Large messages (restMessageBytes parsed and more: a flood's) are
// written apart from small ones, one message per store write, one in
// flight at a time, and
// after a large batch is stored the next waits out the rest WriteShare
// asks for (restAfterWrite). Small messages are written meanwhile: they
// wait for the store write in progress, never for a rest nor behind the
// large messages queued before them. So an instance sending both sizes
// may have its small messages stored before earlier large ones.
func (l *SensorListener) writer(ctx context.Context) error {
	mapper := sensor.NewMapper(l.opt.Base, l.opt.Mapper, func(pos, format string, args ...any) {
		l.log.Warn("sensor data: "+fmt.Sprintf(format, args...), "position", pos)
	})
	var hasProblem kb.ID
	if l.engine != nil {
		ids, err := l.ds.Intern(ctx, []kb.Term{kb.IRI(ontology.HasProblem)})
		if err != nil {
			return fmt.Errorf("sensor: %w", err)
		}
		hasProblem = ids[0]
	}
	w := &batchWriter{l: l, mapper: mapper, hasProblem: hasProblem}
	var b, large batch
	// pending are the large messages received and not yet in a batch:
	// the next large batch takes the first.
	// restUntil (unix nanoseconds, the applier's) is when it may be
	// written; largeInflight counts the large batches sent and not yet
	// written (at most one).
	var pending []received
	// restOver fires when the rest that holds pending back ends.
	var restOver <-chan time.Time
	var restUntil atomic.Int64
	largeInflight := 0
	applyQ := make(chan converted, 1)
	applyErr := make(chan error, 1)
	// applied has a token per batch written; inflight counts the batches
	// sent and not yet written. With nothing in flight the store is idle,
	// and what has arrived is written at once rather than at the next
	// tick (group commit: under load, batches grow while one is written;
	// when idle, a message waits for no timer).
	// applied carries whether the batch written was a large one.
	applied := make(chan bool, cap(applyQ)+2)
	inflight := 0
	go func() {
		for c := range applyQ {
			// The rest follows the write's own length, not its wait for
			// the gate.
			var took time.Duration
			err := w.gated(c.large, func() error {
				began := time.Now()
				err := w.apply(ctx, c)
				took = time.Since(began)
				return err
			})
			if rest := l.restAfterWrite(took, c); rest > 0 && err == nil {
				restUntil.Store(time.Now().Add(rest).UnixNano())
			}
			// The queue bound covers a batch until it is stored: a
			// stalled store holds the readers back rather than letting
			// converted batches pile up beside the queue. Large
			// messages waiting out a rest hold their bytes too, which
			// holds their senders back.
			for _, h := range c.held {
				l.gate.release(h.conn, h.size)
			}
			if err != nil {
				applyErr <- err // send sees it and stops the writer
				return
			}
			applied <- c.large
		}
		applyErr <- nil
	}()
	// send hands a converted batch to the applier; it fails once the
	// applier has failed.
	done := func(wasLarge bool) {
		inflight--
		if wasLarge {
			largeInflight--
		}
	}
	send := func(c converted, ok bool) error {
		if !ok {
			return nil
		}
		for {
			select {
			case applyQ <- c:
				inflight++
				if c.large {
					largeInflight++
				}
				return nil
			case wasLarge := <-applied:
				done(wasLarge)
			case err := <-applyErr:
				applyErr <- err
				return err
			}
		}
	}
	convert := func(b *batch, isLarge bool) error {
		var c converted
		var has bool
		err := w.gated(isLarge, func() error {
			var err error
			c, has, err = w.convert(ctx, b)
			return err
		})
		c.large = isLarge
		if err == nil {
			err = send(c, has)
		}
		return err
	}
	// flush writes the small messages gathered, and the large ones when
	// no large batch is in flight and the rest after the last is over (at
	// shutdown, at once).
	flush := func(closing bool) error {
		if err := convert(&b, false); err != nil {
			return err
		}
		if len(pending) == 0 || largeInflight > 0 {
			return nil
		}
		if wait := time.Until(time.Unix(0, restUntil.Load())); wait > 0 && !closing && !l.draining.Load() {
			restOver = time.After(wait)
			return nil
		}
		// One large message per store write: a write holds the store's
		// writer lock for its whole length, and an ordinary write that
		// arrives meanwhile waits all of it. A flood's message is some
		// 400,000 triples; two in one write kept Graph Store writes of
		// one triple waiting past their 10 s deadline in the soak.
		large.reset()
		large.add(pending[0])
		pending = slices.Delete(pending, 0, 1)
		return convert(&large, true)
	}
	finish := func(err error) error {
		close(applyQ)
		if aerr := <-applyErr; err == nil {
			err = aerr
		}
		return err
	}
	tick := time.NewTicker(l.opt.FlushInterval)
	defer tick.Stop()
	for {
		select {
		case r, ok := <-l.msgs:
			if !ok {
				err := flush(true)
				// The large messages left, a batch at a time.
				for err == nil && (len(pending) > 0 || largeInflight > 0) {
					if largeInflight == 0 {
						err = flush(true)
						continue
					}
					select {
					case wasLarge := <-applied:
						done(wasLarge)
					case err = <-applyErr:
						applyErr <- err
					}
				}
				return finish(err)
			}
			var full bool
			if r.size >= restMessageBytes {
				pending = append(pending, r)
				full = true // written as soon as the rest allows
			} else {
				b.add(r)
				full = b.n >= l.opt.Batch || (l.opt.MaxBatchBytes > 0 && b.bytes >= l.opt.MaxBatchBytes)
			}
			if full || inflight == 0 {
				if err := flush(false); err != nil {
					return finish(err)
				}
			}
		case wasLarge := <-applied:
			done(wasLarge)
			if (inflight == 0 && b.n > 0) || (largeInflight == 0 && len(pending) > 0) {
				if err := flush(false); err != nil {
					return finish(err)
				}
			}
		case <-restOver:
			restOver = nil
			if err := flush(false); err != nil {
				return finish(err)
			}
		case <-tick.C:
			if err := flush(false); err != nil {
				return finish(err)
			}
		}
	}
}

// gated runs fn, within SensorOptions.LargeWriteGate when large.
func (w *batchWriter) gated(large bool, fn func() error) error {
	if !large {
		return fn()
	}
	if w.l.opt.LargeWriteGate != nil {
		done := w.l.opt.LargeWriteGate()
		defer done()
	}
	// A large batch is bulk work: a reader's thread that wakes beside it
	// runs first (package timeslice).
	var err error
	timeslice.Bulk(func() { err = fn() })
	return err
}

// restAfter is the shortest store write after which the writer rests
// (SensorOptions.WriteShare).
const restAfter = 20 * time.Millisecond

// restMessageBytes is the parsed size per message, on average over a
// batch, from which the writer rests after writing it: the size of a
// flood's messages (a message of 100,000 leaves takes some 13 MB parsed),
// far above an ordinary sensor's (under a kilobyte), so that sensors
// sending many small messages are written as fast as the store takes
// them.
const restMessageBytes = 1 << 20

// maxRest caps one rest, so that a store write slowed by a stall does
// not hold the sensors back for long after it. Under load a flood's batch
// takes seconds to write, and a cap near that would leave WriteShare
// unmet. A sensor sending small messages is not held back by the queue
// bound during a rest (byteGate's reserve); its messages wait for the
// next write.
const maxRest = 15 * time.Second

// restAfterWrite is how long the writer rests after a store write of c
// that took d; at shutdown it does not rest.
func (l *SensorListener) restAfterWrite(d time.Duration, c converted) time.Duration {
	share := l.opt.WriteShare
	if share >= 1 || d < restAfter || c.n <= 0 || l.draining.Load() {
		return 0
	}
	var bytes int64
	for _, h := range c.held {
		bytes += h.size
	}
	if bytes/c.n < restMessageBytes {
		return 0
	}
	return min(time.Duration(float64(d)*(1-share)/share), maxRest)
}

// converted is a batch ready to be applied.
type converted struct {
	quads  []kb.Quad
	n      int64
	oldest time.Time
	// held are the queue bytes of the batch's messages, released once
	// the batch is written (or has failed).
	held []gateHold
	// large: the batch's messages are large ones (restMessageBytes).
	large bool
}

// gateHold is one message's bytes in the queue bound.
type gateHold struct {
	conn, size int64
}

type batchWriter struct {
	l          *SensorListener
	mapper     *sensor.Mapper
	quads      []kb.TermQuad
	spans      []messageSpan // the messages of quads, in order
	hasProblem kb.ID
	findings   int64
	// window has the message count of each Add the engine still holds,
	// oldest first (SensorOptions.RulesWindow).
	window []int64
}

// convert maps the buffered messages to quads with IDs. A message the
// mapping refuses is logged and left out; the others are written.
func (w *batchWriter) convert(ctx context.Context, b *batch) (converted, bool, error) {
	if b.n == 0 {
		return converted{}, false, nil
	}
	l := w.l
	defer w.release()
	w.quads = w.quads[:0]
	w.spans = w.spans[:0]
	g := l.opt.Graph
	for _, k := range b.order {
		for _, r := range b.buffers[k] {
			mark := len(w.quads)
			err := w.mapper.Map(r.msg, func(_ string, s, p, o kb.Term) error {
				w.quads = append(w.quads, kb.TermQuad{S: s, P: p, O: o, G: g})
				return nil
			})
			if err != nil {
				w.quads = w.quads[:mark]
				l.stats.invalid.Add(1)
				l.log.Warn("message refused", "conn", r.conn, "error", err.Error())
				continue
			}
			w.spans = append(w.spans, messageSpan{conn: r.conn, end: len(w.quads)})
		}
	}
	refused, err := w.check(ctx)
	if err != nil {
		return converted{}, false, err
	}
	c := converted{n: int64(b.n - refused), oldest: b.oldest}
	for _, k := range b.order {
		for _, r := range b.buffers[k] {
			c.held = append(c.held, gateHold{conn: r.conn, size: r.size})
		}
	}
	b.reset()
	quads, err := kb.InternQuads(ctx, l.ds, w.quads)
	if err != nil {
		return c, false, fmt.Errorf("sensor: interning a batch: %w", err)
	}
	c.quads = quads
	return c, true, nil
}

// keepQuads is the most quads whose buffer the writer keeps from one
// batch to the next: a small batch's, not a flood message's.
const keepQuads = 1 << 14

// release lets go of the batch's terms once it is converted. Kept in the
// reused buffer, a flood message's million quads and their strings stayed
// reachable until a larger batch overwrote them: 100 MB of pointers that
// every garbage collection then scanned (the soak's in-use heap after its
// flood), and a collection's mark phase is when lookups waited.
func (w *batchWriter) release() {
	if cap(w.quads) > keepQuads {
		w.quads = nil
		return
	}
	clear(w.quads[:cap(w.quads)])
	w.quads = w.quads[:0]
}

// messageSpan marks where one message's triples end in a batch.
type messageSpan struct {
	conn int64
	end  int
}

// check runs SensorOptions.Check over the batch's triples, then, if it
// refuses them, over each message's alone, keeping the messages it
// accepts, and returns how many it refused. It returns an error only when
// the context ends.
func (w *batchWriter) check(ctx context.Context) (int, error) {
	l := w.l
	if l.opt.Check == nil || len(w.quads) == 0 {
		return 0, nil
	}
	err := l.opt.Check(ctx, w.quads)
	if err == nil {
		return 0, nil
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		return 0, fmt.Errorf("sensor: checking a batch: %w", err)
	}
	refused := 0
	kept, start := 0, 0
	for _, m := range w.spans {
		msg := w.quads[start:m.end]
		start = m.end
		if err := l.opt.Check(ctx, msg); err != nil {
			if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
				return 0, fmt.Errorf("sensor: checking a message: %w", err)
			}
			refused++
			l.stats.invalid.Add(1)
			l.log.Warn("message refused", "conn", m.conn, "error", err.Error())
			continue
		}
		kept += copy(w.quads[kept:], msg)
	}
	w.quads = w.quads[:kept]
	return refused, nil
}

// apply writes one converted batch atomically, through the rules when
// there are any.
func (w *batchWriter) apply(ctx context.Context, c converted) error {
	l := w.l
	if l.engine == nil {
		if err := l.write(ctx, c); err != nil {
			return fmt.Errorf("sensor: writing a batch of %d messages: %w", c.n, err)
		}
	} else {
		watch := l.watch
		watch.found, watch.hasProblem = watch.found[:0], w.hasProblem
		if _, err := l.engine.Add(ctx, c.quads); err != nil {
			return fmt.Errorf("sensor: writing and reasoning over a batch of %d messages: %w", c.n, err)
		}
		w.report(ctx, watch.found, c.oldest)
		if err := w.slide(ctx, c.n); err != nil {
			return err
		}
		l.stats.ruleMemory.Store(int64(l.engine.Size()))
	}
	l.stats.triples.Add(int64(len(c.quads)))
	l.stats.stored.Add(c.n)
	return nil
}

// write stores a converted batch. A batch of large messages is written on
// its own where the store can (kb.ChangeReporter, which the native store
// applies as a group of one), not through Apply: Apply joins the writes
// waiting at the moment into one group commit, and a group holding a
// flood's batch of hundreds of thousands of quads goes through the store's
// batch path (its memtable, log, flush and compactions) instead of being
// ingested as sorted tables, while every small write in the group waits
// for it. Under the soak's attacks Graph Store writes of one triple waited
// 15–31 s so, past their 10 s deadline. Alone, the large batch is
// ingested, and the small writes wait for the writer lock with their
// deadlines in view, then commit together.
func (l *SensorListener) write(ctx context.Context, c converted) error {
	d := kb.Delta{Add: c.quads}
	if cr, ok := l.ds.(kb.ChangeReporter); ok && c.large {
		_, err := cr.ApplyChanges(ctx, d)
		return err
	}
	return l.ds.Apply(ctx, d)
}

// findingWatch passes writes through and notes the findings among them
// (perfonto:hasProblem triples).
type findingWatch struct {
	kb.Dataset
	hasProblem kb.ID
	found      []kb.Quad
}

func (f *findingWatch) Apply(ctx context.Context, d kb.Delta) error {
	if err := f.Dataset.Apply(ctx, d); err != nil {
		return err
	}
	for _, q := range d.Add {
		if q.P == f.hasProblem {
			f.found = append(f.found, q)
		}
	}
	return nil
}

// report logs the new findings of a batch.
func (w *batchWriter) report(ctx context.Context, found []kb.Quad, oldest time.Time) {
	l := w.l
	latency := time.Since(oldest)
	for _, q := range found {
		f, err := describeFinding(ctx, l.ds, q)
		if err != nil {
			l.log.Warn("reading a new finding", "error", err.Error())
			continue
		}
		l.stats.findings.Add(1)
		l.log.Info("finding", "problem", f.TypeName(), "subject", f.Subject.Value, "severity", f.Severity,
			"class", f.SeverityClass, "description", f.Description)
		if l.opt.OnFinding != nil {
			l.opt.OnFinding(f, latency)
		}
	}
}

// describeFinding reads the finding node of a hasProblem triple.
func describeFinding(ctx context.Context, ds kb.Dataset, q kb.Quad) (reasoner.Finding, error) {
	var f reasoner.Finding
	s, err := ds.Resolve(ctx, q.S)
	if err != nil {
		return f, err
	}
	node, err := ds.Resolve(ctx, q.O)
	if err != nil {
		return f, err
	}
	f.Subject, f.Problem = s, node
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: q.O}))
	if err != nil {
		return f, err
	}
	for _, pq := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, pq)
		if err != nil {
			return f, err
		}
		switch tq.P.Value {
		case ontology.RDFType:
			f.Type = tq.O.Value
		case ontology.Severity:
			if v, ok := parseFloat(tq.O.Value); ok {
				f.Severity, f.HasSeverity = v, true
			}
		case ontology.SeverityClass:
			f.SeverityClass = tq.O.Value
		case ontology.ProblemDescription:
			f.Description = tq.O.Value
		}
	}
	return f, nil
}

func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// slide keeps the engine's memory between the last RulesWindow and twice
// as many messages, after an Add of n messages.
func (w *batchWriter) slide(ctx context.Context, n int64) error {
	limit := w.l.opt.RulesWindow
	if limit <= 0 {
		return nil
	}
	e := w.l.engine
	if e.Adds() > len(w.window) {
		w.window = append(w.window, n)
	}
	// Trim when twice the window is held, so the cost of Forget (a pass
	// over the working memory) is spread over a window of messages.
	var total int64
	for _, m := range w.window {
		total += m
	}
	if total < 2*limit {
		return nil
	}
	var sum int64
	keep := 0
	for i := len(w.window) - 1; i >= 0 && sum < limit; i-- {
		sum += w.window[i]
		keep++
	}
	if keep == len(w.window) {
		return nil
	}
	w.window = append(w.window[:0], w.window[len(w.window)-keep:]...)
	if err := e.Forget(ctx, keep); err != nil {
		return fmt.Errorf("sensor: %w", err)
	}
	return nil
}
