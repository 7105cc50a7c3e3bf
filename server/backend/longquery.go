package backend

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// LongQueries lets short queries go first. A query that has run longer
// than After becomes long; whenever a short query is running, a long one
// pauses at its next evaluation checkpoint (every few thousand steps) until
// no short query runs, but at most MaxPause at a time, so it is slowed,
// never starved. A few long or hostile queries — a cross join that runs
// to its timeout, a W3C test query over the whole store — then cannot take
// the cores from the short lookups of other clients. Nothing is held while
// a query waits or writes, so a client that stops reading its answer
// delays no one. nil schedules nothing.
type LongQueries struct {
	After    time.Duration
	MaxPause time.Duration
	short    atomic.Int64 // queries running that are not long (yet)
}

// DefaultMaxPause is how long a long query waits at one checkpoint.
const DefaultMaxPause = 10 * time.Millisecond

// NewLongQueries returns a scheduler for queries older than after.
func NewLongQueries(after time.Duration) *LongQueries {
	return &LongQueries{After: after, MaxPause: DefaultMaxPause}
}

// longQuery is one query's standing with the scheduler.
type longQuery struct {
	l     *LongQueries
	start time.Time
	state atomic.Int32 // short, long or ended
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
	return &longQuery{l: l, start: time.Now()}
}

// yield is eval.Options.Yield: a long query gives way to short ones.
func (q *longQuery) yield(ctx context.Context) error {
	if q == nil {
		return nil
	}
	switch q.state.Load() {
	case queryShort:
		if time.Since(q.start) < q.l.After {
			return nil
		}
		if !q.state.CompareAndSwap(queryShort, queryLong) {
			return nil
		}
		q.l.short.Add(-1)
	case queryEnded:
		return nil
	}
	// Let goroutines that are ready run first — a short request whose
	// connection just became readable would otherwise wait for the
	// scheduler's 10 ms preemption of this one.
	runtime.Gosched()
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
	return nil
}

// end takes the query out of the count; safe to call twice.
func (q *longQuery) end() {
	if q == nil {
		return
	}
	if q.state.Swap(queryEnded) == queryShort {
		q.l.short.Add(-1)
	}
}

// yieldFunc returns q.yield, or nil when nothing is scheduled.
func (q *longQuery) yieldFunc() func(context.Context) error {
	if q == nil {
		return nil
	}
	return q.yield
}
