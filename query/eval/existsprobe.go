package eval

import (
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// EXISTS / NOT EXISTS over one triple pattern (`FILTER NOT EXISTS
// { ?parent q ?root }`) asks the store one question per row: does any
// quad match the pattern with the row's bindings substituted? Run as a
// BGP it cloned the row, wrapped the callback for explain counts and set
// up a match frame each time (a quarter of the workload's path count).
// existsProbe asks the store directly and stops at the first match.

// existsProbe answers an EXISTS whose pattern is one triple pattern
// without filters, over the default graph or a constant graph.
type existsProbe struct {
	n *bgpNode
}

// newExistsProbe returns the probe for pattern, or nil when pattern is
// not of that shape (a variable twice in the triple, a value-order read,
// a graph variable, filters).
func newExistsProbe(pattern node) *existsProbe {
	n, ok := pattern.(*bgpNode)
	if !ok || !existsProbeOn || len(n.pats) != 1 || n.missing != "" || n.pats[0].rng != nil {
		return nil
	}
	if n.graph.kind != gDefault && n.graph.kind != gConst {
		return nil
	}
	for _, fs := range n.filters {
		if len(fs) > 0 {
			return nil
		}
	}
	pos := n.pats[0].pos
	for i := range pos {
		for j := i + 1; j < len(pos); j++ {
			if pos[i].slot >= 0 && pos[i].slot == pos[j].slot {
				return nil
			}
		}
	}
	existsProbes.Add(1)
	return &existsProbe{n: n}
}

// existsProbeOn turns the probe off (tests compare against the BGP).
var existsProbeOn = true

// existsProbes counts the probes built, one per EXISTS compiled (tests).
var existsProbes atomic.Int64

// found reports whether the pattern matches with r's bindings.
func (pr *existsProbe) found(ex *executor, r row) (bool, error) {
	n := pr.n
	var ids [3]kb.ID
	for i, q := range n.pats[0].pos {
		switch {
		case q.slot < 0:
			ids[i] = q.id
		case q.slot < len(r):
			ids[i] = r[q.slot]
		}
		if isTemp(ids[i]) {
			return false, nil // a computed term the store does not hold
		}
	}
	graphs, _ := n.graphsFor(ex, r)
	skipHidden := n.graph.kind == gDefault && ex.hidden != nil
	pat := kb.Pattern{S: ids[0], P: ids[1], O: ids[2]}
	if ex.source == nil && ex.scanner != nil {
		st := probeScans.Get().(*probeScan)
		defer probeScans.Put(st)
		st.hit, st.hidden = false, nil
		if skipHidden {
			st.hidden = ex.hidden
		}
		for _, g := range graphs {
			if isTemp(g) {
				continue
			}
			pat.G = g
			err := ex.scanner.ScanQuads(ex.ctx, pat, st.fn)
			if st.hit || err != nil {
				return st.hit, err
			}
		}
		return false, ex.check()
	}
	for _, g := range graphs {
		if isTemp(g) {
			continue
		}
		pat.G = g
		err := ex.scan(pat, func(q kb.Quad) error {
			if skipHidden && ex.hidden[q.G] {
				return nil // perfkb's bookkeeping is not part of the union default graph
			}
			return errFound
		})
		if err == errFound {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	return false, ex.check()
}

// probeScan is a ScanQuads callback that stops at the first quad outside
// the hidden graphs, built once and pooled so that a probe allocates
// nothing.
type probeScan struct {
	hit    bool
	hidden map[kb.ID]bool
	fn     func(kb.Quad) bool
}

var probeScans = sync.Pool{New: func() any {
	st := &probeScan{}
	st.fn = func(q kb.Quad) bool {
		if st.hidden[q.G] {
			return true // perfkb's bookkeeping is not part of the union default graph
		}
		st.hit = true
		return false
	}
	return st
}}

// existsScan is countJoinNode.exists for one triple pattern through the
// store's QuadScanner with a pooled callback: the iterator and the
// callback that scanMatch allocates per key were a sixth of an EXISTS
// chain count (040). done is false without a scanner.
func (n *countJoinNode) existsScan(ex *executor, op *cjOp, pat [3]kb.ID, cur *cjCursors) (done, found bool, err error) {
	if ex.source != nil || ex.scanner == nil || !existsScanOn {
		return false, false, nil
	}
	scanner := cur.of(op, ex.scanner)
	if countExistsScans {
		existsScans.Add(1)
	}
	st := cjScans.Get().(*cjScan)
	defer cjScans.Put(st)
	for _, g := range n.graphs {
		st.n, st.ex, st.op, st.cur, st.hit, st.err, st.only = n, ex, op, cur, false, nil, kb.Any
		p := kb.Pattern{S: pat[0], P: pat[1], O: pat[2], G: g}
		wide, err := cur.wide(ex, op, g)
		if err != nil {
			return true, false, err
		}
		if wide {
			p.G, st.only = kb.Any, g
		}
		err = scanner.ScanQuads(ex.ctx, p, st.fn)
		hit, inner := st.hit, st.err
		st.n, st.ex, st.op, st.cur = nil, nil, nil, nil
		if inner != nil {
			return true, false, inner
		}
		if hit || err != nil {
			return true, hit, err
		}
	}
	return true, false, nil
}

// cjScan is the ScanQuads callback of existsScan with what it reads,
// built once and pooled. Its subsHold may probe again (a nested join):
// that probe takes another cjScan from the pool.
type cjScan struct {
	n   *countJoinNode
	ex  *executor
	op  *cjOp
	cur *cjCursors
	// only: the graph a quad must be in (kb.Any: any), when the lookup
	// left the graph unbound (cjCursors.wide).
	only kb.ID
	hit  bool
	err  error
	fn   func(kb.Quad) bool
}

// existsScanOn turns existsScan off; with countExistsScans set,
// existsScans counts its probes (tests).
var (
	existsScanOn     = true
	countExistsScans bool
	existsScans      atomic.Int64
)

// cjScans is filled in init: its callback reaches existsScan again.
var cjScans sync.Pool

func init() { cjScans.New = newCJScan }

func newCJScan() any {
	st := &cjScan{}
	st.fn = func(q kb.Quad) bool {
		if st.n.dedupe && st.ex.hidden[q.G] || st.only != kb.Any && q.G != st.only {
			return true
		}
		if len(st.op.subs) > 0 {
			ids := [3]kb.ID{q.S, q.P, q.O}
			ok, err := st.n.subsHold(st.ex, st.op, ids[st.op.other], st.cur)
			if err != nil {
				st.err = err
				return false
			}
			if !ok {
				return true
			}
		}
		st.hit = true
		return false
	}
	return st
}

// cjCursors gives each triple pattern of a counted join's part its own
// lookup cursor of the store (see cursorStore), for a run of lookups by
// one goroutine: a pattern's keys mostly ascend (the values a part is
// decided at are sorted, and a chain's next link reaches IDs interned
// in about the same order), and a lookup that resumes from the last one
// gallops over nearby keys where a fresh one binary-searches the whole
// range. Patterns sharing one cursor would reset it at every turn.
type cjCursors struct {
	cs    cursorStore
	per   map[*cjOp]kb.QuadScanner
	wides map[cjWideKey]bool
}

// cjWideKey names wide's answer for one pattern and graph.
type cjWideKey struct {
	op *cjOp
	g  kb.ID
}

// wide reports whether op's lookups in graph g should leave the graph
// unbound and keep the quads of g only: with the graph bound a lookup
// searches the graph's index (G-S-P-O: all of the graph's quads, the
// whole store when one graph holds the data), with it unbound the
// subject's or object's own range (S-P-O-G, O-S-P-G), reached in two
// array reads. Only when g holds at least half of the predicate's quads,
// so that the quads of other graphs skipped cost no more than those
// kept. False on nil c.
func (c *cjCursors) wide(ex *executor, op *cjOp, g kb.ID) (bool, error) {
	if c == nil || g == kb.Any || op.pat[1] == kb.Any || !cjWideOn {
		return false, nil
	}
	k := cjWideKey{op, g}
	if w, ok := c.wides[k]; ok {
		return w, nil
	}
	in, err := ex.ds.Count(ex.ctx, kb.Pattern{P: op.pat[1], G: g}, false)
	if err != nil {
		return false, err
	}
	all, err := ex.ds.Count(ex.ctx, kb.Pattern{P: op.pat[1]}, false)
	if err != nil {
		return false, err
	}
	w := in > 0 && in*2 >= all
	c.wides[k] = w
	return w, nil
}

// cjWideOn lets wide leave a lookup's graph unbound; tests turn it off
// to compare.
var cjWideOn = true

// newCJCursors returns the cursors of one run of lookups, or nil when the
// store has none.
func newCJCursors(ex *executor) *cjCursors {
	cs, ok := ex.ds.(cursorStore)
	if !ok || noCursors || ex.source != nil {
		return nil
	}
	return &cjCursors{cs: cs, per: map[*cjOp]kb.QuadScanner{}, wides: map[cjWideKey]bool{}}
}

// of returns op's cursor, or def on nil c.
func (c *cjCursors) of(op *cjOp, def kb.QuadScanner) kb.QuadScanner {
	if c == nil {
		return def
	}
	s, ok := c.per[op]
	if !ok {
		s = c.cs.NewScanCursor()
		c.per[op] = s
	}
	return s
}
