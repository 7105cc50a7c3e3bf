package eval

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// GROUP BY over a join on several workers. The joins below a GROUP BY of
// code-region type over every wtime metric were two thirds of its CPU: a
// store lookup per pattern per row, on one core. Here one goroutine scans
// the BGP's first pattern and deals its matches, in blocks of
// groupJoinBlock in scan order, to workers; each worker matches the other
// patterns for its blocks with its own compiled copy of the BGP, and the
// query's goroutine folds the blocks' rows into the groups in block order.
// The groups therefore see the same rows in the same order as the serial
// evaluation: sums of doubles round the same way, SAMPLE, GROUP_CONCAT and
// the first expression error are the same, and the groups come out in the
// same order. Only the joins run in parallel; the fold stays on the
// query's goroutine, which also keeps its budget account and yields.
//
// A worker hands its block's rows to the fold in chunks of
// groupJoinChunk through a channel of groupJoinAhead chunks, and waits
// when the fold has not reached its block yet: a block whose first-pattern
// matches fan out widely (a cross join) then holds at most that many
// chunks, as the serial evaluation streams its rows, rather than all of
// them. Chunks waiting to be folded are charged to the query's memory
// budget. A worker never waits on a later block's fold: blocks are taken
// from the work channel in scan order, so the block the fold waits for is
// always held by a running worker.

// groupJoinBlock is how many first-pattern matches make one block. A
// variable so that tests deal many blocks.
var groupJoinBlock = 512

// groupJoinMin is the fewest first-pattern matches (by the store's
// count) for which the join is dealt out. A variable for tests.
var groupJoinMin = 4096.0

// groupJoinWorkers, when positive, replaces ex.workers() (tests).
var groupJoinWorkers = 0

// groupJoinRuns counts the GROUP BYs whose join ran on workers (tests).
var groupJoinRuns atomic.Int64

// groupJoinAhead is how many blocks, per worker, may be dealt ahead of
// the fold, and how many chunks of rows a block may hold.
const groupJoinAhead = 4

// groupJoinChunk is how many rows a worker hands to the fold at once. A
// variable for tests.
var groupJoinChunk = 256

// groupJoinOn turns the parallel join off (tests compare with it off).
var groupJoinOn = true

// groupJoinSource is what a groupNode keeps to compile its input again
// for the workers.
type groupJoinSource struct {
	op *algebra.BGP
	sc scope
}

// parallelJoin returns how many workers should match n's input, 1 for
// the serial evaluation: the input must be a BGP of at least two patterns
// whose first pattern matches at least groupJoinMin quads, over a store
// that the query's goroutine does not hand the whole BGP to.
func (n *groupNode) parallelJoin(ex *executor, seed row) int {
	workers := ex.workers()
	if groupJoinWorkers > 0 {
		workers = groupJoinWorkers
	}
	b, ok := n.input.(*bgpNode)
	if !groupJoinOn || workers < 2 || !ok || n.src.op == nil || len(b.pats) < 2 || b.missing != "" ||
		b.pats[0].base < groupJoinMin || ex.dict.table == nil {
		return 1
	}
	if _, pushed := ex.ds.(kb.BGPMatcher); pushed {
		return 1
	}
	for _, p := range b.pats[0].pos {
		if p.slot >= 0 && p.slot < len(seed) && seed[p.slot] != 0 {
			return 1 // the seed binds the first pattern: few matches
		}
	}
	return workers
}

// joinBlock is one block of first-pattern matches and the channel its
// worker sends its rows through, closed when the block is done (err set
// before).
type joinBlock struct {
	quads []kb.Quad
	rows  chan rowChunk
	err   error
}

// rowChunk is a worker's chunk of rows, one after another in one slice
// of width IDs each (one allocation per chunk, not per row, and buffers
// go back to the workers through free), and the bytes charged for them.
type rowChunk struct {
	ids   []kb.ID
	n     int // rows
	width int
	bytes int64
}

// newJoinBlock returns an empty block.
func newJoinBlock() *joinBlock {
	return &joinBlock{rows: make(chan rowChunk, groupJoinAhead)}
}

// feed runs n's input and calls each with its rows: on workers where
// parallelJoin says so, else serially.
func (n *groupNode) feed(ex *executor, seed row, each func(row) error) error {
	if b, ok := n.input.(*bgpNode); ok && b.prune != nil {
		b.prune = b.prune.fresh() // each run of the GROUP BY has its own groups
	}
	if w := n.parallelJoin(ex, seed); w > 1 {
		return n.feedParallel(ex, seed, w, each)
	}
	return runInner(ex, n.input, seed, each)
}

// feedParallel evaluates the input BGP on workers and calls each with
// its rows in the serial order.
func (n *groupNode) feedParallel(ex *executor, seed row, workers int, each func(row) error) error {
	groupJoinRuns.Add(1)
	main := n.input.(*bgpNode)
	compile := func(wex *executor) (*bgpNode, error) {
		nd, err := wex.compileBGP(n.src.op, n.src.sc)
		if err != nil {
			return nil, err
		}
		b, ok := nd.(*bgpNode)
		if !ok || len(b.pats) != len(main.pats) {
			return nil, fmt.Errorf("%w: a GROUP BY worker compiled its BGP differently", ErrInternal)
		}
		b.borrow = true // matchBlock copies each row into its chunk
		b.exists = main.exists
		b.prune = main.prune.fresh() // each worker skips what it gave (groupprune.go)
		return b, nil
	}
	pex := ex.workerExecutor(workers)
	scan, err := compile(pex)
	if err != nil {
		return err
	}
	nodes := make([]*bgpNode, workers)
	wexs := make([]*executor, workers)
	for k := range nodes {
		wexs[k] = ex.workerExecutor(k)
		if nodes[k], err = compile(wexs[k]); err != nil {
			return err
		}
	}

	var stop atomic.Bool
	// Chunk buffers the fold is done with, for the workers to fill again.
	free := make(chan []kb.ID, workers*groupJoinAhead)
	work := make(chan *joinBlock, workers)
	order := make(chan *joinBlock, workers*groupJoinAhead)
	var wg sync.WaitGroup
	for k := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for blk := range work {
				n.matchBlock(wexs[k], nodes[k], seed, blk, &stop, free)
				close(blk.rows)
			}
		}()
	}

	// The producer scans the first pattern on its own executor and deals
	// the blocks; its errors come after every block it dealt.
	var scanErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(work)
		defer func() {
			if r := recover(); r != nil {
				scanErr = fmt.Errorf("%w: in a parallel GROUP BY scan: %v", ErrInternal, r)
			}
		}()
		cur := newJoinBlock()
		deal := func() bool {
			if stop.Load() {
				return false
			}
			order <- cur
			work <- cur
			cur = newJoinBlock()
			return true
		}
		scan.split = func(q kb.Quad) error {
			cur.quads = append(cur.quads, q)
			if len(cur.quads) == groupJoinBlock && !deal() {
				return errStop
			}
			return pex.check()
		}
		err := scan.run(pex, seed, func(row) bool { return true })
		if err == nil && len(cur.quads) > 0 {
			deal()
		}
		if err != errStop {
			scanErr = err
		}
	}()

	// The fold, in block order. After an error it goes on draining what
	// was dealt, so no worker stays blocked on a send.
	var foldErr error
	for blk := range order {
		for ch := range blk.rows {
			w := ch.width
			for i := 0; i < ch.n && foldErr == nil; i++ {
				foldErr = each(row(ch.ids[i*w : (i+1)*w : (i+1)*w]))
			}
			ex.mem.release(ch.bytes)
			select {
			case free <- ch.ids[:0]:
			default:
			}
			if foldErr != nil {
				stop.Store(true) // the producer deals no more
			}
		}
		if foldErr == nil && blk.err != nil {
			foldErr = blk.err
			stop.Store(true)
		}
	}
	wg.Wait()
	// The explain counts of the workers' copies, on the node explain shows.
	main.runs++
	for _, b := range append(nodes, scan) {
		main.actual += b.actual
		for i, c := range b.rows {
			main.rows[i] += c
		}
	}
	if foldErr != nil {
		return foldErr
	}
	if scanErr != nil {
		return scanErr
	}
	return ctxErr(ex.ctx)
}

// matchBlock matches the BGP's other patterns for each first-pattern
// match of blk and sends the rows to the fold in chunks, each charged to
// the query's budget before it is sent (the fold releases it).
func (n *groupNode) matchBlock(wex *executor, b *bgpNode, seed row, blk *joinBlock, stop *atomic.Bool, free chan []kb.ID) {
	var chunk []kb.ID
	rows, width := 0, len(seed)
	defer func() {
		if r := recover(); r != nil {
			blk.err = fmt.Errorf("%w: in a parallel GROUP BY worker: %v", ErrInternal, r)
			return
		}
		if rows > 0 && blk.err == nil {
			blk.err = sendChunk(wex, blk, chunk, rows, width)
		}
	}()
	if stop.Load() {
		return
	}
	emit := func(r row) bool {
		b.actual++
		if chunk == nil {
			select {
			case chunk = <-free:
			default:
				chunk = make([]kb.ID, 0, groupJoinChunk*width)
			}
		}
		chunk = append(chunk, r[:width]...)
		rows++
		if rows == groupJoinChunk {
			if blk.err = sendChunk(wex, blk, chunk, rows, width); blk.err != nil {
				return false
			}
			chunk, rows = nil, 0
		}
		return true
	}
	ok, err := wex.filterRow(b.filters[0], seed)
	if err != nil || !ok {
		blk.err = err
		return
	}
	r := seed.clone(len(seed))
	f := matchFrame{n: b, ex: wex, level: 0, r: r, emit: emit, p: &b.pats[0]}
	for i, q := range f.p.pos {
		if q.slot < 0 {
			f.ids[i] = q.id
		} else {
			f.ids[i] = r[q.slot]
		}
	}
	for _, q := range blk.quads {
		if err := f.visit(q); err != nil {
			if err != errStop && blk.err == nil {
				blk.err = err
			}
			return
		}
		if blk.err != nil || stop.Load() {
			return
		}
	}
}

// sendChunk charges chunk to the query's budget (one lock of the budget
// per chunk: per row it cost more than the row) and hands it to the fold,
// waiting while the block already holds groupJoinAhead chunks.
func sendChunk(wex *executor, blk *joinBlock, chunk []kb.ID, rows, width int) error {
	bytes := int64(rows) * (int64(width)*8 + 24 + allocExtra)
	if err := wex.mem.charge(bytes, "GROUP BY"); err != nil {
		return err
	}
	blk.rows <- rowChunk{ids: chunk, n: rows, width: width, bytes: bytes}
	return nil
}
