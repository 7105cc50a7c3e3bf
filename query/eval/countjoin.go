package eval

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/opt"
)

// countJoinNode answers COUNT(*) over joins that all meet in one variable,
// the key, without building a row: per key value it counts the solutions
// of each part and combines the counts. Every triple pattern holds the key
// (as subject or object) beside constants and variables of its own, so a
// solution of the whole is one key value and an independent choice of one
// solution of each part for that value, and
//
//	count(A ⋈ B)(k)        = count(A)(k) · count(B)(k)
//	count(A ⟕ B)(k)        = count(A)(k) · max(count(B)(k), 1)
//	count(A, EXISTS B)(k)  = count(A)(k)  if count(B)(k) > 0, else 0
//	count(A, NOT EXISTS B)(k) and count(A MINUS B)(k): the reverse
//	count(A ∪ B)(k)        = count(A)(k) + count(B)(k)
//
// and the answer is the sum over k. A part's counts come from one scan of
// its pattern's matches (an index range of the store), sorted by the key's
// ID and run-length encoded; the operators above are merges of those
// sorted lists. This is what Sparqloscope's join, OPTIONAL, EXISTS, MINUS
// and UNION families ask (COUNT(*) over two or three large predicates on
// one subject), where feeding each row into the other side costs a lookup
// per row and the rows themselves are never needed.
//
// Every variable other than the key occurs in one triple pattern only (a
// UNION's branches may reuse one: their solutions are never joined), and
// an OPTIONAL carries no FILTER, so the parts are independent given the
// key. Anything else, and any query run with Options.NoOptimize, takes the
// general operators.
type countJoinNode struct {
	nodeInfo
	root   *cjOp
	key    algebra.Var
	graphs []kb.ID
	union  bool  // the union default graph: skip hidden graphs
	dedupe bool  // … over several graphs: count a triple's quads once
	slots  []int // the COUNT aggregates' slots
	// GROUP BY the key: the key's slot, and one answer per key value;
	// -1 without GROUP BY (one answer, the sum over the keys).
	groupSlot int
	// top > 0: only the groups that can be among the first top rows
	// sorted on a count (topDesc: larger first) are emitted (counttop.go).
	top     int64
	topDesc bool
	// The per-key count lists scanKept returned, by predicate and key
	// position: the graphs and their treatment are the node's, so one
	// list serves every pattern of the predicate counted on that end.
	keptMu     sync.Mutex
	kept       map[[2]kb.ID]keyCounts
	keptProbed map[[2]kb.ID]bool // isKept's answers
}

// cjKind is what a cjOp computes from its operands.
type cjKind int

const (
	cjTriple cjKind = iota // the matches of one triple pattern
	cjJoin                 // a ⋈ b
	cjLeft                 // a ⟕ b (OPTIONAL without FILTER)
	cjSemi                 // a, FILTER EXISTS b
	cjAnti                 // a, FILTER NOT EXISTS b; a MINUS b
	cjUnion                // a ∪ b
)

// cjOp is one operator of a countJoinNode's tree.
type cjOp struct {
	kind    cjKind
	a, b    *cjOp
	pat     [3]kb.ID // cjTriple: constants, kb.Any for variables
	keyPos  int      // cjTriple: 0 (subject) or 2 (object)
	missing bool     // cjTriple: a constant the store does not know
	src     algebra.TriplePattern
	// cjTriple: the position and name of its variable other than the key
	// (-1: none), and the parts keyed on that variable that weigh each
	// match (a chain: ?a :p ?b . ?b :q ?c counted on ?a weighs each
	// (a, b) by the count of ?b :q ?c for b).
	other    int
	otherVar algebra.Var
	subs     []cjSub
}

// cjSub is a part joined (or OPTIONAL, EXISTS, NOT EXISTS) to a triple
// pattern through the pattern's other variable only.
type cjSub struct {
	kind cjKind // cjJoin, cjLeft, cjSemi or cjAnti
	op   *cjOp
}

// keyCounts maps key IDs (ascending, distinct) to positive counts.
type keyCounts struct {
	ids []kb.ID
	n   []int64
}

// compileCountJoin returns a countJoinNode for o when it is COUNT(*) with
// no GROUP BY over joins that meet in one variable (see countJoinNode), or
// ok false.
func (ex *executor) compileCountJoin(o *algebra.Group, sc scope) (node, bool, error) {
	if !countJoinOn || ex.plan == nil || ex.plan.NoOptimize || len(sc.seed) > 0 || sc.substitute ||
		len(o.Keys) > 1 || len(o.Aggregates) == 0 {
		return nil, false, nil
	}
	var group algebra.Var // GROUP BY ?group: the key
	if len(o.Keys) == 1 {
		ve, ok := o.Keys[0].Expr.(*algebra.VarExpr)
		if !ok || ve.Var != o.Keys[0].Var {
			return nil, false, nil
		}
		group = ve.Var
	}
	in := ex.plan.Pattern(o.Input)
	var certain opt.VarSet
	for _, a := range o.Aggregates {
		if a.Aggregate.Func != algebra.AggCount || a.Aggregate.Distinct {
			return nil, false, nil
		}
		if a.Aggregate.Star {
			continue
		}
		// COUNT(?v) of a variable every solution binds counts them all.
		ve, ok := a.Aggregate.Expr.(*algebra.VarExpr)
		if !ok {
			return nil, false, nil
		}
		if certain == nil {
			certain = opt.Certain(in)
		}
		if !certain[ve.Var] {
			return nil, false, nil
		}
	}
	if g, ok := in.(*algebra.Graph); ok && !g.Name.IsVar() && sc.graph.kind == gDefault {
		// GRAPH <g> { … } as the whole pattern: g's triples.
		id, ok, err := ex.dict.lookup(g.Name.Term)
		if err != nil || !ok || !ex.namedSet[id] {
			return nil, false, err // not a named graph: the general path says so
		}
		sc.graph = graphRef{kind: gConst, id: id}
		in = g.Input
	}
	var graphs []kb.ID
	switch sc.graph.kind {
	case gConst:
		graphs = []kb.ID{sc.graph.id}
	case gDefault:
		switch {
		case ex.unionAll && (!ex.multi || ex.graphLast):
			// Over several graphs a triple's quads come together
			// (kb.GraphLast): counted once, as the union default graph
			// holds it once.
			graphs = anyGraph
		case !ex.unionAll && len(ex.defaults) <= 1:
			graphs = ex.defaults
		default:
			return nil, false, nil // a union of graphs: duplicates to drop
		}
	default:
		return nil, false, nil
	}
	if ex.plan.Isolated(in) {
		return nil, false, nil
	}
	var triples []algebra.TriplePattern
	if !cjTriples(ex, in, &triples) || len(triples) < 2 && group == "" || len(triples) > cjMaxTriples {
		// One pattern without GROUP BY is the fused aggregate scan's
		// (the store's count); past cjMaxTriples the analysis (quadratic
		// in the patterns per chain link) would cost more than it saves,
		// and the planner's deadline rules.
		return nil, false, nil
	}
	// A grouped count of one pattern is counted here for every dataset,
	// not left to the fused aggregate scan when the default graph is one
	// graph (a protocol request's default-graph-uri): the scan hashes
	// every row into its group and sorts them all, where CountJoin counts
	// runs of the key and hands the top k of ORDER BY count LIMIT k down
	// (049 over HTTP: 450 ms against 18 ms).
	// The key: a variable of the first pattern under which the rest
	// compiles (the one every pattern holds, or the end of a chain); the
	// group's variable when grouped, so the per-key counts are the
	// groups' counts.
	n := &countJoinNode{graphs: graphs, union: sc.graph.kind == gDefault && ex.unionAll, groupSlot: -1}
	candidates := []algebra.Node{triples[0].S, triples[0].O}
	if group != "" {
		candidates = []algebra.Node{algebra.VarNode(group)}
		n.groupSlot = ex.vars.slot(group)
	} else if cjKeyChoiceOn {
		candidates = cjCandidates(triples)
	}
	// Without GROUP BY any variable under which the whole compiles may
	// be the key; of those, the one whose lists need the fewest quads
	// sorted by key (keysSorted) is taken, the first on a tie.
	best := int64(-1)
	for _, v := range candidates {
		if !v.IsVar() {
			continue
		}
		r, _, ok, err := ex.cjCompile(in, v.Var)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		if len(candidates) <= 2 {
			n.key, n.root = v.Var, r
			break
		}
		cost, err := n.sortCost(ex, r, true)
		if err != nil {
			return nil, false, err
		}
		if best < 0 || cost < best {
			n.key, n.root, best = v.Var, r, cost
		}
	}
	if n.root == nil {
		return nil, false, nil
	}
	n.dedupe = n.union && ex.multi
	for _, a := range o.Aggregates {
		n.slots = append(n.slots, ex.vars.slot(a.Var))
	}
	n.est = 1
	return n, true, nil
}

// cjMaxTriples bounds the triple patterns of a counted join.
const cjMaxTriples = 64

// countJoinOn turns the counting join on; tests compare it with the
// general operators.
var countJoinOn = true

// cjTriples collects the triple patterns under op (EXISTS patterns
// included), or reports false for an operator countJoinNode cannot take.
func cjTriples(ex *executor, op algebra.Op, out *[]algebra.TriplePattern) bool {
	switch o := op.(type) {
	case *algebra.BGP:
		*out = append(*out, o.Triples...)
		if bp := ex.plan.BGP(o); bp != nil {
			for _, fs := range bp.Filters {
				if !cjExistsTriples(ex, fs, out) {
					return false
				}
			}
		}
		return true
	case *algebra.Join:
		return cjTriples(ex, o.Left, out) && cjTriples(ex, o.Right, out)
	case *algebra.LeftJoin:
		return len(o.Exprs) == 0 && cjTriples(ex, o.Left, out) && cjTriples(ex, o.Right, out)
	case *algebra.Union:
		return cjTriples(ex, o.Left, out) && cjTriples(ex, o.Right, out)
	case *algebra.Minus:
		return cjTriples(ex, o.Left, out) && cjTriples(ex, o.Right, out)
	case *algebra.Filter:
		return cjExistsTriples(ex, o.Exprs, out) && cjTriples(ex, o.Input, out)
	}
	return false
}

// cjExistsTriples is cjTriples over FILTER conjuncts, each of which must
// be [NOT] EXISTS.
func cjExistsTriples(ex *executor, exprs []algebra.Expr, out *[]algebra.TriplePattern) bool {
	for _, e := range exprs {
		x, ok := e.(*algebra.ExistsExpr)
		if !ok || !cjTriples(ex, ex.plan.Pattern(x.Pattern), out) {
			return false
		}
	}
	return true
}

// cjCompile builds the cjOp of op, whose triple patterns all hold key,
// with the variables other than key that op binds; ok is false when two
// parts share such a variable.
func (ex *executor) cjCompile(op algebra.Op, key algebra.Var) (*cjOp, map[algebra.Var]bool, bool, error) {
	combine := func(kind cjKind, a, b *cjOp, va, vb map[algebra.Var]bool) (*cjOp, map[algebra.Var]bool, bool) {
		if kind != cjUnion {
			for v := range vb {
				if va[v] {
					return nil, nil, false // a join on a second variable
				}
			}
		}
		if kind == cjSemi || kind == cjAnti {
			return &cjOp{kind: kind, a: a, b: b}, va, true
		}
		for v := range vb {
			va[v] = true
		}
		return &cjOp{kind: kind, a: a, b: b}, va, true
	}
	// part combines a with the part bop: on the key when bop holds it,
	// else through the one variable bop shares with a's spine.
	part := func(kind cjKind, a *cjOp, va map[algebra.Var]bool, bop algebra.Op) (*cjOp, map[algebra.Var]bool, bool, error) {
		bv := cjVars(ex, bop)
		if !bv[key] {
			if kind == cjUnion {
				return nil, nil, false, nil
			}
			ok, err := ex.cjAttach(kind, a, va, bop, bv)
			return a, va, ok, err
		}
		b, vb, ok, err := ex.cjCompile(bop, key)
		if err != nil || !ok {
			return nil, nil, ok, err
		}
		r, vr, ok := combine(kind, a, b, va, vb)
		return r, vr, ok, nil
	}
	exists := func(a *cjOp, va map[algebra.Var]bool, exprs []algebra.Expr) (*cjOp, map[algebra.Var]bool, bool, error) {
		for _, e := range exprs {
			x := e.(*algebra.ExistsExpr) // cjTriples checked
			kind := cjSemi
			if x.Not {
				kind = cjAnti
			}
			var ok bool
			var err error
			if a, va, ok, err = part(kind, a, va, ex.plan.Pattern(x.Pattern)); err != nil || !ok {
				return nil, nil, ok, err
			}
		}
		return a, va, true, nil
	}
	switch o := op.(type) {
	case *algebra.BGP:
		var acc *cjOp
		vars := map[algebra.Var]bool{}
		var rest []algebra.TriplePattern
		for _, tp := range o.Triples {
			if !tripleHas(tp, key) {
				rest = append(rest, tp)
				continue
			}
			t, vt, ok, err := ex.cjTriple(tp, key)
			if err != nil || !ok {
				return nil, nil, ok, err
			}
			if acc == nil {
				acc, vars = t, vt
				continue
			}
			if acc, vars, ok = combine(cjJoin, acc, t, vars, vt); !ok {
				return nil, nil, false, nil
			}
		}
		if acc == nil {
			return nil, nil, false, nil
		}
		// The other triple patterns, in groups connected by variables,
		// each joined through the one variable it shares.
		for len(rest) > 0 {
			group := []algebra.TriplePattern{rest[0]}
			gv := map[algebra.Var]bool{}
			addVars(gv, rest[0])
			rest = rest[1:]
			for grown := true; grown; {
				grown = false
				for i := 0; i < len(rest); i++ {
					if shares(gv, rest[i], vars) {
						group = append(group, rest[i])
						addVars(gv, rest[i])
						rest = append(rest[:i], rest[i+1:]...)
						grown = true
						i--
					}
				}
			}
			ok, err := ex.cjAttach(cjJoin, acc, vars, &algebra.BGP{Triples: group}, gv)
			if err != nil || !ok {
				return nil, nil, ok, err
			}
		}
		if bp := ex.plan.BGP(o); bp != nil {
			for _, fs := range bp.Filters {
				var ok bool
				var err error
				if acc, vars, ok, err = exists(acc, vars, fs); err != nil || !ok {
					return nil, nil, ok, err
				}
			}
		}
		return acc, vars, true, nil
	case *algebra.Filter:
		a, va, ok, err := ex.cjCompile(o.Input, key)
		if err != nil || !ok {
			return nil, nil, ok, err
		}
		return exists(a, va, o.Exprs)
	}
	var kind cjKind
	var left, right algebra.Op
	switch o := op.(type) {
	case *algebra.Join:
		kind, left, right = cjJoin, o.Left, o.Right
	case *algebra.LeftJoin:
		kind, left, right = cjLeft, o.Left, o.Right
	case *algebra.Minus:
		// Both sides bind the key, so MINUS removes a left solution iff
		// the right side has a solution with its key (§18.5: compatible
		// and sharing a variable); no other variable is shared.
		kind, left, right = cjAnti, o.Left, o.Right
	case *algebra.Union:
		kind, left, right = cjUnion, o.Left, o.Right
	default:
		return nil, nil, false, nil
	}
	a, va, ok, err := ex.cjCompile(left, key)
	if err != nil || !ok {
		return nil, nil, ok, err
	}
	return part(kind, a, va, right)
}

// cjAttach joins bop (with variables bv) to the one triple pattern on
// a's spine (reached through joins and left sides, so present in every
// solution of a) whose other variable is the only variable bop shares
// with a: (t ⋈ A') ⟕ B = (t ⟕ B) ⋈ A' when B shares nothing with A',
// and likewise for ⋈, EXISTS, NOT EXISTS and MINUS. bop is counted
// keyed on that variable; va gains bop's variables for ⋈ and ⟕.
func (ex *executor) cjAttach(kind cjKind, a *cjOp, va map[algebra.Var]bool, bop algebra.Op, bv map[algebra.Var]bool) (bool, error) {
	var v algebra.Var
	for w := range bv {
		if va[w] {
			if v != "" {
				return false, nil // shares two variables
			}
			v = w
		}
	}
	if v == "" {
		return false, nil // a cross product
	}
	t := spineTriple(a, v)
	if t == nil {
		return false, nil
	}
	sub, vs, ok, err := ex.cjCompile(bop, v)
	if err != nil || !ok {
		return ok, err
	}
	t.subs = append(t.subs, cjSub{kind: kind, op: sub})
	if kind == cjJoin || kind == cjLeft {
		for w := range vs {
			va[w] = true
		}
	}
	return true, nil
}

// spineTriple returns the triple pattern of op whose other variable is v
// and that every solution of op holds, or nil.
func spineTriple(op *cjOp, v algebra.Var) *cjOp {
	switch op.kind {
	case cjTriple:
		if op.other >= 0 && op.otherVar == v {
			return op
		}
		return nil
	case cjJoin:
		if t := spineTriple(op.a, v); t != nil {
			return t
		}
		return spineTriple(op.b, v)
	case cjLeft, cjSemi, cjAnti:
		return spineTriple(op.a, v)
	}
	return nil
}

// cjVars returns the variables of op's triple patterns (EXISTS patterns
// included).
func cjVars(ex *executor, op algebra.Op) map[algebra.Var]bool {
	var ts []algebra.TriplePattern
	cjTriples(ex, op, &ts)
	vs := map[algebra.Var]bool{}
	for _, t := range ts {
		addVars(vs, t)
	}
	return vs
}

// addVars adds t's variables to vs.
func addVars(vs map[algebra.Var]bool, t algebra.TriplePattern) {
	for _, n := range [3]algebra.Node{t.S, t.P, t.O} {
		if n.IsVar() {
			vs[n.Var] = true
		}
	}
}

// tripleHas reports whether t holds v as subject or object.
func tripleHas(t algebra.TriplePattern, v algebra.Var) bool {
	return (t.S.IsVar() && t.S.Var == v) || (t.O.IsVar() && t.O.Var == v)
}

// shares reports whether t has a variable in gv that is not in outer
// (variables of the group's own, which connect its patterns).
func shares(gv map[algebra.Var]bool, t algebra.TriplePattern, outer map[algebra.Var]bool) bool {
	for _, n := range [3]algebra.Node{t.S, t.P, t.O} {
		if n.IsVar() && gv[n.Var] && !outer[n.Var] {
			return true
		}
	}
	return false
}

// cjTriple builds the cjOp of one triple pattern holding key as subject
// or object; its predicate is a constant and its other variable (if any)
// is neither key nor repeated.
func (ex *executor) cjTriple(tp algebra.TriplePattern, key algebra.Var) (*cjOp, map[algebra.Var]bool, bool, error) {
	t := &cjOp{kind: cjTriple, src: tp, keyPos: -1, other: -1}
	vars := map[algebra.Var]bool{}
	for k, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
		switch {
		case nd.IsVar() && nd.Var == key && k != 1 && t.keyPos < 0:
			t.keyPos = k
			t.pat[k] = kb.Any
		case nd.IsVar():
			if k == 1 || nd.Var == key || vars[nd.Var] {
				return nil, nil, false, nil
			}
			vars[nd.Var] = true
			t.pat[k] = kb.Any
			t.other, t.otherVar = k, nd.Var
		default:
			id, ok, err := ex.dict.lookup(nd.Term)
			if err != nil {
				return nil, nil, false, err
			}
			if !ok {
				t.missing = true
			}
			t.pat[k] = id
		}
	}
	return t, vars, t.keyPos >= 0, nil
}

func (n *countJoinNode) run(ex *executor, seed row, emit func(row) bool) error {
	if n.groupSlot < 0 && n.root.kind == cjTriple && len(n.root.subs) > 0 && !n.root.missing && cjSumOn {
		// One answer, the sum over the keys: the root pattern's weighted
		// matches are added up as they come, never sorted by key.
		total, held, err := n.weightedSum(ex, n.root)
		defer ex.mem.release(held)
		if err != nil {
			return err
		}
		return n.emitTotal(ex, seed, total, emit)
	}
	kc, held, err := n.counts(ex, n.root, nil)
	defer ex.mem.release(held)
	if err != nil {
		return err
	}
	if n.groupSlot >= 0 {
		return n.emitGroups(ex, seed, kc, emit)
	}
	var total int64
	for _, c := range kc.n {
		var carry uint64
		total, carry = addCount(total, c)
		if carry != 0 {
			return fmt.Errorf("eval: COUNT(*) over the join of %s overflows 64 bits", n.key)
		}
	}
	return n.emitTotal(ex, seed, total, emit)
}

// emitTotal emits the one answer without GROUP BY: total in every
// COUNT's slot.
func (n *countJoinNode) emitTotal(ex *executor, seed row, total int64, emit func(row) bool) error {
	return emitCount(ex, seed, total, emit, func(out row, id kb.ID) {
		for _, s := range n.slots {
			out[s] = id
		}
	})
}

// emitCount emits one row: seed's hidden bindings, and total as an
// xsd:integer in the slots set fills. Every operator that answers a
// COUNT without rows (store counts, counted joins, kind counts, path
// counts) ends here.
func emitCount(ex *executor, seed row, total int64, emit func(row) bool, set func(out row, id kb.ID)) error {
	out, _ := hiddenSeed(ex, seed)
	id, err := ex.dict.id(integerTerm(total))
	if err != nil {
		return err
	}
	set(out, id)
	if !emit(out) {
		return errStop
	}
	return nil
}

// emitGroups emits one answer per key value: the key and its count.
func (n *countJoinNode) emitGroups(ex *executor, seed row, kc keyCounts, emit func(row) bool) error {
	ids := map[int64]kb.ID{} // few distinct counts: one dictionary term each
	base, _ := hiddenSeed(ex, seed)
	pick := topCounts(kc.n, n.top, n.topDesc)
	for i, k := range kc.ids {
		if i&1023 == 1023 {
			if err := ex.ctx.Err(); err != nil {
				return err
			}
		}
		if pick != nil && !pick[i] {
			continue
		}
		c := kc.n[i]
		id, ok := ids[c]
		if !ok {
			var err error
			if id, err = ex.dict.id(integerTerm(c)); err != nil {
				return err
			}
			ids[c] = id
		}
		out := base.clone(len(base))
		out[n.groupSlot] = k
		for _, s := range n.slots {
			out[s] = id
		}
		if !emit(out) {
			return errStop
		}
	}
	return nil
}

// countJoinOp names the operator for the memory budget.
const countJoinOp = "a counted join (per-key counts)"

// counts evaluates op to its key counts; held is the memory charged for
// everything it built (released by the caller once the answer is out).
// With only non-nil, keys outside only may be left out: the caller
// needs no others. A triple pattern whose scan would read many more
// quads than only has keys is probed per key instead, so a small side
// never pays for a scan of a large one.
func (n *countJoinNode) counts(ex *executor, op *cjOp, only *keyCounts) (kc keyCounts, held int64, err error) {
	if op.kind == cjTriple {
		if only != nil && !op.missing {
			size, err := n.size(ex, op)
			if err != nil {
				return kc, 0, err
			}
			// A kept list is read whole for less than any probe.
			if int64(len(only.ids))*probeCost < size && !n.isKept(ex, op) {
				return n.probe(ex, op, only.ids)
			}
		}
		return n.scan(ex, op)
	}
	first, second := op.a, op.b
	if op.kind == cjJoin || op.kind == cjSemi {
		// The smaller side first: it restricts the other (EXISTS keeps
		// only the keys both sides have, whichever is read first).
		ea, err := n.estimate(ex, op.a)
		if err != nil {
			return kc, 0, err
		}
		eb, err := n.estimate(ex, op.b)
		if err != nil {
			return kc, 0, err
		}
		if eb < ea {
			first, second = op.b, op.a
		}
	}
	a, ha, err := n.counts(ex, first, only)
	held += ha
	if err != nil {
		return kc, held, err
	}
	restrict := &a
	if op.kind == cjUnion {
		restrict = only
	}
	b, hb, err := n.counts(ex, second, restrict)
	held += hb
	if err != nil {
		return kc, held, err
	}
	if err := ex.ctx.Err(); err != nil {
		return kc, held, err
	}
	if first != op.a {
		a, b = b, a
	}
	size := int64(len(a.ids))
	if op.kind == cjUnion {
		size += int64(len(b.ids))
	}
	bytes := size * 16
	if err := ex.mem.charge(bytes, countJoinOp); err != nil {
		return kc, held, err
	}
	held += bytes
	kc, err = mergeCounts(op.kind, a, b)
	return kc, held, err
}

// probeCost is how many scanned quads one per-key probe is worth (a
// probe is an index range lookup; a scanned quad is a copy and a share
// of a sort). Tests set it to 0 to probe whenever a side is restricted.
var probeCost int64 = 16

// existsCost is how many scanned quads deciding whether a part has a
// solution for one key is worth: a lookup that stops at the part's first
// solution, usually after one probe per chain link. Tests set it to 0.
var existsCost int64 = 4

// size returns an upper bound on the quads a scan of op reads.
func (n *countJoinNode) size(ex *executor, op *cjOp) (int64, error) {
	var total int64
	for _, g := range n.graphs {
		c, err := ex.ds.Count(ex.ctx, kb.Pattern{S: op.pat[0], P: op.pat[1], O: op.pat[2], G: g}, false)
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// estimate bounds the keys op yields from the sizes of its patterns.
func (n *countJoinNode) estimate(ex *executor, op *cjOp) (int64, error) {
	if op.kind == cjTriple {
		if op.missing {
			return 0, nil
		}
		return n.size(ex, op)
	}
	a, err := n.estimate(ex, op.a)
	if err != nil {
		return 0, err
	}
	b, err := n.estimate(ex, op.b)
	if err != nil {
		return 0, err
	}
	switch op.kind {
	case cjJoin:
		return min(a, b), nil
	case cjUnion:
		return a + b, nil
	}
	return a, nil // OPTIONAL, EXISTS, NOT EXISTS keep at most a's keys
}

// probe counts op's matches for each of keys (ascending) by an index
// lookup with the key bound.
func (n *countJoinNode) probe(ex *executor, op *cjOp, keys []kb.ID) (keyCounts, int64, error) {
	var kc keyCounts
	if len(op.subs) > 0 {
		return n.weighted(ex, op, keys)
	}
	bytes := int64(len(keys)) * 16
	if err := ex.mem.charge(bytes, countJoinOp); err != nil {
		return kc, 0, err
	}
	count := probeCounter(ex)
	for i, k := range keys {
		if i&1023 == 1023 {
			if err := ex.ctx.Err(); err != nil {
				return kc, bytes, err
			}
		}
		pat := op.pat
		pat[op.keyPos] = k
		var c int64
		for _, g := range n.graphs {
			p := kb.Pattern{S: pat[0], P: pat[1], O: pat[2], G: g}
			if !n.dedupe {
				m, err := count(p)
				if err != nil {
					return kc, bytes, err
				}
				c += m
				continue
			}
			var last kb.Quad
			j := 0
			err := scanMatch(ex, p, func(q kb.Quad) error {
				j++
				if ex.hidden[q.G] || (j > 1 && q.S == last.S && q.P == last.P && q.O == last.O) {
					return nil
				}
				last = q
				c++
				return nil
			})
			if err != nil {
				return kc, bytes, err
			}
		}
		if c > 0 {
			kc.ids = append(kc.ids, k)
			kc.n = append(kc.n, c)
		}
	}
	return kc, bytes, nil
}

// scan reads one triple pattern's matches into key counts.
func (n *countJoinNode) scan(ex *executor, op *cjOp) (keyCounts, int64, error) {
	var kc keyCounts
	if op.missing {
		return kc, 0, nil
	}
	if len(op.subs) > 0 {
		return n.weighted(ex, op, nil)
	}
	if kc, held, ok, err := n.scanKept(ex, op); ok || err != nil {
		return kc, held, err
	}
	return n.scanQuads(ex, op)
}

// scanQuads is scan of a pattern without parts, from its quads.
func (n *countJoinNode) scanQuads(ex *executor, op *cjOp) (keyCounts, int64, error) {
	var kc keyCounts
	var held int64
	var keys []kb.ID
	for _, g := range n.graphs {
		p := kb.Pattern{S: op.pat[0], P: op.pat[1], O: op.pat[2], G: g}
		c, err := ex.ds.Count(ex.ctx, p, false)
		if err != nil {
			return kc, held, err
		}
		bytes := (c + 1) * 8
		if err := ex.mem.charge(bytes, countJoinOp); err != nil {
			return kc, held, err
		}
		held += bytes
		keys = slices.Grow(keys, int(c))
		i := 0
		var last kb.Quad
		err = scanMatch(ex, p, func(q kb.Quad) error {
			if i++; i&0xffff == 0 {
				if err := ex.ctx.Err(); err != nil {
					return err
				}
			}
			if n.dedupe {
				if ex.hidden[q.G] || (i > 1 && q.S == last.S && q.P == last.P && q.O == last.O) {
					return nil
				}
				last = q
			}
			if op.keyPos == 0 {
				keys = append(keys, q.S)
			} else {
				keys = append(keys, q.O)
			}
			return nil
		})
		if err != nil {
			return kc, held, err
		}
	}
	sortIDs(keys)
	bytes := int64(len(keys)) * 8 // the counts beside the reused keys
	if err := ex.mem.charge(bytes, countJoinOp); err != nil {
		return kc, held, err
	}
	held += bytes
	kc.n = make([]int64, 0, len(keys))
	out := keys[:0]
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		out = append(out, keys[i])
		kc.n = append(kc.n, int64(j-i))
		i = j
	}
	kc.ids = out
	return kc, held, nil
}

// weighted counts a triple pattern with parts on its other variable:
// each match (k, v) adds to k the product over the parts of count(v) (⋈),
// max(count(v), 1) (⟕), [count(v) > 0] (EXISTS) or [count(v) = 0] (NOT
// EXISTS, MINUS). keys nil scans the pattern; otherwise only those keys
// (ascending) are read, each by a lookup with the key bound.
//
// The matches are read first, and the parts are then evaluated only for
// the distinct values v the matches reach: a part that reads a large
// predicate is restricted to those values (probed per value when they are
// few), and an EXISTS, NOT EXISTS or MINUS part over few values is decided
// per value by a lookup that stops at its first solution.
func (n *countJoinNode) weighted(ex *executor, op *cjOp, keys []kb.ID) (keyCounts, int64, error) {
	return n.weightedInto(ex, op, keys, nil)
}

// weightedSum is weighted's sum over every key: the COUNT(*) of a root
// pattern, added up as the matches come instead of sorted by key.
func (n *countJoinNode) weightedSum(ex *executor, op *cjOp) (int64, int64, error) {
	var total int64
	_, held, err := n.weightedInto(ex, op, nil, &total)
	return total, held, err
}

// weightedInto is weighted; with sum non-nil it adds every weight to
// *sum and returns no key counts.
func (n *countJoinNode) weightedInto(ex *executor, op *cjOp, keys []kb.ID, sum *int64) (keyCounts, int64, error) {
	var kc keyCounts
	var held int64
	add := func(w int64) error {
		var carry uint64
		if *sum, carry = addCount(*sum, w); carry != 0 {
			return fmt.Errorf("eval: a counted join's count overflows 64 bits")
		}
		return nil
	}
	// Restrict the parts when one of them is large beside the matches
	// (bounded by the keys read, or by the pattern's size when it is
	// scanned); otherwise each part is read whole before the scan, which
	// costs no more than collecting the values first.
	reach, err := n.size(ex, op)
	if err != nil {
		return kc, held, err
	}
	if keys != nil {
		reach = min(reach, int64(len(keys)))
	}
	restrict := false
	for _, sub := range op.subs {
		est, err := n.estimate(ex, sub.op)
		if err != nil {
			return kc, held, err
		}
		cost := probeCost
		if sub.kind == cjSemi || sub.kind == cjAnti {
			cost = existsCost
		}
		if reach*cost < est {
			restrict = true
			break
		}
	}
	subs := make([]keyCounts, len(op.subs))
	if !restrict {
		for i, sub := range op.subs {
			c, h, err := n.counts(ex, sub.op, nil)
			held += h
			if err != nil {
				return kc, held, err
			}
			subs[i] = c
		}
	}
	// Matches often come in ascending order of v (an index sorted on
	// it): each part's list is then walked forward, galloping, instead of
	// searched from the start.
	// Each part remembers the value it was last searched for: a weight
	// that stops at a part with no count leaves the later parts'
	// positions at older values, which may lie above the next one.
	at := make([]int, len(op.subs))
	lastV := make([]kb.ID, len(op.subs))
	weight := func(v kb.ID) (int64, error) {
		w := int64(1)
		for i, sub := range op.subs {
			var c int64
			var j int
			back := v < lastV[i]
			lastV[i] = v
			if back {
				j, _ = slices.BinarySearch(subs[i].ids, v)
			} else {
				j = gallop(subs[i].ids, at[i], v)
			}
			at[i] = j
			if j < len(subs[i].ids) && subs[i].ids[j] == v {
				c = subs[i].n[j]
			}
			switch sub.kind {
			case cjLeft:
				c = max(c, 1)
			case cjSemi:
				c = min(c, 1)
			case cjAnti:
				c = 1 - min(c, 1)
			}
			hi, lo := bits.Mul64(uint64(w), uint64(c))
			if hi != 0 || lo>>63 != 0 {
				return 0, fmt.Errorf("eval: a counted join's count overflows 64 bits")
			}
			if w = int64(lo); w == 0 {
				return 0, nil
			}
		}
		return w, nil
	}
	// pairs holds (key, weight), or, restricted, (key, value) until the
	// parts are known.
	type pair struct {
		k kb.ID
		w int64
	}
	var pairs []pair
	charged := 0 // the pairs charged to the budget
	if keys == nil && reach > 0 && (restrict || sum == nil) {
		// A scan yields at most the pattern's size: one allocation, not
		// a slice grown (and copied) a dozen times on the way. Keyed on
		// the object, unrestricted matches come in key order and add up
		// to one pair per key: at most the predicate's distinct objects.
		want := reach
		if !restrict && op.keyPos == 2 {
			if ps, ok := ex.ds.(kb.PredicateStats); ok && op.pat[1] != kb.Any {
				if _, objs, ok := ps.PredicateDistinct(op.pat[1]); ok && objs >= 0 {
					want = min(want, objs)
				}
			}
		}
		if err := ex.mem.charge(want*16, countJoinOp); err != nil {
			return kc, held, err
		}
		held += want * 16
		charged = int(want)
		pairs = make([]pair, 0, want)
	}
	visit := func(p kb.Pattern) error {
		i := 0
		var last kb.Quad
		return scanMatch(ex, p, func(q kb.Quad) error {
			if i++; i&0xffff == 0 {
				if err := ex.ctx.Err(); err != nil {
					return err
				}
			}
			if n.dedupe {
				if ex.hidden[q.G] || (i > 1 && q.S == last.S && q.P == last.P && q.O == last.O) {
					return nil
				}
				last = q
			}
			ids := [3]kb.ID{q.S, q.P, q.O}
			w := int64(ids[op.other])
			if !restrict {
				var err error
				if w, err = weight(ids[op.other]); err != nil || w == 0 {
					return err
				}
				if sum != nil {
					return add(w)
				}
			}
			if !restrict && len(pairs) > 0 && pairs[len(pairs)-1].k == ids[op.keyPos] {
				// Matches in key order (P-O-S-G counted on the object)
				// add up as they come: one pair per key, not per match.
				var carry uint64
				last := &pairs[len(pairs)-1]
				if last.w, carry = addCount(last.w, w); carry != 0 {
					return fmt.Errorf("eval: a counted join's count overflows 64 bits")
				}
				return nil
			}
			if len(pairs) >= charged {
				if err := ex.mem.charge(0x1000*16, countJoinOp); err != nil {
					return err
				}
				held += 0x1000 * 16
				charged += 0x1000
			}
			pairs = append(pairs, pair{ids[op.keyPos], w})
			return nil
		})
	}
	for _, g := range n.graphs {
		p := kb.Pattern{S: op.pat[0], P: op.pat[1], O: op.pat[2], G: g}
		if keys == nil {
			if err := visit(p); err != nil {
				return kc, held, err
			}
			continue
		}
		for i, k := range keys {
			if i&1023 == 1023 {
				if err := ex.ctx.Err(); err != nil {
					return kc, held, err
				}
			}
			kp := p
			if op.keyPos == 0 {
				kp.S = k
			} else {
				kp.O = k
			}
			if err := visit(kp); err != nil {
				return kc, held, err
			}
		}
	}
	if restrict && len(pairs) > 0 {
		// The parts at the distinct values reached, then the weights.
		vs := make([]kb.ID, len(pairs))
		for i, p := range pairs {
			vs[i] = kb.ID(p.w)
		}
		bytes := int64(len(vs)) * 8
		if err := ex.mem.charge(bytes, countJoinOp); err != nil {
			return kc, held, err
		}
		held += bytes
		sortIDs(vs)
		only := &keyCounts{ids: slices.Compact(vs)}
		for i, sub := range op.subs {
			c, h, err := n.subCounts(ex, sub, only)
			held += h
			if err != nil {
				return kc, held, err
			}
			subs[i] = c
		}
		clear(at)
		clear(lastV)
		out := pairs[:0]
		for _, p := range pairs {
			w, err := weight(kb.ID(p.w))
			if err != nil {
				return kc, held, err
			}
			if w == 0 {
				continue
			}
			if sum != nil {
				if err := add(w); err != nil {
					return kc, held, err
				}
				continue
			}
			out = append(out, pair{p.k, w})
		}
		pairs = out
	}
	if sum != nil {
		return kc, held, nil
	}
	if !slices.IsSortedFunc(pairs, func(a, b pair) int { return cmp.Compare(a.k, b.k) }) {
		bytes := int64(len(pairs)) * 16 // the radix sort's buffer
		if err := ex.mem.charge(bytes, countJoinOp); err != nil {
			return kc, held, err
		}
		held += bytes
		sortPairs(pairs, func(p *pair) kb.ID { return p.k })
	}
	distinct := 0
	for i := range pairs {
		if i == 0 || pairs[i].k != pairs[i-1].k {
			distinct++
		}
	}
	if err := ex.mem.charge(int64(distinct)*16, countJoinOp); err != nil {
		return kc, held, err
	}
	held += int64(distinct) * 16
	kc.ids = make([]kb.ID, 0, distinct)
	kc.n = make([]int64, 0, distinct)
	for i := 0; i < len(pairs); {
		k, total := pairs[i].k, int64(0)
		for ; i < len(pairs) && pairs[i].k == k; i++ {
			var carry uint64
			if total, carry = addCount(total, pairs[i].w); carry != 0 {
				return kc, held, fmt.Errorf("eval: a counted join's count overflows 64 bits")
			}
		}
		kc.ids = append(kc.ids, k)
		kc.n = append(kc.n, total)
	}
	return kc, held, nil
}

// gallop returns the first index i ≥ from with ids[i] ≥ v (len(ids) if
// none), for ids ascending and every id before from below v: steps of
// doubling length from from, then a binary search in the last step.
func gallop(ids []kb.ID, from int, v kb.ID) int {
	if from >= len(ids) || ids[from] >= v {
		return from
	}
	lo, step := from, 1 // ids[lo] < v
	for lo+step < len(ids) && ids[lo+step] < v {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(ids))
	j, _ := slices.BinarySearch(ids[lo+1:hi], v)
	return lo + 1 + j
}

// subCounts evaluates a chained part at the values in only: its counts,
// or, for EXISTS, NOT EXISTS and MINUS parts whose values are few beside
// the part's size, 1 for each value where the part has a solution, found
// by lookups that stop at the first.
func (n *countJoinNode) subCounts(ex *executor, sub cjSub, only *keyCounts) (keyCounts, int64, error) {
	whole := false
	if only != nil && (sub.kind == cjSemi || sub.kind == cjAnti) {
		est, err := n.estimate(ex, sub.op)
		if err != nil {
			return keyCounts{}, 0, err
		}
		// A list the store keeps is read whole once the lookups would
		// cost an eighth of its sort: sorted by this query, it is free
		// for the later ones.
		whole = n.keepable(ex, sub.op) && (n.isKept(ex, sub.op) || int64(len(only.ids))*existsCost*8 >= est)
		if int64(len(only.ids))*existsCost < est && !whole {
			var kc keyCounts
			bytes := int64(len(only.ids)) * 16
			if err := ex.mem.charge(bytes, countJoinOp); err != nil {
				return kc, 0, err
			}
			// The values ascend: each pattern of the part looks its
			// keys up through a cursor of its own, a forward step from
			// its last lookup instead of a search of the whole index
			// range (a graph's every quad when the graph is bound).
			cur := newCJCursors(ex)
			for i, v := range only.ids {
				if i&1023 == 1023 {
					if err := ex.ctx.Err(); err != nil {
						return kc, bytes, err
					}
				}
				ok, err := n.exists(ex, sub.op, v, cur)
				if err != nil {
					return kc, bytes, err
				}
				if ok {
					kc.ids = append(kc.ids, v)
					kc.n = append(kc.n, 1)
				}
			}
			return kc, bytes, nil
		}
	}
	if whole {
		return n.counts(ex, sub.op, nil) // scanKept: read, or built and kept
	}
	return n.counts(ex, sub.op, only)
}

// errFound stops a scan at its first match.
var errFound = errors.New("found")

// exists reports whether op has a solution with key k, looking its
// patterns up through cur (nil: the store's plain lookups).
func (n *countJoinNode) exists(ex *executor, op *cjOp, k kb.ID, cur *cjCursors) (bool, error) {
	switch op.kind {
	case cjTriple:
		if op.missing {
			return false, nil
		}
		pat := op.pat
		pat[op.keyPos] = k
		if done, ok, err := n.existsScan(ex, op, pat, cur); done {
			return ok, err
		}
		for _, g := range n.graphs {
			p := kb.Pattern{S: pat[0], P: pat[1], O: pat[2], G: g}
			err := scanMatch(ex, p, func(q kb.Quad) error {
				if n.dedupe && ex.hidden[q.G] {
					return nil
				}
				if len(op.subs) > 0 {
					ids := [3]kb.ID{q.S, q.P, q.O}
					ok, err := n.subsHold(ex, op, ids[op.other], cur)
					if err != nil || !ok {
						return err
					}
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
		return false, nil
	case cjUnion:
		ok, err := n.exists(ex, op.a, k, cur)
		if err != nil || ok {
			return ok, err
		}
		return n.exists(ex, op.b, k, cur)
	}
	ok, err := n.exists(ex, op.a, k, cur)
	if err != nil || !ok || op.kind == cjLeft {
		return ok, err
	}
	okb, err := n.exists(ex, op.b, k, cur)
	if err != nil {
		return false, err
	}
	if op.kind == cjAnti {
		return !okb, nil
	}
	return okb, nil // ⋈ and EXISTS
}

// subsHold reports whether a match of op with other value v has a solution
// of every part chained to it: each ⋈ or EXISTS part has one at v, each
// NOT EXISTS or MINUS part none (OPTIONAL parts always hold).
func (n *countJoinNode) subsHold(ex *executor, op *cjOp, v kb.ID, cur *cjCursors) (bool, error) {
	for _, sub := range op.subs {
		if sub.kind == cjLeft {
			continue
		}
		ok, err := n.exists(ex, sub.op, v, cur)
		if err != nil {
			return false, err
		}
		if ok == (sub.kind == cjAnti) {
			return false, nil
		}
	}
	return true, nil
}

// mergeCounts combines two key-count lists by kind (see countJoinNode).
func mergeCounts(kind cjKind, a, b keyCounts) (keyCounts, error) {
	if kind != cjUnion {
		return probeCounts(kind, a, b)
	}
	var out keyCounts
	out.ids = make([]kb.ID, 0, len(a.ids)+len(b.ids))
	out.n = make([]int64, 0, len(a.ids)+len(b.ids))
	i, j := 0, 0
	for i < len(a.ids) || j < len(b.ids) {
		var ca, cb int64
		var id kb.ID
		switch {
		case j == len(b.ids) || (i < len(a.ids) && a.ids[i] < b.ids[j]):
			id, ca = a.ids[i], a.n[i]
			i++
		case i == len(a.ids) || b.ids[j] < a.ids[i]:
			id, cb = b.ids[j], b.n[j]
			j++
		default:
			id, ca, cb = a.ids[i], a.n[i], b.n[j]
			i++
			j++
		}
		s, carry := addCount(ca, cb)
		if carry != 0 {
			return out, fmt.Errorf("eval: a counted join's count overflows 64 bits")
		}
		if s > 0 {
			out.ids = append(out.ids, id)
			out.n = append(out.n, s)
		}
	}
	return out, nil
}

// addCount adds two non-negative counts; carry is non-zero past int64.
func addCount(a, b int64) (int64, uint64) {
	s := uint64(a) + uint64(b)
	return int64(s), s >> 63
}

// sortIDs sorts IDs ascending: a radix sort on 16-bit digits when they fit
// 32 bits (the native store's do), slices.Sort otherwise.
func sortIDs(a []kb.ID) {
	if slices.IsSorted(a) {
		return // an index sorted on the key (P-O-S-G, keys in object position)
	}
	if len(a) < 256 {
		slices.Sort(a)
		return
	}
	var hi kb.ID
	for _, v := range a {
		hi |= v
	}
	if hi>>32 != 0 {
		slices.Sort(a)
		return
	}
	tmp := make([]kb.ID, len(a))
	src, dst := a, tmp
	for shift := uint(0); shift < 32; shift += 16 {
		if hi>>shift == 0 {
			break
		}
		var cnt [1 << 16]int
		for _, v := range src {
			cnt[(v>>shift)&0xffff]++
		}
		sum := 0
		for k, c := range cnt {
			cnt[k] = sum
			sum += c
		}
		for _, v := range src {
			d := (v >> shift) & 0xffff
			dst[cnt[d]] = v
			cnt[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

func (n *countJoinNode) children() []node { return nil }

func (n *countJoinNode) describe() string {
	var b strings.Builder
	if n.groupSlot >= 0 {
		fmt.Fprintf(&b, "CountJoin on %s (per-key counts, no rows, one group per key%s): ", n.key, n.topText())
	} else {
		fmt.Fprintf(&b, "CountJoin on %s (per-key counts, no rows): ", n.key)
	}
	n.root.write(&b)
	return b.String()
}

// write prints op as a compact algebra expression for --explain.
func (op *cjOp) write(b *strings.Builder) {
	name := [...]string{cjJoin: "join", cjLeft: "optional", cjSemi: "exists", cjAnti: "notexists", cjUnion: "union"}
	if op.kind == cjTriple {
		b.WriteString(op.src.String())
		for _, sub := range op.subs {
			b.WriteString(" (" + name[sub.kind] + " on " + op.otherVar.String() + " ")
			sub.op.write(b)
			b.WriteString(")")
		}
		return
	}
	b.WriteString("(" + name[op.kind] + " ")
	op.a.write(b)
	b.WriteString(" ")
	op.b.write(b)
	b.WriteString(")")
}

// cjSumOn lets a root pattern's weights be summed without sorting them
// by key; tests turn it off to compare with the sorted lists.
var cjSumOn = true

// sortPairs sorts a by key(…) ascending, stable: a radix sort on 16-bit
// digits when the keys fit 32 bits (the native store's do), a stable
// comparison sort otherwise.
func sortPairs[T any](a []T, key func(*T) kb.ID) {
	var hi kb.ID
	for i := range a {
		hi |= key(&a[i])
	}
	if len(a) < 256 || hi>>32 != 0 {
		slices.SortStableFunc(a, func(x, y T) int { return cmp.Compare(key(&x), key(&y)) })
		return
	}
	tmp := make([]T, len(a))
	src, dst := a, tmp
	for shift := uint(0); shift < 32; shift += 16 {
		if hi>>shift == 0 {
			break
		}
		var cnt [1 << 16]int
		for i := range src {
			cnt[(key(&src[i])>>shift)&0xffff]++
		}
		sum := 0
		for k, c := range cnt {
			cnt[k] = sum
			sum += c
		}
		for i := range src {
			d := (key(&src[i]) >> shift) & 0xffff
			dst[cnt[d]] = src[i]
			cnt[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// cjKeyChoiceOn lets a COUNT(*) without GROUP BY be keyed on any of its
// variables (cjCandidates); tests turn it off to key it on the first
// pattern's subject or object as written.
var cjKeyChoiceOn = true

// cjCandidates returns the distinct variables in subject or object
// position of triples, in order of appearance: the keys a counted join
// may be compiled under.
func cjCandidates(triples []algebra.TriplePattern) []algebra.Node {
	var out []algebra.Node
	seen := map[algebra.Var]bool{}
	for _, t := range triples {
		for _, nd := range [2]algebra.Node{t.S, t.O} {
			if nd.IsVar() && !seen[nd.Var] {
				seen[nd.Var] = true
				out = append(out, nd)
			}
		}
	}
	return out
}

// sortCost estimates, in sorted quads, what op's evaluation costs by
// key: a triple pattern counted on its subject yields its keys in no
// useful order (the store reads a predicate's quads in P-O-S-G order)
// and is sorted unless the store keeps its list already (isKept), one
// counted on its object comes sorted; a pattern with parts pays
// weighCost per match and part; the root
// pattern of a sum (run's weightedSum) is never sorted. Every scanned
// quad adds 1/scanShare of a sorted one, and the larger side of a join
// that counts probes per key of the smaller one (counts) costs those
// probes instead: keying a join of a small and a large pattern on the
// large one's object sorts nothing but scans all of it, where keying it
// on the shared subject probes the large one a few times.
func (n *countJoinNode) sortCost(ex *executor, op *cjOp, root bool) (int64, error) {
	var cost int64
	if op.kind != cjTriple {
		first, second := op.a, op.b
		var keys int64 = -1
		if op.kind == cjJoin || op.kind == cjSemi {
			ea, err := n.estimate(ex, op.a)
			if err != nil {
				return 0, err
			}
			eb, err := n.estimate(ex, op.b)
			if err != nil {
				return 0, err
			}
			if eb < ea {
				first, second = op.b, op.a
			}
			keys = min(ea, eb)
		}
		a, err := n.sortCost(ex, first, false)
		if err != nil {
			return 0, err
		}
		if keys >= 0 && second.kind == cjTriple && !second.missing {
			size, err := n.size(ex, second)
			if err != nil {
				return 0, err
			}
			if keys*probeCost < size {
				return a + keys*probeCost/scanShare, nil
			}
		}
		b, err := n.sortCost(ex, second, false)
		return a + b, err
	}
	var size int64
	if !op.missing {
		c, err := n.size(ex, op)
		if err != nil {
			return 0, err
		}
		size = c
	}
	cost += size / scanShare
	summed := root && n.groupSlot < 0 && len(op.subs) > 0
	if op.keyPos == 0 && !summed && !n.isKept(ex, op) {
		cost += size
	}
	cost += size * int64(len(op.subs)) * weighCost / 2
	for _, sub := range op.subs {
		c, err := n.sortCost(ex, sub.op, false)
		if err != nil {
			return 0, err
		}
		// weightedInto evaluates a part only at the values the matches
		// reach when that is cheaper: a lookup per value at most.
		cost += min(c, size*probeCost/scanShare)
	}
	return cost, nil
}

// weighCost is what one match of a pattern with parts costs per part, in
// half sorted quads: each match looks its other value up in every part's
// list (weightedInto), a search in a list of up to millions of keys,
// measured on a 5M-triple store at about one and a half sorted quads (a
// star of three 1M-quad predicates: 107 CPU-ms weighed, 28 summed from
// kept lists). Tests set it to 0 to key on what sorts least alone.
var weighCost int64 = 3

// scanShare is how many scanned quads cost as much as one sorted quad
// in sortCost.
const scanShare = 4
