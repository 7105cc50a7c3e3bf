package backend

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// LongQueries lets short queries go first. A query that has taken more
// than Steps evaluation steps, or run longer than After, becomes long. Its
// thread's priority is lowered to Nice (server.LowerPriority), so that
// the kernel runs short requests first even where the query cannot pause
// (a sort, an answer being encoded); and whenever a short query is
// running, a long one pauses at its next evaluation checkpoint (every few
// thousand steps) until no short query runs, but at most MaxPause at a
// time, so it is slowed, never starved. Long queries also take turns: only as many run at once as
// there are lanes, fewer than the processors, so that one processor is
// left to the short requests. A few long or hostile queries — a cross join
// that runs to its timeout, a W3C test query over the whole store — then
// cannot take the cores from the short lookups of other clients. A query
// waits at most laneWait for a turn, so one whose client has stopped
// reading its answer (it holds its turn while blocked in a write) delays
// the other long queries by that much, and short ones not at all. nil
// schedules nothing.
type LongQueries struct {
	After time.Duration
	// Steps is the evaluation steps after which a query is long (0: only
	// After counts). Steps, unlike time, do not grow when the server is
	// busy, so a short query slowed by load is not taken for a long one
	// and slowed further.
	Steps int64
	// Nice is the priority (nice value, 1 to 19) a long query's thread
	// runs at; 0 leaves it.
	Nice     int
	MaxPause time.Duration
	// Burst is how long a long query runs before it rests as long again,
	// while short queries have begun within the last Burst*50 (the server
	// is serving interactive clients; 0: never rests). The rests leave
	// processors idle between the short requests, so that the runtime
	// polls the network and a new request starts at once instead of when
	// a long query's checkpoint comes.
	Burst     time.Duration
	lastShort atomic.Int64 // when a short query last began, in Unix ns
	short     atomic.Int64 // queries running that are not long (yet)
	// lane holds one token per long query allowed to run at once, fewer
	// than the scheduler's processors: see NewLongQueries.
	lane chan struct{}
}

// DefaultSteps is LongQueries.Steps: about 30 times what the soak test's
// selective lookups take (a three-pattern join with a filter: 13,000
// steps), and a few percent of a scan of a 200,000-triple store.
const DefaultSteps = 32 * query.YieldEvery

// DefaultNice is LongQueries.Nice: the lowest priority. A long query
// alone still has the whole processor; it only gives way. In one soak
// experiment (bench/soak, 2 cores, hostile clients only, After at 10 ms)
// it took the read p99 from 13.2 to 10.6 ms.
const DefaultNice = 19

// DefaultMaxPause is how long a long query waits at one checkpoint.
const DefaultMaxPause = 10 * time.Millisecond

// DefaultBurst is LongQueries.Burst: long queries get at most half of a
// lane while interactive clients are served. In the soak test it took the
// read p99 from ~44 ms to ~33 ms (under load; see the README).
const DefaultBurst = 2 * time.Millisecond

// DefaultLanes is how many long queries may run at once on cores
// processors: one fewer, at least one. Measured in the soak test (bench/soak,
// 2 cores): with as many long queries as processors, the hostile clients'
// whole-store scans kept every processor busy, and the Go runtime, which
// polls the network from idle processors (or else from its 10 ms system
// monitor), noticed the short requests' connections late — read p99 ~60 ms
// against ~38 ms with one lane.
func DefaultLanes(cores int) int { return max(1, cores-1) }

// NewLongQueries returns a scheduler for queries past DefaultSteps steps
// or older than after, which run at DefaultNice, and of which at most
// lanes (at least one) run at once; the others wait for a turn at their
// checkpoints, each turn lasting one checkpoint interval. DefaultLanes is
// the usual choice.
func NewLongQueries(after time.Duration, lanes int) *LongQueries {
	lanes = max(1, lanes)
	return &LongQueries{After: after, Steps: DefaultSteps, Nice: DefaultNice, MaxPause: DefaultMaxPause, Burst: DefaultBurst, lane: make(chan struct{}, lanes)}
}

// longQuery is one query's standing with the scheduler.
type longQuery struct {
	l     *LongQueries
	start time.Time
	state atomic.Int32 // short, long or ended
	// turn is set while the query holds a lane token (between two of
	// its checkpoints).
	turn atomic.Bool
	// rested is when the query's last rest ended, and steps the
	// evaluation steps counted at its checkpoints; only its own goroutine
	// uses them.
	rested time.Time
	steps  int64
}

const (
	queryShort int32 = iota
	queryLong
	queryEnded
)

// begin starts timing a query; yield goes into its options and end must
// be called when its rows are done.
func (l *LongQueries) begin() *longQuery {
	if l == nil || l.After <= 0 {
		return nil
	}
	l.short.Add(1)
	now := time.Now()
	l.lastShort.Store(now.UnixNano())
	return &longQuery{l: l, start: now}
}

// yield is eval.Options.Yield: a long query gives way to short ones.
func (q *longQuery) yield(ctx context.Context) error {
	if q == nil {
		return nil
	}
	q.steps += query.YieldEvery
	switch q.state.Load() {
	case queryShort:
		if (q.l.Steps <= 0 || q.steps < q.l.Steps) && time.Since(q.start) < q.l.After {
			return nil
		}
		if !q.state.CompareAndSwap(queryShort, queryLong) {
			return nil
		}
		q.l.short.Add(-1)
		server.LowerPriority(ctx, q.l.Nice)
	case queryEnded:
		return nil
	}
	// Hand the turn to the next long query waiting for one.
	q.release()
	// Let goroutines that are ready run first — a short request whose
	// connection just became readable would otherwise wait for the
	// scheduler's 10 ms preemption of this one.
	runtime.Gosched()
	if err := q.rest(ctx); err != nil {
		return err
	}
	deadline := time.Now().Add(q.l.MaxPause)
	for q.l.short.Load() > 0 && time.Now().Before(deadline) {
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	// Wait for a turn, but not forever: a query holding one may be blocked
	// writing to a client that does not read, using no processor.
	wait := time.NewTimer(laneWait)
	defer wait.Stop()
	select {
	case q.l.lane <- struct{}{}:
		q.turn.Store(true)
		if q.state.Load() == queryEnded {
			q.release() // ended by another goroutine while waiting
		}
		return nil
	case <-wait.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// laneWait bounds how long a long query waits for a turn.
const laneWait = 50 * time.Millisecond

// rest sleeps as long as it has been since the query's last rest, once
// that is Burst or more and a short query began recently: a long query
// then has at most half the wall-clock time (its pauses for short queries
// and its waits for a turn count as its time, which makes it yield more
// the busier the server is).
func (q *longQuery) rest(ctx context.Context) error {
	burst := q.l.Burst
	if burst <= 0 {
		return nil
	}
	now := time.Now()
	if q.rested.IsZero() {
		q.rested = now
		return nil
	}
	ran := now.Sub(q.rested)
	if ran < burst {
		return nil
	}
	if now.UnixNano()-q.l.lastShort.Load() > int64(50*burst) {
		q.rested = now // no interactive clients: run on
		return nil
	}
	t := time.NewTimer(ran)
	defer func() { q.rested = time.Now() }()
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	return nil
}

// release gives back the query's turn, if it has one.
func (q *longQuery) release() {
	if q.turn.CompareAndSwap(true, false) {
		<-q.l.lane
	}
}

// end takes the query out of the count; safe to call twice.
func (q *longQuery) end() {
	if q == nil {
		return
	}
	if q.state.Swap(queryEnded) == queryShort {
		q.l.short.Add(-1)
	}
	q.release()
}

// yieldFunc returns q.yield, or nil when nothing is scheduled.
func (q *longQuery) yieldFunc() func(context.Context) error {
	if q == nil {
		return nil
	}
	return q.yield
}
