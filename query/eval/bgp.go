package eval

import (
	"context"
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
	rng  *rangeSel             // the object read through a value order (bgprange.go)
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
	// kept[i]: level i's index kept by the store (bgpkept.go); keptTried
	// once the store was asked.
	kept      []*keptProbeIndex
	keptTried []bool
	keptPos   []int
	keptBuf   [][]kb.Quad
	keptBusy  []int          // readers of keptBuf's slice (re-entry)
	keptHits  []int64        // per level: lookups keptMatch read in place (explain)
	subject   []subjectQuads // per level: the quads of one subject (star joins)
	missing   string         // a constant the store does not know: no solutions
	memory    int8           // 0: not asked yet; 1: ex.ds has MemoryLookups; -1: not
	scans     []*scanState   // per level: the ScanQuads callback and its frame
	pushed    int            // requests answered by a kb.BGPMatcher (explain)
	lastBGP   kb.BGP         // the last BGP a kb.BGPMatcher answered (explain)
	store     kb.Dataset     // the store that answered it
	// cursors are the per-level lookup cursors of cursorOf (bgpcursor.go).
	cursors  []kb.QuadScanner
	cursorOf cursorStore
	// split, when set, takes the first pattern's matches instead of the
	// other patterns (a GROUP BY dealing them to workers: groupjoin.go).
	split func(kb.Quad) error
	// borrow lets emit receive the working row itself, which the next
	// match overwrites (a GROUP BY folds each row at once: groupjoin.go).
	borrow bool
	// exists[i]: only whether pattern i matches counts (groupexists.go).
	exists []bool
	// prune: partial rows a GROUP BY has had already (groupprune.go).
	prune *groupPrune
	// sels[i]: the object set that rejects rows before filters[i+1]
	// (bgpsel.go); nil when no level has one.
	sels []*levelSel
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

// compileBGP builds the node of a BGP as the optimizer planned it: its
// triple patterns in order, each FILTER conjunct after the pattern it
// waits for.
func (ex *executor) compileBGP(o *algebra.BGP, sc scope) (node, error) {
	bp := ex.plan.BGP(o)
	if bp == nil {
		return nil, fmt.Errorf("%w: a BGP the optimizer did not plan", ErrInternal)
	}
	n := &bgpNode{graph: sc.graph}
	pats := make([]bgpPattern, 0, len(o.Triples))
	for i, tp := range o.Triples {
		if i&255 == 255 {
			if err := ctxErr(ex.ctx); err != nil {
				return nil, err
			}
		}
		var p bgpPattern
		for k, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
			if nd.IsVar() {
				p.pos[k] = tpos{slot: ex.vars.slot(nd.Var)}
				continue
			}
			id, ok, err := ex.dict.lookup(nd.Term)
			if err != nil {
				return nil, err
			}
			if !ok {
				n.missing = nd.Term.String()
			}
			p.pos[k] = tpos{id: id, slot: -1}
		}
		p.src = tp
		p.base, p.est = bp.Counts[i], bp.Est[i]
		pats = append(pats, p)
	}
	n.pats = pats
	n.est = bp.Rows
	if n.missing != "" {
		n.est = 0
	}
	markStars(n.pats)
	n.rows = make([]int64, len(n.pats))
	n.dedupe = make([]tripleDedupe, len(n.pats))
	n.filters = make([][]cexpr, len(n.pats)+1)
	n.fsrc = bp.Filters
	var fsc scope
	for level, exprs := range bp.Filters {
		if len(exprs) == 0 {
			continue
		}
		if fsc.seed == nil {
			fsc = sc.with(sc.seed.union(ex.maybe(o)))
		}
		ces, err := ex.compileExprs(exprs, fsc)
		if err != nil {
			return nil, err
		}
		ex.idEqualFilters(n, level, exprs, ces)
		n.filters[level] = ces
	}
	if err := ex.compileRanges(n, bp, sc.with(sc.seed.union(ex.maybe(o)))); err != nil {
		return nil, err
	}
	if err := ex.compileSels(n, sc.with(sc.seed.union(ex.maybe(o)))); err != nil {
		return nil, err
	}
	return n, nil
}

// planStats answers the optimizer's questions (opt.Stats) from the store
// through the query's dictionary.
type planStats struct{ ex *executor }

// Count implements opt.Stats: the quads matching tp's constants in graph,
// summed over the default graphs for the default graph.
func (s planStats) Count(ctx context.Context, tp algebra.TriplePattern, graph algebra.Node) (float64, error) {
	ex := s.ex
	var ids [3]kb.ID
	for k, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
		if nd.IsVar() {
			continue
		}
		id, ok, err := ex.dict.lookup(nd.Term)
		if err != nil || !ok {
			return 0, err
		}
		ids[k] = id
	}
	pat := kb.Pattern{S: ids[0], P: ids[1], O: ids[2]}
	graphs := anyGraph
	switch {
	case graph.IsZero():
		if !ex.unionAll {
			graphs = ex.defaults
		}
	case !graph.IsVar():
		id, ok, err := ex.dict.lookup(graph.Term)
		if err != nil || !ok {
			return 0, err
		}
		graphs = []kb.ID{id}
	}
	total := 0.0
	for _, g := range graphs {
		pat.G = g
		c, err := ex.ds.Count(ctx, pat, false)
		if err != nil {
			return 0, err
		}
		total += float64(c)
	}
	return total, nil
}

// PredicateDistinct implements opt.Stats through the store's
// kb.PredicateStats, when it has them.
func (s planStats) PredicateDistinct(p kb.Term) (int64, int64, bool) {
	ps, ok := s.ex.ds.(kb.PredicateStats)
	if !ok {
		return 0, 0, false
	}
	id, ok, err := s.ex.dict.lookup(p)
	if err != nil || !ok {
		return 0, 0, false
	}
	return ps.PredicateDistinct(id)
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
	if bm, ok := ex.ds.(kb.BGPMatcher); ok && len(n.pats) > 1 {
		return n.runPushed(ex, bm, r, emit)
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
		if n.prune != nil {
			n.prune.add(ex, r)
		}
		if n.borrow {
			if !emit(r) {
				return errStop
			}
			return nil
		}
		if !emit(r.clone(len(r))) {
			return errStop
		}
		return nil
	}
	if rs := n.pats[level].rng; rs != nil && r[rs.slot] == 0 && r[n.pats[level].pos[0].slot] == 0 {
		if ok, err := n.matchRanged(ex, level, r, emit); ok || err != nil {
			return err
		}
	}
	if n.kept != nil && n.kept[level] != nil {
		if ok, err := n.keptMatch(ex, level, r, emit); ok || err != nil {
			return err
		}
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
	f.onlyOne = f.ids[0] != 0 && f.ids[1] != 0 && f.ids[2] != 0 ||
		level < len(n.exists) && n.exists[level]
	if dedupe && !f.onlyOne {
		f.seen = &n.dedupe[level]
		f.seen.reset(ex.graphLast && ex.unionAll)
	}
	if quads, ok, err := n.probe(ex, level, f.ids, graphs); err != nil {
		return err
	} else if ok {
		f.seen.unordered()
		for _, q := range quads {
			if err := f.visit(q); err != nil {
				n.keptRelease(level)
				return err
			}
			if f.onlyOne && f.matched {
				break
			}
		}
		n.keptRelease(level)
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
				f.seen.unordered()
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
				f.seen.unordered()
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
			err := n.levelScanner(ex, level).ScanQuads(ex.ctx, pat, st.fn)
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
	if f.level == 0 && f.n.split != nil {
		return f.n.split(q)
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
	if pr := f.n.prune; pr != nil && pr.level == f.level && pr.has(r) {
		for _, s := range set[:nset] { // a row the GROUP BY had already (groupprune.go)
			r[s] = 0
		}
		return nil
	}
	f.matched = true
	pass, err := true, error(nil)
	if f.n.sels != nil {
		pass, err = f.n.selPass(f.ex, f.level, r)
	}
	if err == nil && pass {
		pass, err = f.ex.filterRow(f.n.filters[f.level+1], r)
	}
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
	if mask == 0 || ex.source != nil {
		// A QuadSource answers bound lookups from its own indexes.
		return nil, false, nil
	}
	if n.indexes == nil {
		n.indexes = make([]map[uint8]*probeIndex, len(n.pats))
		n.probes = make([]int, len(n.pats))
	}
	if n.memoryLookups(ex) {
		// A store with MemoryLookups answers bound lookups itself, but
		// for a predicate index it keeps (bgpkept.go).
		return n.keptProbe(ex, level, ids, graphs, mask)
	}
	if p.base > maxIndexedQuads {
		return nil, false, nil
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
	if n.pushed > 0 {
		fmt.Fprintf(&b, " (whole BGP matched by the store: %d requests; actual counts the solutions only)", n.pushed)
		if be, ok := n.store.(kb.BGPExplainer); ok {
			b.WriteString("\n    store: " + be.ExplainBGP(n.lastBGP))
		}
	}
	for i, p := range n.pats {
		fmt.Fprintf(&b, "\n    %d. %s  [count=%.0f est=%.0f/row actual=%d]", i+1, p.src.String(), p.base, p.est, n.rows[i])
		if i < len(n.exists) && n.exists[i] {
			b.WriteString(" first match only")
		}
		if n.prune != nil && n.prune.level == i {
			b.WriteString(n.prune.describe())
		}
		if i < len(n.keptHits) && n.keptHits[i] > 0 {
			fmt.Fprintf(&b, " kept index read in place: %d lookups", n.keptHits[i])
		}
		if p.rng != nil && p.rng.ok {
			fmt.Fprintf(&b, " objects by value: %d", len(p.rng.objs))
		}
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
// (the union default graph is a set of triples). From a store that yields
// a triple's quads together (kb.GraphLast) it compares each triple with
// the one before; otherwise hashing starts only once a second graph shows
// up, so matches within one graph cost an append.
type tripleDedupe struct {
	adjacent bool     // the quads come grouped by triple
	last     [3]kb.ID // in adjacent mode, the triple before; zero at first
	graph    kb.ID    // graph of the first match
	started  bool
	multi    bool // matches came from more than one graph
	seen     [][3]kb.ID
	set      map[[3]kb.ID]struct{}
}

// reset starts a new match, adjacent when its quads will come grouped by
// triple.
func (d *tripleDedupe) reset(adjacent bool) {
	d.adjacent, d.last = adjacent, [3]kb.ID{}
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

// unordered turns adjacent mode off for a match whose quads come from
// somewhere other than the store's scan (a probe index, a cache); it must
// be called before the first quad.
func (d *tripleDedupe) unordered() {
	if d != nil {
		d.adjacent = false
	}
}

func (d *tripleDedupe) duplicate(q kb.Quad) bool {
	t := [3]kb.ID{q.S, q.P, q.O}
	if d.adjacent {
		// IDs are never 0, so the zero triple matches nothing.
		if t == d.last {
			return true
		}
		d.last = t
		return false
	}
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
