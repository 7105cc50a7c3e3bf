package eval

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// A GROUP BY over one triple pattern runs on several workers when the
// scan is large: the query's goroutine scans the store and deals each
// row to the worker that owns its group key (the key's ID modulo the
// workers), in batches; each worker folds its rows into its own groups.
// Since every row of a group goes to one worker, in scan order, each
// group sees the same rows in the same order as the serial scan: sums of
// doubles round the same way, GROUP_CONCAT joins in the same order,
// SAMPLE picks the same value, DISTINCT keeps the same first values, and
// the first expression error of a group is the same one. The groups are
// emitted in the order of their first rows, as the serial scan emits
// them. The implicit single group (no GROUP BY key) runs serially: its
// rows cannot be dealt out without changing the order they meet.
//
// The workers decode terms through the store's TermTable, which is safe
// for concurrent readers; each has its own executor (decode cache,
// BNODE and regex state), its own compiled FILTER and aggregate
// expressions (a compiled call keeps scratch space for its arguments) and
// its own budget account, all charging the query's one budget, so the
// memory bound holds for the whole query.

// aggScanParallelMin is the fewest matches (by the store's count) for
// which the scan is dealt out; below it the workers cost more than they
// save. A variable so that tests can run small scans in parallel.
var aggScanParallelMin int64 = 1 << 15

// aggScanWorkers, when positive, is the workers a parallel scan uses
// instead of GOMAXPROCS (tests).
var aggScanWorkers = 0

// aggScanParallelRuns counts the scans dealt out to workers (tests).
var aggScanParallelRuns atomic.Int64

// aggScanBatch is how many rows the scan hands a worker at a time.
const aggScanBatch = 1024

// parallelism returns how many workers should fold the node's scan: 1
// for a serial scan.
func (n *aggScanNode) parallelism(ex *executor) int {
	workers := ex.workers()
	if aggScanWorkers > 0 {
		workers = aggScanWorkers
	}
	if workers < 2 || n.key == nil || n.missing != "" || ex.dict.table == nil {
		return 1
	}
	var total int64
	for _, gr := range n.graphs {
		c, err := ex.ds.Count(ex.ctx, kb.Pattern{S: n.pat[0].id, P: n.pat[1].id, O: n.pat[2].id, G: gr}, false)
		if err != nil {
			return 1
		}
		total += c
	}
	if total < aggScanParallelMin {
		return 1
	}
	return workers
}

// scanRow is one row dealt to a worker: the quad's IDs and its position
// in the scan.
type scanRow struct {
	ids [3]kb.ID
	seq int64
}

// workerExecutor returns an executor for worker k of a parallel
// operator: the query's plan, store and budget, with its own caches and
// function state, and no Yield (the query's goroutine yields for all).
func (ex *executor) workerExecutor(k int) *executor {
	w := *ex
	w.dict = newDictionary(ex.ctx, ex.ds)
	w.dict.mem = ex.dict.mem
	w.env = &FuncEnv{Now: ex.env.Now, Base: ex.env.Base, prefix: fmt.Sprintf("%sw%d_", ex.env.prefix, k), regexps: map[string]*regexp.Regexp{}}
	w.ticks = 0
	w.opts.Yield = nil
	w.keyBuf = nil
	return &w
}

// runParallel is run with the rows dealt to workers by group key.
func (n *aggScanNode) runParallel(ex *executor, seed row, emit func(row) bool, workers int) error {
	aggScanParallelRuns.Add(1)
	parts := make([]*aggScanPart, workers)
	inbox := make([]chan []scanRow, workers)
	errs := make([]error, workers)
	errSeq := make([]int64, workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for k := range parts {
		wex := ex.workerExecutor(k)
		tests, err := n.compileTests(wex)
		if err != nil {
			return err
		}
		aggs, err := n.compileAggs(wex)
		if err != nil {
			return err
		}
		parts[k] = n.newPart(wex, seed, tests, aggs)
	}
	defer func() {
		for _, p := range parts {
			p.acct.done()
		}
	}()
	for k, p := range parts {
		inbox[k] = make(chan []scanRow, 4)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// A panic here would end the process, not the request.
				if r := recover(); r != nil {
					errs[k], errSeq[k] = fmt.Errorf("internal error in a parallel GROUP BY worker: %v", r), -1
					failed.Store(true)
					for range inbox[k] {
					}
				}
			}()
			for batch := range inbox[k] {
				if errs[k] != nil {
					continue // drain: the scan stops at its next row
				}
				for _, sr := range batch {
					err := p.visit(sr.ids, sr.seq)
					if err == nil {
						err = p.ex.check()
					}
					if err != nil {
						errs[k], errSeq[k] = err, sr.seq
						failed.Store(true)
						break
					}
				}
			}
		}()
	}

	batches := make([][]scanRow, workers)
	var seq int64
	send := func(k int) {
		inbox[k] <- batches[k]
		batches[k] = make([]scanRow, 0, aggScanBatch)
	}
	for k := range batches {
		batches[k] = make([]scanRow, 0, aggScanBatch)
	}
	scanErr := n.scan(ex, func(q kb.Quad) error {
		if failed.Load() {
			return errStop
		}
		ids := [3]kb.ID{q.S, q.P, q.O}
		k := int(uint64(ids[n.keyPos]) % uint64(workers))
		batches[k] = append(batches[k], scanRow{ids: ids, seq: seq})
		seq++
		if len(batches[k]) == aggScanBatch {
			send(k)
		}
		return ex.check()
	})
	for k := range batches {
		if len(batches[k]) > 0 {
			send(k)
		}
		close(inbox[k])
	}
	wg.Wait()

	// The error of the earliest row, as the serial scan would meet it.
	var first error
	firstSeq := int64(-1)
	for k, err := range errs {
		if err != nil && (firstSeq < 0 || errSeq[k] < firstSeq) {
			first, firstSeq = err, errSeq[k]
		}
	}
	if first != nil {
		return first
	}
	if scanErr != nil {
		return scanErr
	}
	var order []*aggScanGroup
	for _, p := range parts {
		order = append(order, p.order...)
	}
	slices.SortFunc(order, func(a, b *aggScanGroup) int { return cmp.Compare(a.first, b.first) })
	acct := ex.account("GROUP BY")
	defer acct.done()
	return n.emitGroups(ex, seed, order, acct, emit)
}
