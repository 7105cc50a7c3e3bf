package eval

import (
	"container/heap"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// tpos is one position of a compiled triple pattern: a constant ID or a
// variable slot (slot >= 0).
type tpos struct {
	id   kb.ID
	slot int
}

type bgpPattern struct {
	pos  [3]tpos
	star bool                  // another pattern of the BGP has the same subject
	src  algebra.TriplePattern // formatted only for explain
	base float64               // store count for the constant positions
	est  float64               // estimated rows per input row at this point of the order
}

// pendingFilter is a FILTER over a BGP, to be pushed into the join order.
type pendingFilter struct {
	exprs []cexpr
	src   []algebra.Expr
}

// bgpNode matches a basic graph pattern by index nested loops in the order
// chosen from store statistics, applying each pushed-down filter as soon as
// its variables are bound.
type bgpNode struct {
	nodeInfo
	pats    []bgpPattern
	filters [][]cexpr        // filters[i] run after i patterns are matched
	fsrc    [][]algebra.Expr // filters[i]'s source, formatted only for explain
	graph   graphRef
	rows    []int64        // rows past each pattern (explain)
	dedupe  []tripleDedupe // per-level duplicate filters, reused
	indexes []map[uint8]*probeIndex
	probes  []int
	subject []subjectQuads // per level: the quads of one subject (star joins)
	missing string         // a constant the store does not know: no solutions
	memory  int8           // 0: not asked yet; 1: ex.ds has MemoryLookups; -1: not
	scans   []*scanState   // per level: the ScanQuads callback and its frame
}

// scanState is the callback a level passes to QuadScanner.ScanQuads with
// the frame it visits: built once per level and reused, so a probe
// allocates nothing (a closure over a heap copy of the frame per probe
// was a third of the CPU of a selective star join). A level is never
// scanning twice at once, except through re-entry (busy), which gets a
// fresh state.
type scanState struct {
	f     matchFrame
	inner error
	busy  bool
	fn    func(kb.Quad) bool
}

func (n *bgpNode) scanState(level int) *scanState {
	if n.scans == nil {
		n.scans = make([]*scanState, len(n.pats))
	}
	st := n.scans[level]
	if st == nil || st.busy {
		st = &scanState{}
		st.fn = func(q kb.Quad) bool {
			st.inner = st.f.visit(q)
			return st.inner == nil && !(st.f.onlyOne && st.f.matched)
		}
		if n.scans[level] == nil {
			n.scans[level] = st
		}
	}
	return st
}

// memoryLookups reports whether ex.ds has cheap lookups (see
// MemoryLookups), asking the store once per node.
func (n *bgpNode) memoryLookups(ex *executor) bool {
	if n.memory == 0 {
		n.memory = -1
		if m, ok := ex.ds.(kb.MemoryLookups); ok && m.MemoryLookups() {
			n.memory = 1
		}
	}
	return n.memory > 0
}

func (ex *executor) compileBGP(triples []algebra.TriplePattern, pf *pendingFilter, sc scope) (node, error) {
	n := &bgpNode{graph: sc.graph}
	pats := make([]bgpPattern, 0, len(triples))
	for _, tp := range triples {
		var p bgpPattern
		for i, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
			if nd.IsVar() {
				p.pos[i] = tpos{slot: ex.vars.slot(nd.Var)}
				continue
			}
			id, ok, err := ex.dict.lookup(nd.Term)
			if err != nil {
				return nil, err
			}
			if !ok {
				n.missing = nd.Term.String()
			}
			p.pos[i] = tpos{id: id, slot: -1}
		}
		p.src = tp
		pats = append(pats, p)
	}
	if n.missing == "" {
		for i := range pats {
			if i&255 == 255 {
				if err := ctxErr(ex.ctx); err != nil {
					return nil, err
				}
			}
			c, err := ex.estimate(pats[i], sc.graph)
			if err != nil {
				return nil, err
			}
			pats[i].base = c
		}
	}
	if err := ctxErr(ex.ctx); err != nil {
		return nil, err // estimating a large BGP takes a while
	}
	var err error
	if n.pats, err = ex.orderPatterns(pats, sc.seed); err != nil {
		return nil, err
	}
	// Rows after each pattern: the fan-out estimate, capped by what a
	// (mostly functional) join can produce.
	n.est = 1
	for _, p := range n.pats {
		n.est = min(n.est*p.est, max(n.est, p.base))
	}
	if n.missing != "" {
		n.est = 0
	}
	markStars(n.pats)
	n.rows = make([]int64, len(n.pats))
	n.dedupe = make([]tripleDedupe, len(n.pats))
	n.filters = make([][]cexpr, len(n.pats)+1)
	n.fsrc = make([][]algebra.Expr, len(n.pats)+1)
	if pf != nil {
		bgpVars := varSet{}
		boundAfter := make([]varSet, len(n.pats)+1)
		boundAfter[0] = varSet{}
		for i, p := range n.pats {
			next := boundAfter[i].union(varSet{})
			for _, q := range p.pos {
				if q.slot >= 0 {
					next[q.slot] = true
					bgpVars[q.slot] = true
				}
			}
			boundAfter[i+1] = next
		}
		for i, e := range pf.exprs {
			vs := varSet{}
			ex.exprVars(pf.src[i], vs)
			need := vs.intersect(bgpVars)
			level := len(n.pats)
			for l := 0; l <= len(n.pats); l++ {
				if need.subsetOf(boundAfter[l]) {
					level = l
					break
				}
			}
			n.filters[level] = append(n.filters[level], e)
			n.fsrc[level] = append(n.fsrc[level], pf.src[i])
		}
	}
	return n, nil
}

// estimate asks the store how many quads match the constant positions.
func (ex *executor) estimate(p bgpPattern, g graphRef) (float64, error) {
	pat := kb.Pattern{S: p.pos[0].id, P: p.pos[1].id, O: p.pos[2].id}
	graphs := []kb.ID{kb.Any}
	switch {
	case g.kind == gConst:
		graphs = []kb.ID{g.id}
	case g.kind == gDefault && !ex.unionAll:
		graphs = ex.defaults
	}
	total := 0.0
	for _, gid := range graphs {
		pat.G = gid
		c, err := ex.ds.Count(ex.ctx, pat, false)
		if err != nil {
			return 0, err
		}
		total += float64(c)
	}
	return total, nil
}

// orderPatterns orders the patterns greedily: next is the cheapest pattern
// given the variables bound so far, preferring connected patterns.
// Past maxExactOrder patterns it switches to largeOrder, the same greedy
// choice in O(n log n), and it stops when the query's context ends.
func (ex *executor) orderPatterns(pats []bgpPattern, seed varSet) ([]bgpPattern, error) {
	if len(pats) > maxExactOrder {
		return ex.largeOrder(pats, seed)
	}
	if ps, ok := ex.ds.(kb.PredicateStats); ok && len(pats) > 1 && len(pats) <= maxSearchOrder {
		if out, ok := statsOrder(pats, seed, ps); ok {
			return out, nil
		}
	}
	bound, nbound := boundSlots(pats, seed)
	out := make([]bgpPattern, 0, len(pats))
	used := make([]bool, len(pats))
	for len(out) < len(pats) {
		best, bestCost := -1, 0.0
		for i := range pats {
			if used[i] {
				continue
			}
			if cost := patternCost(&pats[i], bound, nbound); best < 0 || cost < bestCost {
				best, bestCost = i, cost
			}
		}
		used[best] = true
		p := pats[best]
		p.est = bestCost
		if p.est >= 1e6 {
			p.est = p.base
		}
		for _, q := range p.pos {
			if q.slot >= 0 && !bound[q.slot] {
				bound[q.slot] = true
				nbound++
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// maxSearchOrder is the largest BGP statsOrder plans by trying every
// pattern as the start (cubic in the patterns).
const maxSearchOrder = 12

// statsOrder orders pats with per-predicate statistics: from each
// possible start it extends greedily by the smallest estimated fan-out
// (rows per input row, connected patterns first) and keeps the order
// with the fewest estimated rows visited and probes made. A greedy
// choice of the cheapest first pattern alone starts a GROUP BY over
// code-region types from the 1,140 hasCrType triples and fans out to
// 206,000 metrics before filtering on the metric name; starting from the
// 29,000 "wtime" metrics does a quarter of the lookups. It reports false
// when a pattern's predicate is not a constant the statistics know, so
// the caller falls back to patternCost.
func statsOrder(pats []bgpPattern, seed varSet, ps kb.PredicateStats) ([]bgpPattern, bool) {
	shapes := make([][2]float64, len(pats))
	for i, p := range pats {
		if p.pos[1].slot >= 0 {
			return nil, false
		}
		if p.base == 0 {
			continue // matches nothing: any fan-out is 0
		}
		s, o, ok := ps.PredicateDistinct(p.pos[1].id)
		if !ok {
			return nil, false
		}
		shapes[i] = [2]float64{float64(s), float64(o)}
	}
	bound0, _ := boundSlots(pats, seed)
	bound := make([]bool, len(bound0))
	used := make([]bool, len(pats))
	order := make([]int, 0, len(pats))
	fans := make([]float64, len(pats))
	var best []int
	var bestFans []float64
	bestCost := 0.0
	for start := range pats {
		copy(bound, bound0)
		clear(used)
		order = order[:0]
		rows, cost := 1.0, 0.0
		for len(order) < len(pats) {
			next, nextFan, nextConn := -1, 0.0, false
			for i := range pats {
				if used[i] {
					continue
				}
				if len(order) == 0 && i != start {
					continue
				}
				fan, conn := statsFanOut(&pats[i], shapes[i], bound)
				if next < 0 || conn && !nextConn || conn == nextConn && fan < nextFan {
					next, nextFan, nextConn = i, fan, conn
				}
			}
			used[next] = true
			order = append(order, next)
			fans[next] = nextFan
			// A probe per input row, a visit per output row.
			cost += rows
			rows *= nextFan
			cost += rows
			for _, q := range pats[next].pos {
				if q.slot >= 0 {
					bound[q.slot] = true
				}
			}
		}
		if best == nil || cost < bestCost {
			best, bestCost = append(best[:0], order...), cost
			bestFans = append(bestFans[:0], fans...)
		}
	}
	out := make([]bgpPattern, len(pats))
	for k, i := range best {
		out[k] = pats[i]
		out[k].est = bestFans[i]
	}
	return out, true
}

// statsFanOut estimates p's rows per input row given the bound variables,
// and whether p shares a bound variable. shape holds the distinct
// subjects and objects of p's predicate; p.base already counts p's
// constants. A bound subject selects base/subjects of the quads, a bound
// object base/objects: `?m hasMetricName "wtime"` with ?m bound keeps
// 29,438 / 206,197 of the rows.
func statsFanOut(p *bgpPattern, shape [2]float64, bound []bool) (float64, bool) {
	if p.base == 0 {
		return 0, true
	}
	fan := p.base
	conn, hasVar := false, false
	for k, q := range p.pos {
		if q.slot < 0 {
			continue
		}
		hasVar = true
		if !bound[q.slot] {
			continue
		}
		conn = true
		switch k {
		case 0:
			fan /= max(shape[0], 1)
		case 2:
			fan /= max(shape[1], 1)
		}
	}
	if !hasVar {
		fan, conn = min(fan, 1), true // a check, not a join
	}
	return fan, conn
}

// boundSlots returns, indexed by slot, which variables of pats the seed
// binds, and how many.
func boundSlots(pats []bgpPattern, seed varSet) ([]bool, int) {
	nslots := 0
	for _, p := range pats {
		for _, q := range p.pos {
			nslots = max(nslots, q.slot+1)
		}
	}
	for v := range seed {
		nslots = max(nslots, v+1)
	}
	bound := make([]bool, nslots)
	nbound := 0
	for v := range seed {
		if !bound[v] {
			bound[v] = true
			nbound++
		}
	}
	return bound, nbound
}

// maxExactOrder is the largest BGP orderPatterns orders by rescanning
// every remaining pattern at each step (quadratic: a 30,000-step sequence
// path took 18 s of planning that way).
const maxExactOrder = 64

// patternCost is orderPatterns' cost of p given the bound variables
// (nbound of them).
func patternCost(p *bgpPattern, bound []bool, nbound int) float64 {
	cost := p.base
	connected, hasVar := false, false
	for k, q := range p.pos {
		if q.slot < 0 {
			continue
		}
		hasVar = true
		if bound[q.slot] {
			connected = true
			switch k {
			case 0:
				cost *= 0.01
			case 1:
				cost *= 0.5
			default:
				cost *= 0.05
			}
		}
	}
	if cost < 1 && p.base > 0 {
		cost = 1
	}
	if hasVar && !connected && nbound > 0 {
		cost = cost*1e6 + 1e6
	}
	return cost
}

// largeOrder is orderPatterns' greedy choice for large BGPs: a heap of
// candidate costs, refreshed only for the patterns that share a variable
// just bound, and checked again when popped (a pattern's cost only
// changes when one of its variables becomes bound, or when the first
// binding makes unconnected patterns expensive).
func (ex *executor) largeOrder(pats []bgpPattern, seed varSet) ([]bgpPattern, error) {
	bound, nbound := boundSlots(pats, seed)
	uses := make([][]int, len(bound)) // variable slot -> patterns using it
	for i, p := range pats {
		for _, q := range p.pos {
			if q.slot >= 0 {
				uses[q.slot] = append(uses[q.slot], i)
			}
		}
	}
	h := &costHeap{}
	for i := range pats {
		h.items = append(h.items, costItem{patternCost(&pats[i], bound, nbound), i})
	}
	heap.Init(h)
	used := make([]bool, len(pats))
	out := make([]bgpPattern, 0, len(pats))
	for h.Len() > 0 {
		if len(out)&1023 == 1023 {
			if err := ctxErr(ex.ctx); err != nil {
				return nil, err
			}
		}
		it := heap.Pop(h).(costItem)
		if used[it.i] {
			continue
		}
		if c := patternCost(&pats[it.i], bound, nbound); c > it.cost {
			heap.Push(h, costItem{c, it.i}) // stale: got dearer
			continue
		} else {
			it.cost = c
		}
		used[it.i] = true
		p := pats[it.i]
		p.est = it.cost
		if p.est >= 1e6 {
			p.est = p.base
		}
		out = append(out, p)
		for _, q := range p.pos {
			if q.slot < 0 || bound[q.slot] {
				continue
			}
			bound[q.slot] = true
			nbound++
			for _, j := range uses[q.slot] {
				if !used[j] {
					heap.Push(h, costItem{patternCost(&pats[j], bound, nbound), j})
				}
			}
		}
	}
	return out, nil
}

type costItem struct {
	cost float64
	i    int
}

// costHeap is a min-heap of pattern costs, ties broken by position so the
// order is deterministic.
type costHeap struct{ items []costItem }

func (h *costHeap) Len() int { return len(h.items) }
func (h *costHeap) Less(a, b int) bool {
	x, y := h.items[a], h.items[b]
	return x.cost < y.cost || x.cost == y.cost && x.i < y.i
}
func (h *costHeap) Swap(a, b int) { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *costHeap) Push(x any)    { h.items = append(h.items, x.(costItem)) }
func (h *costHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

func (n *bgpNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if n.missing != "" {
		return nil
	}
	r := seed.clone(len(seed))
	ok, err := ex.filterRow(n.filters[0], r)
	if err != nil || !ok {
		return err
	}
	return n.match(ex, 0, r, emit)
}

func (n *bgpNode) graphsFor(ex *executor, r row) ([]kb.ID, bool) {
	switch n.graph.kind {
	case gConst:
		return []kb.ID{n.graph.id}, false
	case gSlot:
		return []kb.ID{r[n.graph.slot]}, false
	}
	if ex.unionAll {
		return anyGraph, ex.multi
	}
	return ex.defaults, len(ex.defaults) > 1
}

func (n *bgpNode) match(ex *executor, level int, r row, emit func(row) bool) error {
	if level == len(n.pats) {
		if !emit(r.clone(len(r))) {
			return errStop
		}
		return nil
	}
	f := matchFrame{n: n, ex: ex, level: level, r: r, emit: emit, p: &n.pats[level]}
	for i, q := range f.p.pos {
		if q.slot < 0 {
			f.ids[i] = q.id
		} else {
			f.ids[i] = r[q.slot]
		}
		if isTemp(f.ids[i]) {
			return nil // a computed term the store does not hold
		}
	}
	graphs, dedupe := n.graphsFor(ex, r)
	// With every position bound, one match is enough.
	f.onlyOne = f.ids[0] != 0 && f.ids[1] != 0 && f.ids[2] != 0
	if dedupe && !f.onlyOne {
		f.seen = &n.dedupe[level]
		f.seen.reset()
	}
	if quads, ok, err := n.probe(ex, level, f.ids, graphs); err != nil {
		return err
	} else if ok {
		for _, q := range quads {
			if err := f.visit(q); err != nil {
				return err
			}
			if f.onlyOne && f.matched {
				break
			}
		}
		return nil
	}
	for _, g := range graphs {
		if isTemp(g) {
			continue
		}
		pat := kb.Pattern{S: f.ids[0], P: f.ids[1], O: f.ids[2], G: g}
		if ex.source == nil && f.p.star && f.ids[0] != 0 && !(f.ids[1] != 0 && f.ids[2] != 0) && !n.memoryLookups(ex) {
			if quads, ok, err := n.subjectQuads(ex, level, f.ids[0], g); err != nil {
				return err
			} else if ok {
				for _, q := range quads {
					if !pat.Matches(q) {
						continue
					}
					if err := f.visit(q); err != nil {
						return err
					}
				}
				continue
			}
		}
		if ex.source != nil {
			if quads, ok := ex.source.MatchQuads(pat); ok {
				for _, q := range quads {
					if !pat.Matches(q) {
						continue
					}
					if err := f.visit(q); err != nil {
						return err
					}
					if f.onlyOne && f.matched {
						break
					}
				}
				if f.onlyOne && f.matched {
					break
				}
				continue
			}
		}
		if ex.scanner != nil {
			// The callback escapes: give it a heap copy of the frame so
			// that f itself stays on the stack for the other paths.
			st := n.scanState(level)
			st.f, st.inner, st.busy = f, nil, true
			err := ex.scanner.ScanQuads(ex.ctx, pat, st.fn)
			f.matched, st.busy = st.f.matched, false
			inner := st.inner
			st.f, st.inner = matchFrame{}, nil // keep no rows alive
			if inner != nil {
				return inner
			}
			if err != nil {
				return err
			}
			if f.onlyOne && f.matched {
				break
			}
			continue
		}
		it := ex.ds.Match(ex.ctx, pat)
		for it.Next() {
			if err := f.visit(it.Quad()); err != nil {
				it.Close()
				return err
			}
			if f.onlyOne && f.matched {
				break
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return err
		}
		if f.onlyOne && f.matched {
			// A ground triple found in one default graph is not repeated.
			break
		}
	}
	return nil
}

// matchFrame is the state of one level of bgpNode.match; a struct with a
// visit method rather than a closure, so it stays on the stack.
type matchFrame struct {
	n       *bgpNode
	ex      *executor
	level   int
	r       row
	emit    func(row) bool
	p       *bgpPattern
	ids     [3]kb.ID
	seen    *tripleDedupe
	onlyOne bool
	matched bool
}

// visit binds the pattern's free variables from q and descends.
func (f *matchFrame) visit(q kb.Quad) error {
	if err := f.ex.check(); err != nil {
		return err
	}
	if f.ex.hidden != nil && f.ex.hidden[q.G] && f.n.graph.kind == gDefault {
		return nil // perfkb's bookkeeping is not part of the union default graph
	}
	if f.seen != nil && f.seen.duplicate(q) {
		return nil
	}
	r := f.r
	vals := [3]kb.ID{q.S, q.P, q.O}
	var set [3]int
	nset := 0
	for i, pos := range f.p.pos {
		if pos.slot < 0 || f.ids[i] != 0 {
			continue
		}
		if cur := r[pos.slot]; cur != 0 {
			if cur != vals[i] { // repeated variable in the pattern
				for _, s := range set[:nset] {
					r[s] = 0
				}
				return nil
			}
			continue
		}
		r[pos.slot] = vals[i]
		set[nset] = pos.slot
		nset++
	}
	f.matched = true
	pass, err := f.ex.filterRow(f.n.filters[f.level+1], r)
	if err == nil && pass {
		f.n.rows[f.level]++
		err = f.n.match(f.ex, f.level+1, r, f.emit)
	}
	for _, s := range set[:nset] {
		r[s] = 0
	}
	return err
}

// Star joins: patterns that share a subject (?m name ?n ; value ?v) are
// answered from one fetch of the subject's quads, kept per level, instead
// of one store lookup per pattern. Only for stores without QuadSource,
// whose lookups cost more than filtering a few quads.
const maxSubjectQuads = 64

type subjectQuads struct {
	s, g   kb.ID
	valid  bool // quads holds every quad of s in g
	tooBig bool // s has more than maxSubjectQuads quads in g
	quads  []kb.Quad
}

// markStars flags the patterns whose subject (variable or constant) is
// the subject of another pattern of the BGP.
func markStars(pats []bgpPattern) {
	// Counted per subject in one pass: comparing every pair was quadratic
	// (minutes for a 30,000-step sequence path).
	type subject struct {
		isVar bool
		slot  int
		id    kb.ID
	}
	key := func(q tpos) subject {
		if q.slot >= 0 {
			return subject{isVar: true, slot: q.slot}
		}
		return subject{slot: -1, id: q.id}
	}
	n := make(map[subject]int, len(pats))
	for i := range pats {
		n[key(pats[i].pos[0])]++
	}
	for i := range pats {
		pats[i].star = n[key(pats[i].pos[0])] > 1
	}
}

// subjectQuads returns every quad with subject s in graph g (kb.Any for
// all), from the entry of this level or a shallower one when it holds s,
// else fetched into this level's entry. A shallower level's entry is not
// refilled while a deeper level runs, so the slice stays valid. ok is
// false when s has more than maxSubjectQuads quads.
func (n *bgpNode) subjectQuads(ex *executor, level int, s, g kb.ID) ([]kb.Quad, bool, error) {
	if n.subject == nil {
		n.subject = make([]subjectQuads, len(n.pats))
	}
	for j := level; j >= 0; j-- {
		if e := &n.subject[j]; e.s == s && e.g == g && (e.valid || e.tooBig) {
			return e.quads, e.valid, nil
		}
	}
	e := &n.subject[level]
	e.valid, e.tooBig, e.s, e.g, e.quads = false, false, s, g, e.quads[:0]
	it := ex.ds.Match(ex.ctx, kb.Pattern{S: s, G: g})
	defer it.Close()
	for it.Next() {
		if len(e.quads) == maxSubjectQuads {
			e.tooBig = true
			return nil, false, nil
		}
		e.quads = append(e.quads, it.Quad())
	}
	if err := it.Err(); err != nil {
		return nil, false, err
	}
	e.valid = true
	return e.quads, true, nil
}

// scan calls each with every quad matching p, through the store's
// QuadSource or QuadScanner when it has one. An error from each stops the
// scan and is returned.
func (ex *executor) scan(p kb.Pattern, each func(kb.Quad) error) error {
	if ex.source != nil {
		if quads, ok := ex.source.MatchQuads(p); ok {
			for _, q := range quads {
				if !p.Matches(q) {
					continue
				}
				if err := each(q); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if ex.scanner != nil {
		var inner error
		err := ex.scanner.ScanQuads(ex.ctx, p, func(q kb.Quad) bool {
			inner = each(q)
			return inner == nil
		})
		if inner != nil {
			return inner
		}
		return err
	}
	it := ex.ds.Match(ex.ctx, p)
	defer it.Close()
	for it.Next() {
		if err := each(it.Quad()); err != nil {
			return err
		}
	}
	return it.Err()
}

// Probe indexes: a pattern probed many times with some positions bound by
// earlier patterns is answered from a hash index built once from the
// store (the constant positions only), turning repeated index lookups into
// hash lookups, as a hash join would.
const (
	probesBeforeIndex = 64
	probeCostRatio    = 4
	maxIndexedQuads   = 1 << 19
)

type probeIndex struct {
	single int // the one keyed position, or -1
	one    map[kb.ID][]kb.Quad
	multi  map[[3]kb.ID][]kb.Quad
}

func (idx *probeIndex) lookup(mask uint8, ids [3]kb.ID) []kb.Quad {
	if idx.single >= 0 {
		return idx.one[ids[idx.single]]
	}
	var key [3]kb.ID
	for i := range key {
		if mask&(1<<i) != 0 {
			key[i] = ids[i]
		}
	}
	return idx.multi[key]
}

// probe returns the quads matching ids from a probe index when the level
// has one (building it when worthwhile); ok is false to use the store.
func (n *bgpNode) probe(ex *executor, level int, ids [3]kb.ID, graphs []kb.ID) ([]kb.Quad, bool, error) {
	if n.graph.kind == gSlot {
		return nil, false, nil
	}
	p := &n.pats[level]
	var mask uint8
	for i, pos := range p.pos {
		if pos.slot >= 0 && ids[i] != 0 {
			mask |= 1 << i
		}
	}
	if mask == 0 || p.base > maxIndexedQuads || ex.source != nil || n.memoryLookups(ex) {
		// A QuadSource answers bound lookups from its own indexes, and
		// so does a store with MemoryLookups.
		return nil, false, nil
	}
	if n.indexes == nil {
		n.indexes = make([]map[uint8]*probeIndex, len(n.pats))
		n.probes = make([]int, len(n.pats))
	}
	idx := n.indexes[level][mask]
	if idx == nil {
		n.probes[level]++
		// A store lookup costs about as much as indexing 4 quads: build
		// the index once the probes so far would have paid for it.
		if n.probes[level] < probesBeforeIndex || float64(n.probes[level])*probeCostRatio < p.base {
			return nil, false, nil
		}
		// The index is an optimisation: built only while the query's
		// memory budget has room for it (quads, slices, map entries).
		if !ex.mem.tryCharge(int64(p.base) * (32 + 8 + mapEntryExtra)) {
			return nil, false, nil
		}
		var err error
		if idx, err = n.buildIndex(ex, p, mask, graphs); err != nil {
			return nil, false, err
		}
		if n.indexes[level] == nil {
			n.indexes[level] = map[uint8]*probeIndex{}
		}
		n.indexes[level][mask] = idx
	}
	return idx.lookup(mask, ids), true, nil
}

func (n *bgpNode) buildIndex(ex *executor, p *bgpPattern, mask uint8, graphs []kb.ID) (*probeIndex, error) {
	idx := &probeIndex{single: -1}
	switch mask {
	case 1, 2, 4:
		idx.single = map[uint8]int{1: 0, 2: 1, 4: 2}[mask]
		idx.one = make(map[kb.ID][]kb.Quad, int(p.base))
	default:
		idx.multi = make(map[[3]kb.ID][]kb.Quad, int(p.base))
	}
	var pat kb.Pattern
	for i, pos := range p.pos {
		if pos.slot < 0 {
			switch i {
			case 0:
				pat.S = pos.id
			case 1:
				pat.P = pos.id
			default:
				pat.O = pos.id
			}
		}
	}
	for _, g := range graphs {
		pat.G = g
		it := ex.ds.Match(ex.ctx, pat)
		for it.Next() {
			if err := ex.check(); err != nil {
				it.Close()
				return nil, err
			}
			q := it.Quad()
			vals := [3]kb.ID{q.S, q.P, q.O}
			if idx.single >= 0 {
				k := vals[idx.single]
				idx.one[k] = append(idx.one[k], q)
				continue
			}
			var key [3]kb.ID
			for i := range key {
				if mask&(1<<i) != 0 {
					key[i] = vals[i]
				}
			}
			idx.multi[key] = append(idx.multi[key], q)
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return nil, err
		}
	}
	return idx, nil
}

// anyGraph is the graph list of a union-of-all-graphs default graph.
var anyGraph = []kb.ID{kb.Any}

func (n *bgpNode) children() []node { return nil }

func (n *bgpNode) describe() string {
	var b strings.Builder
	b.WriteString("BGP")
	if n.missing != "" {
		b.WriteString(" (no solutions: " + n.missing + " is not in the store)")
	}
	if len(n.fsrc[0]) > 0 {
		b.WriteString(" filter:" + filterText(n.fsrc[0]))
	}
	for i, p := range n.pats {
		fmt.Fprintf(&b, "\n    %d. %s  [count=%.0f est=%.0f/row actual=%d]", i+1, p.src.String(), p.base, p.est, n.rows[i])
		if len(n.fsrc[i+1]) > 0 {
			b.WriteString(" filter:" + filterText(n.fsrc[i+1]))
		}
	}
	return b.String()
}

// filterText formats pushed-down filters for explain.
func filterText(exprs []algebra.Expr) string {
	var b strings.Builder
	for _, e := range exprs {
		b.WriteString(" " + e.String())
	}
	return b.String()
}

// tripleDedupe drops repeated triples from a match over several graphs
// (the union default graph is a set of triples). Hashing starts only once
// a second graph shows up, so matches within one graph cost an append.
type tripleDedupe struct {
	graph   kb.ID // graph of the first match
	started bool
	multi   bool // matches came from more than one graph
	seen    [][3]kb.ID
	set     map[[3]kb.ID]struct{}
}

func (d *tripleDedupe) reset() {
	d.started, d.multi = false, false
	d.seen = d.seen[:0]
	if d.set != nil {
		if len(d.set) > 1024 {
			d.set = nil
		} else {
			clear(d.set)
		}
	}
}

func (d *tripleDedupe) duplicate(q kb.Quad) bool {
	t := [3]kb.ID{q.S, q.P, q.O}
	switch {
	case !d.started:
		d.graph, d.started = q.G, true
	case q.G != d.graph && !d.multi:
		// A second graph: from now on check every triple.
		d.multi = true
		if d.set == nil {
			d.set = make(map[[3]kb.ID]struct{}, len(d.seen)+8)
		}
		for _, s := range d.seen {
			d.set[s] = struct{}{}
		}
	}
	if d.multi {
		if _, dup := d.set[t]; dup {
			return true
		}
		d.set[t] = struct{}{}
		return false
	}
	d.seen = append(d.seen, t)
	return false
}
