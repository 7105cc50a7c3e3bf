package reasoner

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// A round's joins are spread over workers: each (rule, join plan) pair
// reads the working memory only, so pairs are independent, and a pair
// whose first step scans many rows (the delta, or everything in the first
// round) is cut into row ranges, one task each. Workers take tasks in
// order and collect what they derive in an output of their own; the
// outputs are then merged in task order, so the round's new triples, and
// which derivation each keeps (the first), are those of a run on one
// worker, whatever the number of workers.

// output is where a join puts what it derives.
type output struct {
	pending  []derivedTriple
	set      tripleSet
	premArea []premRef
}

// task is one join to run in a round: plan pl over the rows lo ≤ row < hi
// of its first step (hi < 0: all of them).
type task struct {
	rule   *boundRule
	pl     *plan
	lo, hi int32
}

// minTaskRows is the fewest rows worth a task of their own.
const minTaskRows = 2048

// setWorkers decides how many workers rounds use.
func (e *Engine) setWorkers() {
	e.workers = e.opts.Workers
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	for _, r := range e.rules {
		if r.serial {
			e.workers = 1
		}
	}
	if e.demand != nil {
		// A read on demand adds rows to the tables the joins read.
		e.workers = 1
	}
}

// tasks lists the round's joins in the order one worker would run them.
func (e *Engine) tasks(first bool) []task {
	var ts []task
	for _, r := range e.rules {
		if first && r.noPatterns != nil {
			ts = append(ts, task{rule: r, pl: r.noPatterns, hi: -1})
		}
		plans := r.plans
		if first && r.full != nil {
			// every row is new and none is old: one join over everything
			plans = []*plan{r.full}
		}
		for _, pl := range plans {
			if pl != r.full && !e.hasDelta(pl) {
				continue
			}
			ts = e.split(ts, r, pl)
		}
	}
	return ts
}

// split appends the tasks of one join: row ranges of its first step when
// that step reads one predicate's table and there are workers to share it.
func (e *Engine) split(ts []task, r *boundRule, pl *plan) []task {
	whole := append(ts, task{rule: r, pl: pl, hi: -1})
	if e.workers <= 1 || len(pl.steps) == 0 || pl.steps[0].p.mode != modeConst {
		return whole
	}
	t := e.ts.tables[pl.steps[0].p.id]
	if t == nil {
		return whole
	}
	lo, hi := 0, len(t.s)
	if pl.steps[0].gen == genDelta {
		lo = t.newest
	}
	parts := min(4*e.workers, (hi-lo)/minTaskRows)
	if parts <= 1 {
		return whole
	}
	size := (hi - lo + parts - 1) / parts
	for a := lo; a < hi; a += size {
		ts = append(ts, task{rule: r, pl: pl, lo: int32(a), hi: int32(min(a+size, hi))})
	}
	return ts
}

// evaluateRound runs the round's joins, leaving what they derived in e.out.
// limitHit reports that MaxDerived stopped them.
func (e *Engine) evaluateRound(ctx context.Context, first bool) (limitHit bool, err error) {
	ts := e.tasks(first)
	if e.workers <= 1 || len(ts) <= 1 {
		for _, tk := range ts {
			began := time.Now()
			err := e.evaluate(ctx, tk.pl, &e.out, tk.lo, tk.hi)
			e.summary.RuleTime[tk.rule.cr.label] += time.Since(began)
			if err != nil {
				if errors.Is(err, ErrMaxDerived) {
					return true, nil
				}
				return false, err
			}
		}
		return false, nil
	}
	outs := make([]output, len(ts))
	errs := make([]error, len(ts))
	took := make([]time.Duration, len(ts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(e.workers, len(ts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ts) {
					return
				}
				began := time.Now()
				errs[i] = e.evaluate(ctx, ts[i].pl, &outs[i], ts[i].lo, ts[i].hi)
				took[i] = time.Since(began)
			}
		})
	}
	wg.Wait()
	for i, tk := range ts {
		e.summary.RuleTime[tk.rule.cr.label] += took[i]
		for _, d := range outs[i].pending {
			key := [3]kb.ID{d.s, d.p, d.o}
			if e.out.set.has(key) {
				continue
			}
			if e.opts.MaxDerived > 0 && e.summary.Derived+int64(len(e.out.pending)) >= e.opts.MaxDerived {
				return true, nil
			}
			e.out.set.add(key)
			e.out.pending = append(e.out.pending, d)
		}
		if errs[i] != nil {
			if errors.Is(errs[i], ErrMaxDerived) {
				return true, nil
			}
			return false, errs[i]
		}
	}
	return false, nil
}
