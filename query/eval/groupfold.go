package eval

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// Folding a GROUP BY's groups on workers. With the join on workers
// (groupjoin.go), the fold on the query's goroutine was what was left on
// one core: on 16 cores the GROUP BY over every metric at 5M triples ran
// 3.7-4.4x faster than on one, the fold's map lookups and aggregate
// updates taking the rest. So where every key is a plain variable, the
// query's goroutine only deals each row, in the serial order, to the fold
// worker that owns its key (the key IDs' hash modulo the workers), and each
// fold worker keeps its own groups. Every row of a group goes to one
// worker, in the serial order, so each group sees the same rows in the
// same order as the serial fold: sums of doubles round the same way,
// GROUP_CONCAT joins in the same order, SAMPLE picks the same value, and
// a group's first expression error is the same one. Each group remembers
// the position of its first row, and the groups are emitted in that
// order, as the serial fold emits them. A worker's error is reported as
// the serial fold would meet it: the one of the earliest row.
//
// Each worker has its own executor, its own compiled aggregate
// expressions (a compiled call keeps scratch space for its arguments) and
// its own budget account, all charging the query's one budget. The rows
// waiting for a worker are a few batches of foldBatch rows each.

// groupFoldOn turns the parallel fold off (tests compare with it off).
var groupFoldOn = true

// groupFoldMinWorkers is the fewest workers for which the fold runs on
// workers too: on two cores the join's workers already take both, and
// dealing the rows cost more than it saved (GROUP BY over every metric at
// 5M, served with GOMAXPROCS=2: 456-520 ms against 393-456 ms).
const groupFoldMinWorkers = 4

// groupFoldRuns counts the GROUP BYs folded on workers (tests).
var groupFoldRuns atomic.Int64

// foldBatch is how many rows the query's goroutine hands a fold worker
// at a time.
const foldBatch = 512

// foldAhead is how many batches may wait for one fold worker.
const foldAhead = 4

// foldsInParallel reports whether n's groups should be folded on workers
// for rows of width IDs: enough workers, and every key a plain variable,
// so that a row's group is known from its IDs without evaluating anything.
func (n *groupNode) foldsInParallel(workers, width int) bool {
	if !groupFoldOn || workers < groupFoldMinWorkers || len(n.keys) == 0 {
		return false
	}
	for _, k := range n.keys {
		if k.varSlot < 0 || k.varSlot >= width {
			return false
		}
	}
	return true
}

// foldPart is one fold worker's share of the groups.
type foldPart struct {
	ex     *executor
	aggs   []groupAgg
	acct   *account
	byID   map[kb.ID]*groupState
	byKey  map[string]*groupState
	order  []*groupState
	keyIDs []kb.ID
	err    error
	errSeq int64
}

// foldRows is a batch of rows for one fold worker: width IDs each, one
// after another, and each row's position in the serial order.
type foldRows struct {
	ids []kb.ID
	seq []int64
}

// compileFoldAggs compiles n's aggregates again for a worker's executor.
func (n *groupNode) compileFoldAggs(wex *executor) ([]groupAgg, error) {
	aggs := slices.Clone(n.aggs)
	for i := range aggs {
		e := aggs[i].agg.Expr
		if e == nil {
			continue
		}
		c, err := wex.compileExpr(e, n.inner)
		if err != nil {
			return nil, err
		}
		aggs[i].expr = c
		if aggs[i].num != nil {
			aggs[i].num = wex.compileNum(e)
		}
	}
	return aggs, nil
}

// visit folds one row into the part's groups.
func (p *foldPart) visit(n *groupNode, r row, seq int64, groupBytes int64) error {
	for i, k := range n.keys {
		p.keyIDs[i] = r[k.varSlot]
	}
	var g *groupState
	var ok bool
	if len(p.keyIDs) == 1 {
		g, ok = p.byID[p.keyIDs[0]]
	} else {
		g, ok = p.byKey[rowKey(p.keyIDs)]
	}
	if !ok {
		if err := p.acct.charge(groupBytes); err != nil {
			return err
		}
		g = &groupState{keys: append([]kb.ID(nil), p.keyIDs...), aggs: make([]aggState, len(n.aggs)), first: seq}
		if len(p.keyIDs) == 1 {
			p.byID[p.keyIDs[0]] = g
		} else {
			p.byKey[rowKey(p.keyIDs)] = g
		}
		p.order = append(p.order, g)
	}
	for i, a := range p.aggs {
		if err := g.aggs[i].add(p.ex, a, r, p.acct); err != nil {
			return err
		}
	}
	return p.ex.check()
}

// runFoldParallel is run with the join on workers (feedParallel) and the
// rows dealt by key to fold workers.
func (n *groupNode) runFoldParallel(ex *executor, seed row, workers int, emit func(row) bool) error {
	if b, ok := n.input.(*bgpNode); ok && b.prune != nil {
		b.prune = b.prune.fresh() // each run of the GROUP BY has its own groups
	}
	groupFoldRuns.Add(1)
	width := len(seed)
	groupBytes := n.groupBytes()
	parts := make([]*foldPart, workers)
	for k := range parts {
		wex := ex.workerExecutor(workers + 1 + k) // 0..workers are the join's
		aggs, err := n.compileFoldAggs(wex)
		if err != nil {
			return err
		}
		parts[k] = &foldPart{ex: wex, aggs: aggs, acct: wex.account("GROUP BY"), byID: map[kb.ID]*groupState{},
			byKey: map[string]*groupState{}, keyIDs: make([]kb.ID, len(n.keys)), errSeq: -1}
	}
	defer func() {
		for _, p := range parts {
			p.acct.done()
		}
	}()
	inbox := make([]chan foldRows, workers)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for k, p := range parts {
		inbox[k] = make(chan foldRows, foldAhead)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				// A panic here would end the process, not the request.
				if r := recover(); r != nil {
					p.err, p.errSeq = fmt.Errorf("%w: in a parallel GROUP BY fold: %v", ErrInternal, r), -1
					failed.Store(true)
					for range inbox[k] {
					}
				}
			}()
			for b := range inbox[k] {
				if p.err != nil {
					continue // drain: the dealer stops at its next row
				}
				for i, seq := range b.seq {
					if err := p.visit(n, row(b.ids[i*width:(i+1)*width:(i+1)*width]), seq, groupBytes); err != nil {
						p.err, p.errSeq = err, seq
						failed.Store(true)
						break
					}
				}
			}
		}()
	}

	batches := make([]foldRows, workers)
	var seq int64
	send := func(k int) {
		inbox[k] <- batches[k]
		batches[k] = foldRows{}
	}
	feedErr := n.feedParallel(ex, seed, workers, func(r row) error {
		if failed.Load() {
			return errStop
		}
		var h uint64
		for _, k := range n.keys {
			h = h*0x9e3779b97f4a7c15 + uint64(r[k.varSlot])
		}
		k := int(h % uint64(workers))
		b := &batches[k]
		if b.ids == nil {
			b.ids = make([]kb.ID, 0, foldBatch*width)
			b.seq = make([]int64, 0, foldBatch)
		}
		b.ids = append(b.ids, r[:width]...)
		b.seq = append(b.seq, seq)
		seq++
		if len(b.seq) == foldBatch {
			send(k)
		}
		return ex.check()
	})
	for k := range batches {
		if len(batches[k].seq) > 0 && !failed.Load() {
			send(k)
		}
		close(inbox[k])
	}
	wg.Wait()

	// The error of the earliest row, as the serial fold would meet it.
	var first error
	firstSeq := int64(-1)
	for _, p := range parts {
		if p.err != nil && (first == nil || p.errSeq < firstSeq) {
			first, firstSeq = p.err, p.errSeq // a panic's -1 first
		}
	}
	if first != nil {
		return first
	}
	if feedErr != nil {
		return feedErr
	}
	var order []*groupState
	for _, p := range parts {
		order = append(order, p.order...)
	}
	slices.SortFunc(order, func(a, b *groupState) int { return cmp.Compare(a.first, b.first) })
	acct := ex.account("GROUP BY")
	defer acct.done()
	return n.emitGroups(ex, seed, order, acct, emit)
}
