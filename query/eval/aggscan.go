package eval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// aggScanNode is a GROUP BY (or the one implicit group) over a single
// triple pattern, fused with the pattern's scan: what Sparqloscope's
// statistics, "implicit GROUP BY" and numeric FILTER families ask, and what
// an analyst's first look at a predicate asks.
//
// Without filters and with only COUNT(*) or COUNT(?v) of pattern variables
// (which the pattern always binds), the answer is the store's exact count
// of the pattern: the (predicate, graph) counters or an index range, no row
// visited. Otherwise the scan feeds each quad straight into the group's
// aggregate states (the same aggState as groupNode, so the results are the
// same values in the same order) with no BGP frame, row copy or group key
// string per row; groups are found by the key's ID, and a run of equal
// keys (the order an index yields them in) by the group before. FILTER
// conjuncts that test a variable's kind (isIRI, isBlank, isLiteral) or
// compare it with a numeric constant are decided from the decoded term
// without building the expression's result; the first repeats its answer
// while the ID repeats.
type aggScanNode struct {
	nodeInfo
	pat    [3]tpos
	graphs []kb.ID // the pattern's graphs: one, or kb.Any for the union default graph
	// union: graphs is kb.Any over a store with several graphs (or
	// hidden ones): quads in hidden graphs are skipped, and a triple held
	// by several graphs, whose quads come together (kb.GraphLast), is
	// visited once, as the union default graph holds it once.
	union   bool
	missing string // a constant the store does not know: no matches
	key     *groupKey
	keyPos  int // the pattern position the key variable occupies
	aggs    []groupAgg
	tests   []fastTest
	counted bool // answered by Count
	src     algebra.TriplePattern
	fsrc    []algebra.Expr
	// What a parallel scan's workers compile their own expressions from
	// (compiled expressions keep per-call scratch space).
	inner   scope
	slotPos map[int]int
}

// fastTest is one FILTER conjunct over one pattern position, with a fast
// decision for the common cases and the compiled expression for the rest.
type fastTest struct {
	pos  int
	expr cexpr
	// A kind test (isIRI/isBlank/isLiteral): kind is the kind it accepts.
	kind kb.TermKind
	// A numeric comparison ?v op c (op normalised to put ?v left).
	op    algebra.BinaryOp
	ci    int64   // c, when cInt
	cf    float64 // c as a double, when cDbl
	cInt  bool
	cDbl  bool
	ckind function.NumKind // c's kind, when cDbl
	memo  kb.ID            // kind tests: the last ID decided and its verdict
	memoV bool
	// ?a = ?b or ?a != ?b of two pattern variables (op): slot2 is ?b's
	// slot; t.pos is ?a's position.
	slot2  int
	vars   bool
	memo2  kb.ID // ?b's last ID and whether it is an IRI or blank node
	memo2V bool
}

// compileAggScan returns an aggScanNode for o when its input is one triple
// pattern (with FILTERs) read from a fixed set of graphs, or ok false to
// use groupNode.
func (ex *executor) compileAggScan(o *algebra.Group, sc scope) (node, bool, error) {
	if !aggScanOn || len(sc.seed) > 0 || len(o.Keys) > 1 {
		return nil, false, nil
	}
	in := ex.plan.Pattern(o.Input)
	var exprs []algebra.Expr
	if f, ok := in.(*algebra.Filter); ok {
		exprs = append(exprs, f.Exprs...)
		in = ex.plan.Pattern(f.Input)
	}
	bgp, ok := in.(*algebra.BGP)
	if !ok || len(bgp.Triples) != 1 || ex.plan.Isolated(bgp) {
		return nil, false, nil
	}
	bp := ex.plan.BGP(bgp)
	if bp == nil {
		return nil, false, nil
	}
	for _, fs := range bp.Filters {
		exprs = append(exprs, fs...)
	}
	n := &aggScanNode{src: bgp.Triples[0], fsrc: exprs, keyPos: -1}
	switch sc.graph.kind {
	case gConst:
		n.graphs = []kb.ID{sc.graph.id}
	case gDefault:
		switch {
		case ex.unionAll && (!ex.multi || ex.graphLast):
			n.graphs = anyGraph
			n.union = ex.multi || ex.hidden != nil
		case !ex.unionAll && len(ex.defaults) <= 1:
			n.graphs = ex.defaults
		default:
			return nil, false, nil // a union of graphs: duplicates to drop
		}
	default:
		return nil, false, nil
	}
	tp := bgp.Triples[0]
	slotPos := map[int]int{}
	for k, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
		if nd.IsVar() {
			s := ex.vars.slot(nd.Var)
			if _, dup := slotPos[s]; dup {
				return nil, false, nil // ?x p ?x: a join within the pattern
			}
			slotPos[s] = k
			n.pat[k] = tpos{slot: s}
			continue
		}
		id, ok, err := ex.dict.lookup(nd.Term)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			n.missing = nd.Term.String()
		}
		n.pat[k] = tpos{id: id, slot: -1}
	}
	if len(o.Keys) == 1 {
		k := o.Keys[0]
		vs := ex.plainVarSlot(k.Expr)
		pos, ok := slotPos[vs]
		if vs < 0 || !ok {
			return nil, false, nil
		}
		n.key = &groupKey{slot: ex.vars.slot(k.Var), varSlot: vs}
		n.keyPos = pos
	}
	inner := sc.with(sc.seed.union(ex.maybe(o.Input)))
	n.inner, n.slotPos = inner, slotPos
	counted := len(exprs) == 0 && n.key == nil && !n.union
	for _, a := range o.Aggregates {
		g := groupAgg{slot: ex.vars.slot(a.Var), agg: a.Aggregate, varSlot: -1}
		if a.Aggregate.Expr != nil {
			g.varSlot = ex.plainVarSlot(a.Aggregate.Expr)
			e, err := ex.compileExpr(a.Aggregate.Expr, inner)
			if err != nil {
				return nil, false, err
			}
			g.expr = ex.memoAgg(a.Aggregate.Expr, e)
			if numAggregate(a.Aggregate) {
				g.num = ex.compileNum(a.Aggregate.Expr)
			}
		}
		_, inPattern := slotPos[g.varSlot]
		if a.Aggregate.Func != algebra.AggCount || a.Aggregate.Distinct || !(a.Aggregate.Star || inPattern) {
			counted = false
		}
		n.aggs = append(n.aggs, g)
	}
	n.counted = counted
	tests, err := n.compileTests(ex)
	if err != nil {
		return nil, false, err
	}
	n.tests = tests
	n.est = 1
	return n, true, nil
}

// compileTests compiles the node's FILTER conjuncts for ex.
func (n *aggScanNode) compileTests(ex *executor) ([]fastTest, error) {
	var tests []fastTest
	for _, e := range n.fsrc {
		c, err := ex.compileExpr(e, n.inner)
		if err != nil {
			return nil, err
		}
		t := fastTest{pos: -1, expr: c}
		t.analyse(ex, e, n.slotPos)
		tests = append(tests, t)
	}
	return tests, nil
}

// compileAggs compiles the aggregates' arguments again for ex: a copy of
// n.aggs with expressions of its own.
func (n *aggScanNode) compileAggs(ex *executor) ([]groupAgg, error) {
	aggs := slices.Clone(n.aggs)
	for i := range aggs {
		if e := aggs[i].agg.Expr; e != nil {
			c, err := ex.compileExpr(e, n.inner)
			if err != nil {
				return nil, err
			}
			aggs[i].expr = ex.memoAgg(e, c)
		}
	}
	return aggs, nil
}

// aggScanOn turns the fused scan on; tests compare it with groupNode.
var aggScanOn = true

// analyse recognises the conjuncts fastTest decides itself.
func (t *fastTest) analyse(ex *executor, e algebra.Expr, slotPos map[int]int) {
	switch x := e.(type) {
	case *algebra.BuiltinExpr:
		if len(x.Args) != 1 {
			return
		}
		pos, ok := slotPos[ex.plainVarSlot(x.Args[0])]
		if !ok {
			return
		}
		switch x.Name {
		case algebra.BuiltinIsIRI:
			t.kind = kb.KindIRI
		case algebra.BuiltinIsBlank:
			t.kind = kb.KindBlank
		case algebra.BuiltinIsLiteral:
			t.kind = kb.KindLiteral
		default:
			return
		}
		t.pos = pos
	case *algebra.BinaryExpr:
		op := x.Op
		v, c := x.Left, x.Right
		op, v, c = varFirst(op, v, c)
		switch op {
		case algebra.OpLess, algebra.OpGreater, algebra.OpLessEq, algebra.OpGreatEq, algebra.OpEqual, algebra.OpNotEqual:
		default:
			return
		}
		pos, ok := slotPos[ex.plainVarSlot(v)]
		if s2 := ex.plainVarSlot(c); ok && s2 >= 0 && (op == algebra.OpEqual || op == algebra.OpNotEqual) {
			if _, in := slotPos[s2]; in {
				t.op, t.pos, t.slot2, t.vars = op, pos, s2, true
			}
			return
		}
		ce, isConst := c.(*algebra.ConstExpr)
		if !ok || !isConst {
			return
		}
		num, ok := function.ParseNumeric(ce.Term)
		if !ok || num.Kind == function.NumFloat || num.IsNaN() {
			return
		}
		if num.Kind == function.NumInteger && num.R.IsInt() && num.R.Num().IsInt64() {
			t.cInt, t.ci = true, num.R.Num().Int64()
		}
		// A double operand promotes c to a double (compareNumeric).
		t.cDbl, t.cf, t.ckind = true, num.Float64(), num.Kind
		t.op, t.pos = op, pos
	}
}

// decide runs the test on the quad's term at t.pos.
func (t *fastTest) decide(ex *executor, id kb.ID, r row) (bool, error) {
	if t.pos < 0 {
		return ex.filterRow([]cexpr{t.expr}, r)
	}
	if t.vars {
		return t.decideVars(ex, id, r)
	}
	if t.kind != 0 {
		if id == t.memo && id != 0 {
			return t.memoV, nil
		}
		k, err := ex.dict.kind(id)
		if err != nil {
			return false, err
		}
		t.memo, t.memoV = id, k == t.kind
		return t.memoV, nil
	}
	term, err := ex.dict.term(id)
	if err != nil {
		return false, err
	}
	i, f, k, ok := fastNumber(term)
	var c int
	switch {
	case ok && k == function.NumDouble && t.cDbl && !math.IsNaN(f):
		c = cmpOrdered(f, t.cf)
	case ok && k == function.NumInteger && t.cInt:
		c = cmpOrdered(i, t.ci)
	case ok && k == function.NumInteger && t.cDbl && i > -1<<53 && i < 1<<53 && float64(i) != t.cf:
		// An integer against a decimal (compared as decimals): i is a
		// double exactly, and cf the double nearest c, so no double lies
		// strictly between c and cf; i on one side of cf is on that
		// side of c. Equal doubles go the exact way below.
		c = cmpOrdered(float64(i), t.cf)
	default:
		return ex.filterRow([]cexpr{t.expr}, r)
	}
	switch t.op {
	case algebra.OpLess:
		return c < 0, nil
	case algebra.OpGreater:
		return c > 0, nil
	case algebra.OpLessEq:
		return c <= 0, nil
	case algebra.OpGreatEq:
		return c >= 0, nil
	case algebra.OpEqual:
		return c == 0, nil
	}
	return c != 0, nil
}

// decideVars decides ?a = ?b (or !=) on IDs when either is an IRI or a
// blank node: such a term equals only itself (RDFterm-equal, no type
// error whatever the other is; see equal), and the store gives each term
// one ID. Two literals (value equality, NaN, ill-typed values) or two
// triple terms go through the general expression. ?b is looked at first:
// along the P-O-S-G order of `?s p ?o` the object repeats, so its verdict
// comes from the memo.
func (t *fastTest) decideVars(ex *executor, id kb.ID, r row) (bool, error) {
	id2 := r[t.slot2]
	if !nonLiteral(ex, id2, &t.memo2, &t.memo2V) && !nonLiteral(ex, id, &t.memo, &t.memoV) {
		return ex.filterRow([]cexpr{t.expr}, r)
	}
	return (id == id2) == (t.op == algebra.OpEqual), nil
}

// nonLiteral reports whether id is an IRI or a blank node, remembering
// the last ID's answer in memo and memoV (along an index order one of the
// two operands repeats).
func nonLiteral(ex *executor, id kb.ID, memo *kb.ID, memoV *bool) bool {
	if id == *memo && id != 0 {
		return *memoV
	}
	k, err := ex.dict.kind(id)
	v := err == nil && (k == kb.KindIRI || k == kb.KindBlank)
	*memo, *memoV = id, v
	return v
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// aggScanGroup is one group of an aggScanNode.
type aggScanGroup struct {
	key   kb.ID
	aggs  []aggState
	first int64 // the scan position of the group's first row
	// last[i]: the ID aggregate i last added, where it skips repeats
	// (repeatSkips).
	last []kb.ID
}

// aggScanPart folds rows into groups: the whole scan's, or, in a parallel
// scan, the groups of the keys one worker owns.
type aggScanPart struct {
	n          *aggScanNode
	ex         *executor
	acct       *account
	tests      []fastTest
	aggs       []groupAgg
	groups     map[kb.ID]*aggScanGroup
	order      []*aggScanGroup
	last       *aggScanGroup
	r          row
	groupBytes int64
}

func (n *aggScanNode) newPart(ex *executor, seed row, tests []fastTest, aggs []groupAgg) *aggScanPart {
	return &aggScanPart{
		n: n, ex: ex, acct: ex.account("GROUP BY"), tests: tests, aggs: aggs,
		groups: map[kb.ID]*aggScanGroup{}, r: seed.clone(len(seed)),
		groupBytes: int64(unsafe.Sizeof(aggScanGroup{})) + 8 + mapEntryExtra + allocExtra +
			int64(len(n.aggs))*int64(unsafe.Sizeof(aggState{})) + allocExtra,
	}
}

// visit folds the quad ids, the scan's row at position seq, into its
// group: what groupNode would do with the pattern's solution.
func (p *aggScanPart) visit(ids [3]kb.ID, seq int64) error {
	n, ex, r := p.n, p.ex, p.r
	for k, pt := range n.pat {
		if pt.slot >= 0 {
			r[pt.slot] = ids[k]
		}
	}
	for i := range p.tests {
		t := &p.tests[i]
		var id kb.ID
		if t.pos >= 0 {
			id = ids[t.pos]
		}
		ok, err := t.decide(ex, id, r)
		if err != nil || !ok {
			return err
		}
	}
	var key kb.ID
	if n.key != nil {
		key = ids[n.keyPos]
	}
	g := p.last
	if g == nil || g.key != key {
		g = p.groups[key]
		if g == nil {
			if err := p.acct.charge(p.groupBytes); err != nil {
				return err
			}
			g = &aggScanGroup{key: key, aggs: make([]aggState, len(n.aggs)), first: seq, last: make([]kb.ID, len(n.aggs))}
			p.groups[key] = g
			p.order = append(p.order, g)
		}
		p.last = g
	}
	for i, a := range p.aggs {
		if repeatSkips(a) {
			if id := r[a.varSlot]; id != 0 && id == g.last[i] {
				continue
			} else {
				g.last[i] = id
			}
		}
		if err := g.aggs[i].add(ex, a, r, p.acct); err != nil {
			return err
		}
	}
	return nil
}

func (n *aggScanNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if n.counted {
		return n.runCounted(ex, seed, emit)
	}
	if done, err := n.runKindCounted(ex, seed, emit); done {
		return err // kindcount.go
	}
	tests := n.tests
	objs, rest, ordered, err := n.orderedObjects(ex, seed, n.orderedTests())
	if err != nil {
		return err
	}
	if ordered {
		tests = rest
	} else if workers := n.parallelism(ex); workers > 1 {
		return n.runParallel(ex, seed, emit, workers)
	}
	p := n.newPart(ex, seed, tests, n.aggs)
	defer p.acct.done()
	var seq int64
	err = n.scanObjects(ex, objs, ordered, func(q kb.Quad) error {
		if err := p.visit([3]kb.ID{q.S, q.P, q.O}, seq); err != nil {
			return err
		}
		seq++
		return ex.check()
	})
	if err != nil {
		return err
	}
	return n.emitGroups(ex, seed, p.order, p.acct, emit)
}

// scan visits the pattern's matches in every graph of the node.
func (n *aggScanNode) scan(ex *executor, visit func(kb.Quad) error) error {
	return n.scanObjects(ex, nil, false, visit)
}

// scanObjects is scan, restricted to the quads whose object is in objs
// (ascending IDs) when only is set.
func (n *aggScanNode) scanObjects(ex *executor, objs []kb.ID, only bool, visit func(kb.Quad) error) error {
	if n.missing != "" || n.kindAbsent(ex) {
		return nil
	}
	if n.union {
		var last kb.Quad
		first := true
		inner := visit
		visit = func(q kb.Quad) error {
			if ex.hidden[q.G] || (!first && q.S == last.S && q.P == last.P && q.O == last.O) {
				return nil
			}
			first, last = false, q
			return inner(q)
		}
	}
	for _, gr := range n.graphs {
		pat := kb.Pattern{S: n.pat[0].id, P: n.pat[1].id, O: n.pat[2].id, G: gr}
		var err error
		if only {
			err = n.scanSelected(ex, pat, objs, visit)
		} else {
			err = scanPattern(ex, pat, visit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scanPattern visits pat's matches.
func scanPattern(ex *executor, pat kb.Pattern, visit func(kb.Quad) error) error {
	if ex.scanner == nil {
		return scanMatch(ex, pat, visit)
	}
	var inner error
	err := ex.scanner.ScanQuads(ex.ctx, pat, func(q kb.Quad) bool {
		inner = visit(q)
		return inner == nil
	})
	if inner != nil {
		return inner
	}
	return err
}

// emitGroups emits the groups' answers, in the order given.
func (n *aggScanNode) emitGroups(ex *executor, seed row, order []*aggScanGroup, acct *account, emit func(row) bool) error {
	if n.key == nil && len(order) == 0 {
		order = append(order, &aggScanGroup{aggs: make([]aggState, len(n.aggs))})
	}
	for _, g := range order {
		out, _ := hiddenSeed(ex, seed)
		if n.key != nil {
			out[n.key.slot] = g.key
		}
		for i, a := range n.aggs {
			t, err := g.aggs[i].chargedResult(a, acct)
			if err != nil {
				if !isExpressionError(err) {
					return err
				}
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return err
			}
			out[a.slot] = id
		}
		if !emit(out) {
			return errStop
		}
	}
	return nil
}

// kindHolder is implemented by stores that know which term kinds their
// dictionary holds (the native stores, from each term's tag byte).
type kindHolder interface {
	HoldsKind(kind kb.TermKind) (holds, known bool)
}

// kindAbsent reports whether a kind test of the node's filters can hold
// for no row because the store holds no term of that kind: FILTER
// isBlank(?s) over a store without blank nodes visits nothing.
func (n *aggScanNode) kindAbsent(ex *executor) bool {
	kh, ok := ex.ds.(kindHolder)
	if !ok {
		return false
	}
	for _, t := range n.tests {
		if t.pos >= 0 && t.kind != 0 {
			if holds, known := kh.HoldsKind(t.kind); known && !holds {
				return true
			}
		}
	}
	return false
}

// scanMatch visits the matches of pat through kb.Dataset.Match.
func scanMatch(ex *executor, pat kb.Pattern, visit func(kb.Quad) error) error {
	it := ex.ds.Match(ex.ctx, pat)
	for it.Next() {
		if err := visit(it.Quad()); err != nil {
			_ = it.Close()
			return err
		}
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return err
}

// runCounted answers COUNTs of every match from the store's count.
func (n *aggScanNode) runCounted(ex *executor, seed row, emit func(row) bool) error {
	var total int64
	if n.missing == "" {
		for _, g := range n.graphs {
			c, err := ex.ds.Count(ex.ctx, kb.Pattern{S: n.pat[0].id, P: n.pat[1].id, O: n.pat[2].id, G: g}, true)
			if err != nil {
				return err
			}
			total += c
		}
	}
	return emitCount(ex, seed, total, emit, func(out row, id kb.ID) {
		for _, a := range n.aggs {
			out[a.slot] = id
		}
	})
}

func (n *aggScanNode) children() []node { return nil }

func (n *aggScanNode) describe() string {
	var b strings.Builder
	keys := 0
	if n.key != nil {
		keys = 1
	}
	fmt.Fprintf(&b, "AggregateScan %s (%d keys, %d aggregates", n.src, keys, len(n.aggs))
	if n.counted {
		b.WriteString(", from the store's count")
	}
	b.WriteString(")")
	if n.missing != "" {
		b.WriteString(" (no solutions: " + n.missing + " is not in the store)")
	}
	if len(n.fsrc) > 0 {
		b.WriteString(" filter:" + filterText(n.fsrc))
	}
	if len(n.orderedTests()) > 0 {
		b.WriteString(" (objects by value where the store keeps their order)")
	}
	return b.String()
}

// varFirst puts a comparison's variable operand on the left: with the
// variable on the right the operands swap and an ordering operator turns
// round (3 < ?x is ?x > 3). A comparison without a variable on the right
// comes back as it is.
func varFirst(op algebra.BinaryOp, v, c algebra.Expr) (algebra.BinaryOp, algebra.Expr, algebra.Expr) {
	if _, ok := v.(*algebra.VarExpr); ok {
		return op, v, c
	}
	switch op {
	case algebra.OpLess:
		op = algebra.OpGreater
	case algebra.OpGreater:
		op = algebra.OpLess
	case algebra.OpLessEq:
		op = algebra.OpGreatEq
	case algebra.OpGreatEq:
		op = algebra.OpLessEq
	}
	return op, c, v
}
