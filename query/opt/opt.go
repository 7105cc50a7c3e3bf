package opt

import (
	"context"
	"sort"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// Stats is what the optimizer asks of the store.
type Stats interface {
	// Count returns how many quads match the constant positions of tp
	// (its variables are wildcards) in graph: the zero Node for the
	// query's default graph, an IRI for one named graph, a variable for
	// any named graph. A constant the store does not hold gives 0.
	Count(ctx context.Context, tp algebra.TriplePattern, graph algebra.Node) (float64, error)
	// PredicateDistinct returns how many distinct subjects and objects
	// the quads with predicate p have (possibly approximate), or false
	// when the store does not know.
	PredicateDistinct(p kb.Term) (subjects, objects int64, ok bool)
}

// Options configure the optimizer.
type Options struct {
	// NoOptimize runs the algebra as written: triple patterns in
	// syntactic order, FILTERs at the end of their group, and under a
	// join only BGPs, paths and VALUES tables fed the left side's
	// bindings (everything else evaluated alone and joined by value).
	NoOptimize bool
}

// Plan is annotated algebra: Root is the rewritten pattern (filters moved,
// joins of BGPs merged, BGPs with their triple patterns in execution
// order), and the methods give the annotations the evaluator follows.
type Plan struct {
	// Root is the pattern to evaluate.
	Root algebra.Op
	// NoOptimize reports that the plan runs the algebra as written.
	NoOptimize bool

	bgps     map[*algebra.BGP]*BGPPlan
	isolated map[algebra.Op]bool
	replaced map[algebra.Op]algebra.Op
	alone    map[algebra.Op]*algebra.BGP
}

// BGPPlan annotates a BGP of Plan.Root, whose Triples are already in
// execution order.
type BGPPlan struct {
	// Bound lists the variables bound on entry (fed by an enclosing
	// join), sorted.
	Bound []algebra.Var
	// Counts[i] is the store's count for the constant positions of
	// Triples[i].
	Counts []float64
	// Est[i] is the estimated rows per input row of Triples[i] at its
	// place in the order.
	Est []float64
	// Filters[i] are the FILTER conjuncts to test once i patterns have
	// matched (len(Triples)+1 entries; Filters[0] before any).
	Filters [][]algebra.Expr
	// Rows is the estimated rows per run.
	Rows float64
	// Ranged[i] reports that Triples[i]'s object, where it is not bound,
	// is read through the value order of its predicate: only the objects
	// passing the filters over it (RangeStats). Counts[i] counts those
	// quads. Nil when no pattern is.
	Ranged []bool
}

// BGP returns the annotations of a BGP of Root (nil for a BGP the
// optimizer has not seen).
func (p *Plan) BGP(b *algebra.BGP) *BGPPlan { return p.bgps[b] }

// Isolated reports whether op, reached with bindings from an enclosing
// join, must be evaluated on its own and joined by value rather than fed
// those bindings.
func (p *Plan) Isolated(op algebra.Op) bool { return p.isolated[op] }

// Pattern returns the rewritten form of an EXISTS pattern (or of Root's
// original pattern); op itself when the optimizer left it unchanged.
func (p *Plan) Pattern(op algebra.Op) algebra.Op {
	if r, ok := p.replaced[op]; ok {
		return r
	}
	return op
}

// Alone returns the plan of a basic graph pattern that the plan also
// feeds bindings — the right side of a join or an OPTIONAL (keyed by its
// planned form in Root) or an EXISTS pattern (keyed by the pattern as
// written) —
// planned a second time with no variable bound on entry, or nil. The
// evaluator may evaluate that form once, hash it on the shared variables
// and join by value (a hash left join or semi-join) instead of evaluating
// the fed form once per input row; the results are the same because a
// BGP fed bindings yields exactly its solutions compatible with them.
func (p *Plan) Alone(op algebra.Op) *algebra.BGP { return p.alone[op] }

// Optimize plans op. It stops with ctx's error when ctx ends (estimating
// and ordering a huge BGP take a while).
func Optimize(ctx context.Context, op algebra.Op, st Stats, o Options) (*Plan, error) {
	p := &Plan{
		NoOptimize: o.NoOptimize,
		bgps:       map[*algebra.BGP]*BGPPlan{},
		isolated:   map[algebra.Op]bool{},
		replaced:   map[algebra.Op]algebra.Op{},
		alone:      map[algebra.Op]*algebra.BGP{},
	}
	w := &optimizer{ctx: ctx, st: st, plan: p, rewrite: !o.NoOptimize}
	root, err := w.walk(op, scope{seed: VarSet{}})
	if err != nil {
		return nil, err
	}
	p.Root = root
	if root != op {
		p.replaced[op] = root
	}
	return p, nil
}

type optimizer struct {
	ctx     context.Context
	st      Stats
	plan    *Plan
	rewrite bool // false: Options.NoOptimize
}

// scope is what an operator is evaluated in.
type scope struct {
	seed       VarSet       // variables possibly bound on entry
	graph      algebra.Node // zero: the default graph
	substitute bool         // inside EXISTS: bindings substituted everywhere
}

func (sc scope) with(seed VarSet) scope { sc.seed = seed; return sc }

// feedable reports whether op may be fed the seed's bindings.
func (w *optimizer) feedable(op algebra.Op, seed VarSet) bool {
	if !w.rewrite {
		switch op.(type) {
		case *algebra.BGP, *algebra.Path, *algebra.Table:
			return true
		}
		return false
	}
	return seedSafe(op, seed)
}

func (w *optimizer) walk(op algebra.Op, sc scope) (algebra.Op, error) {
	if s, ok := op.(*algebra.Service); ok && ServiceSeeded(s, sc.seed) {
		return op, nil // fed the seed's values by the evaluator
	}
	iso := len(sc.seed) > 0 && (isBarrier(op) || !sc.substitute && !w.feedable(op, sc.seed))
	if iso {
		sc.seed = VarSet{}
	}
	out, err := w.op(op, sc)
	if err != nil {
		return nil, err
	}
	if iso {
		w.plan.isolated[out] = true
	}
	return out, nil
}

func (w *optimizer) op(op algebra.Op, sc scope) (algebra.Op, error) {
	switch o := op.(type) {
	case *algebra.BGP:
		return w.bgp(o, o.Triples, nil, sc)
	case *algebra.Join:
		if t, ok := o.Left.(*algebra.Table); ok && t.IsUnit() {
			return w.walk(o.Right, sc) // Join(Z, R) = R
		}
		if w.rewrite {
			if triples, ok := bgpTriples(o); ok {
				return w.bgp(nil, triples, nil, sc)
			}
		}
		left, err := w.walk(o.Left, sc)
		if err != nil {
			return nil, err
		}
		right, err := w.walk(o.Right, sc.with(sc.seed.union(Maybe(o.Left))))
		if err != nil {
			return nil, err
		}
		if !w.plan.isolated[right] {
			if err := w.planAlone(right, o.Right, sc); err != nil {
				return nil, err
			}
		}
		if left == o.Left && right == o.Right {
			return o, nil
		}
		return &algebra.Join{Left: left, Right: right}, nil
	case *algebra.LeftJoin:
		left, err := w.walk(o.Left, sc)
		if err != nil {
			return nil, err
		}
		rsc := sc.with(sc.seed.union(Maybe(o.Left)))
		right, err := w.walk(o.Right, rsc)
		if err != nil {
			return nil, err
		}
		if err := w.planAlone(right, o.Right, sc); err != nil {
			return nil, err
		}
		if err := w.exprs(o.Exprs, rsc.with(rsc.seed.union(Maybe(o.Right)))); err != nil {
			return nil, err
		}
		if left == o.Left && right == o.Right {
			return o, nil
		}
		return &algebra.LeftJoin{Left: left, Right: right, Exprs: o.Exprs}, nil
	case *algebra.Filter:
		if w.rewrite {
			if triples, ok := bgpTriples(o.Input); ok {
				if err := w.exprs(o.Exprs, sc.with(sc.seed.union(Maybe(o.Input)))); err != nil {
					return nil, err
				}
				b, _ := o.Input.(*algebra.BGP)
				return w.bgp(b, triples, o.Exprs, sc)
			}
			if pushed, ok := pushFilter(o); ok {
				return w.walk(pushed, sc)
			}
		}
		if err := w.exprs(o.Exprs, sc.with(sc.seed.union(Maybe(o.Input)))); err != nil {
			return nil, err
		}
		input, err := w.walk(o.Input, sc)
		if err != nil {
			return nil, err
		}
		if input == o.Input {
			return o, nil
		}
		return &algebra.Filter{Exprs: o.Exprs, Input: input}, nil
	case *algebra.Union:
		left, err := w.walk(o.Left, sc)
		if err != nil {
			return nil, err
		}
		right, err := w.walk(o.Right, sc)
		if err != nil {
			return nil, err
		}
		if left == o.Left && right == o.Right {
			return o, nil
		}
		return &algebra.Union{Left: left, Right: right}, nil
	case *algebra.Minus:
		if f, ok := w.minusAsNotExists(o, sc); ok {
			if f == o.Left {
				return w.walk(f, sc)
			}
			return w.op(f, sc)
		}
		left, err := w.walk(o.Left, sc)
		if err != nil {
			return nil, err
		}
		right, err := w.walk(o.Right, sc.with(VarSet{}))
		if err != nil {
			return nil, err
		}
		if left == o.Left && right == o.Right {
			return o, nil
		}
		return &algebra.Minus{Left: left, Right: right}, nil
	case *algebra.Graph:
		inner := sc
		inner.graph = o.Name
		if o.Name.IsVar() {
			inner.seed = sc.seed.union(VarSet{o.Name.Var: true})
		}
		input, err := w.walk(o.Input, inner)
		if err != nil {
			return nil, err
		}
		if input == o.Input {
			return o, nil
		}
		return &algebra.Graph{Name: o.Name, Input: input}, nil
	case *algebra.Extend:
		input, err := w.walk(o.Input, sc)
		if err != nil {
			return nil, err
		}
		if err := w.exprs([]algebra.Expr{o.Expr}, sc.with(sc.seed.union(Maybe(o.Input)))); err != nil {
			return nil, err
		}
		if input == o.Input {
			return o, nil
		}
		return &algebra.Extend{Input: input, Var: o.Var, Expr: o.Expr}, nil
	case *algebra.Group:
		input, err := w.walk(o.Input, sc)
		if err != nil {
			return nil, err
		}
		esc := sc.with(sc.seed.union(Maybe(o.Input)))
		for _, k := range o.Keys {
			if err := w.exprs([]algebra.Expr{k.Expr}, esc); err != nil {
				return nil, err
			}
		}
		for _, a := range o.Aggregates {
			if a.Aggregate != nil && a.Aggregate.Expr != nil {
				if err := w.exprs([]algebra.Expr{a.Aggregate.Expr}, esc); err != nil {
					return nil, err
				}
			}
		}
		if input == o.Input {
			return o, nil
		}
		return &algebra.Group{Keys: o.Keys, Aggregates: o.Aggregates, Input: input}, nil
	case *algebra.Project:
		input, err := w.walk(o.Input, sc)
		if err != nil || input == o.Input {
			return o, err
		}
		return &algebra.Project{Vars: o.Vars, Input: input}, nil
	case *algebra.Distinct:
		input, err := w.walk(o.Input, sc)
		if err != nil || input == o.Input {
			return o, err
		}
		return &algebra.Distinct{Input: input}, nil
	case *algebra.Reduced:
		input, err := w.walk(o.Input, sc)
		if err != nil || input == o.Input {
			return o, err
		}
		return &algebra.Reduced{Input: input}, nil
	case *algebra.OrderBy:
		input, err := w.walk(o.Input, sc)
		if err != nil {
			return nil, err
		}
		esc := sc.with(sc.seed.union(Maybe(o.Input)))
		for _, c := range o.Conditions {
			if err := w.exprs([]algebra.Expr{c.Expr}, esc); err != nil {
				return nil, err
			}
		}
		if input == o.Input {
			return o, nil
		}
		return &algebra.OrderBy{Conditions: o.Conditions, Input: input}, nil
	case *algebra.Slice:
		input, err := w.walk(o.Input, sc)
		if err != nil || input == o.Input {
			return o, err
		}
		return &algebra.Slice{Offset: o.Offset, Limit: o.Limit, Input: input}, nil
	}
	// Path, Table and Service (its pattern runs remotely) are left as
	// they are.
	return op, nil
}

// exprs plans the EXISTS patterns inside es, evaluated in sc with the
// bindings substituted.
func (w *optimizer) exprs(es []algebra.Expr, sc scope) error {
	for _, e := range es {
		if err := w.expr(e, sc); err != nil {
			return err
		}
	}
	return nil
}

func (w *optimizer) expr(e algebra.Expr, sc scope) error {
	switch x := e.(type) {
	case *algebra.FuncExpr:
		return w.exprs(x.Args, sc)
	case *algebra.BuiltinExpr:
		return w.exprs(x.Args, sc)
	case *algebra.BinaryExpr:
		if err := w.expr(x.Left, sc); err != nil {
			return err
		}
		return w.expr(x.Right, sc)
	case *algebra.UnaryExpr:
		return w.expr(x.Arg, sc)
	case *algebra.InExpr:
		if err := w.expr(x.Arg, sc); err != nil {
			return err
		}
		return w.exprs(x.List, sc)
	case *algebra.ExistsExpr:
		sub := sc
		sub.substitute = true
		p, err := w.walk(x.Pattern, sub)
		if err != nil {
			return err
		}
		if p != x.Pattern {
			w.plan.replaced[x.Pattern] = p
		}
		return w.planAlone(x.Pattern, x.Pattern, sc)
	}
	return nil
}

// planAlone plans written, a pattern the plan feeds bindings, a second
// time with none, and records it under key (see Plan.Alone) when it is a
// basic graph pattern (a BGP or joins of BGPs) without filters: only then
// is the fed form the same as the alone form joined by value. Inside an
// EXISTS the outer bindings are substituted into the whole pattern, so
// there only the fed form is planned.
func (w *optimizer) planAlone(key, written algebra.Op, sc scope) error {
	if !w.rewrite || sc.substitute {
		return nil
	}
	if _, ok := bgpTriples(written); !ok {
		return nil
	}
	alone, err := w.walk(written, scope{seed: VarSet{}, graph: sc.graph})
	if err != nil {
		return err
	}
	if b, ok := alone.(*algebra.BGP); ok {
		w.plan.alone[key] = b
	}
	return nil
}

// minusAsNotExists rewrites MINUS { BGP } as a FILTER NOT EXISTS over its
// left side, which the evaluator runs as an anti-join (probing the BGP
// per row, or hashing it once). By §18.5 a left solution μ is removed iff
// some solution μ' of the right side is compatible with it and shares a
// variable; a BGP binds all its variables, so that holds iff the right
// side's variables that μ binds exist with μ's values substituted (NOT
// EXISTS), and μ binds at least one of them. When the left side may leave
// every shared variable unbound, the filter says so with BOUND; when it
// can bind none, MINUS removes nothing. Only rewritten when the right
// side sees no binding from outside the MINUS: not inside EXISTS (whose
// bindings are substituted everywhere) and, when the MINUS is fed
// bindings, only if those are bound by the left side too (seedSafe).
func (w *optimizer) minusAsNotExists(o *algebra.Minus, sc scope) (algebra.Op, bool) {
	if !w.rewrite || sc.substitute {
		return nil, false
	}
	if _, ok := bgpTriples(o.Right); !ok {
		return nil, false
	}
	rightVars := Maybe(o.Right)
	certain := Certain(o.Left)
	if !rightVars.intersect(sc.seed).subsetOf(certain) {
		return nil, false
	}
	shared := rightVars.intersect(Maybe(o.Left))
	if len(shared) == 0 {
		return o.Left, true
	}
	var cond algebra.Expr = &algebra.ExistsExpr{Not: true, Pattern: o.Right}
	if len(shared.intersect(certain)) == 0 {
		vars := make([]algebra.Var, 0, len(shared))
		for v := range shared {
			vars = append(vars, v)
		}
		sort.Slice(vars, func(i, j int) bool { return vars[i] < vars[j] })
		var anyBound algebra.Expr
		for _, v := range vars {
			var b algebra.Expr = &algebra.BuiltinExpr{Name: algebra.BuiltinBound, Args: []algebra.Expr{&algebra.VarExpr{Var: v}}}
			if anyBound != nil {
				b = &algebra.BinaryExpr{Op: algebra.OpOr, Left: anyBound, Right: b}
			}
			anyBound = b
		}
		cond = &algebra.BinaryExpr{Op: algebra.OpOr, Left: &algebra.UnaryExpr{Op: algebra.OpNot, Arg: anyBound}, Right: cond}
	}
	return &algebra.Filter{Exprs: []algebra.Expr{cond}, Input: o.Left}, true
}

// bgp orders triples (those of orig, or of a merged join when orig is
// nil) and places filters among them, returning the BGP to run.
func (w *optimizer) bgp(orig *algebra.BGP, triples []algebra.TriplePattern, filters []algebra.Expr, sc scope) (algebra.Op, error) {
	// Local variable indexes: the BGP's variables, then the seed's.
	index := map[algebra.Var]int{}
	var names []algebra.Var
	idx := func(v algebra.Var) int {
		if i, ok := index[v]; ok {
			return i
		}
		index[v] = len(names)
		names = append(names, v)
		return len(names) - 1
	}
	pats := make([]pattern, len(triples))
	for i, tp := range triples {
		p := pattern{i: i}
		for k, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
			p.pos[k] = -1
			if nd.IsVar() {
				p.pos[k] = idx(nd.Var)
			}
		}
		if i&255 == 255 {
			if err := w.ctx.Err(); err != nil {
				return nil, err
			}
		}
		c, err := w.st.Count(w.ctx, tp, sc.graph)
		if err != nil {
			return nil, err
		}
		p.base = c
		pats[i] = p
	}
	if err := w.ctx.Err(); err != nil {
		return nil, err // estimating a large BGP takes a while
	}
	ranged, err := w.rangeCounts(triples, pats, filters, sc)
	if err != nil {
		return nil, err
	}
	nbgp := len(names)
	bp := &BGPPlan{}
	for v := range sc.seed {
		idx(v)
		bp.Bound = append(bp.Bound, v)
	}
	sort.Slice(bp.Bound, func(i, j int) bool { return bp.Bound[i] < bp.Bound[j] })
	bound := make([]bool, len(names))
	for v := range sc.seed {
		bound[index[v]] = true
	}
	var order []pattern
	if w.rewrite {
		shape := func(i int) (float64, float64, bool) {
			s, o, ok := w.st.PredicateDistinct(triples[i].P.Term)
			return float64(s), float64(o), ok
		}
		var err error
		if order, err = orderPatterns(w.ctx, pats, bound, shape); err != nil {
			return nil, err
		}
	} else {
		order = writtenOrder(pats, bound)
	}
	out := &algebra.BGP{Triples: make([]algebra.TriplePattern, len(order))}
	bp.Counts = make([]float64, len(order))
	bp.Est = make([]float64, len(order))
	if ranged != nil {
		bp.Ranged = make([]bool, len(order))
	}
	// Rows after each pattern: the fan-out estimate, capped by what a
	// (mostly functional) join can produce.
	bp.Rows = 1
	for k, p := range order {
		out.Triples[k] = triples[p.i]
		bp.Counts[k], bp.Est[k] = p.base, p.est
		if ranged != nil {
			bp.Ranged[k] = ranged[p.i]
		}
		bp.Rows = min(bp.Rows*p.est, max(bp.Rows, p.base))
	}
	bp.Filters = make([][]algebra.Expr, len(order)+1)
	if len(filters) > 0 {
		// A conjunct runs once the BGP's variables it mentions are bound
		// (the others are bound on entry or never).
		boundAt := make([]int, nbgp) // variable -> patterns matched when bound
		for k, p := range order {
			for _, q := range p.pos {
				if q >= 0 && boundAt[q] == 0 {
					boundAt[q] = k + 1
				}
			}
		}
		for _, e := range filters {
			level := 0
			for v := range exprsVars([]algebra.Expr{e}) {
				if i, ok := index[v]; ok && i < nbgp {
					level = max(level, boundAt[i])
				}
			}
			bp.Filters[level] = append(bp.Filters[level], e)
		}
	}
	if orig != nil && filters == nil && !w.rewrite {
		out = orig // as written: keep the operator
	}
	w.plan.bgps[out] = bp
	return out, nil
}

// pushFilter moves the conjuncts of a FILTER over a join or left join into
// the join's left side when that cannot change their value: each of their
// variables is either always bound by the left side or bound by neither
// side (§18 semantics are preserved; the left side then filters early).
// In an inner join a conjunct may likewise move to the right side.
func pushFilter(f *algebra.Filter) (algebra.Op, bool) {
	var left, right algebra.Op
	switch in := f.Input.(type) {
	case *algebra.Join:
		left, right = in.Left, in.Right
	case *algebra.LeftJoin:
		left, right = in.Left, in.Right
	case *algebra.Union, *algebra.Graph, *algebra.Project, *algebra.Distinct, *algebra.Reduced:
		return pushInto(f)
	default:
		return nil, false
	}
	certainL, certainR := Certain(left), Certain(right)
	maybeL, maybeR := Maybe(left), Maybe(right)
	_, inner := f.Input.(*algebra.Join)
	var push, pushRight, keep []algebra.Expr
	for _, e := range f.Exprs {
		vs := VarSet{}
		ExprVars(e, vs)
		toLeft, toRight := true, inner
		for v := range vs {
			unbound := !maybeL[v] && !maybeR[v]
			if !certainL[v] && !unbound {
				toLeft = false
			}
			// In an inner join a variable always bound on the right has
			// the same value after the join.
			if !certainR[v] && !unbound {
				toRight = false
			}
		}
		switch {
		case toLeft:
			push = append(push, e)
		case toRight:
			pushRight = append(pushRight, e)
		default:
			keep = append(keep, e)
		}
	}
	if len(push) == 0 && len(pushRight) == 0 {
		return nil, false
	}
	newLeft, newRight := left, right
	if len(push) > 0 {
		newLeft = &algebra.Filter{Exprs: push, Input: left}
	}
	if len(pushRight) > 0 {
		newRight = &algebra.Filter{Exprs: pushRight, Input: right}
	}
	var joined algebra.Op
	switch in := f.Input.(type) {
	case *algebra.Join:
		joined = &algebra.Join{Left: newLeft, Right: newRight}
	case *algebra.LeftJoin:
		joined = &algebra.LeftJoin{Left: newLeft, Right: in.Right, Exprs: in.Exprs}
	}
	if len(keep) == 0 {
		return joined, true
	}
	return &algebra.Filter{Exprs: keep, Input: joined}, true
}

// pushInto moves the conjuncts of a FILTER over a UNION into both
// branches, over a GRAPH into its pattern (unless they mention the graph
// variable, which is not in scope inside), and over a subquery into it
// (when the subquery projects every variable they mention; through
// DISTINCT, REDUCED and ORDER BY, never below LIMIT/OFFSET or GROUP BY;
// a SELECT DISTINCT subquery is a DISTINCT over its projection).
// A filter commutes with each of these (§18.5: Filter is per solution,
// Union a multiset union, Graph a union over the graphs of joins with the
// graph binding, Project a restriction that keeps every mentioned
// variable's value). Conjuncts with EXISTS stay where they are: their
// pattern is planned once, for one scope.
func pushInto(f *algebra.Filter) (algebra.Op, bool) {
	var push, keep []algebra.Expr
	for _, e := range f.Exprs {
		vs := VarSet{}
		ExprVars(e, vs)
		ok := !hasExists(e)
		switch in := f.Input.(type) {
		case *algebra.Graph:
			ok = ok && !(in.Name.IsVar() && vs[in.Name.Var])
		case *algebra.Project:
			ok = ok && vs.subsetOf(varsOf(in.Vars))
		}
		if ok {
			push = append(push, e)
		} else {
			keep = append(keep, e)
		}
	}
	if len(push) == 0 {
		return nil, false
	}
	var out algebra.Op
	switch in := f.Input.(type) {
	case *algebra.Union:
		out = &algebra.Union{Left: &algebra.Filter{Exprs: push, Input: in.Left}, Right: &algebra.Filter{Exprs: push, Input: in.Right}}
	case *algebra.Graph:
		out = &algebra.Graph{Name: in.Name, Input: &algebra.Filter{Exprs: push, Input: in.Input}}
	case *algebra.Project:
		out = &algebra.Project{Vars: in.Vars, Input: pushBelowModifiers(push, in.Input)}
	case *algebra.Distinct:
		out = &algebra.Distinct{Input: &algebra.Filter{Exprs: push, Input: in.Input}}
	case *algebra.Reduced:
		out = &algebra.Reduced{Input: &algebra.Filter{Exprs: push, Input: in.Input}}
	}
	if len(keep) > 0 {
		out = &algebra.Filter{Exprs: keep, Input: out}
	}
	return out, true
}

// pushBelowModifiers puts a filter of projected variables below the
// modifiers of a subquery that commute with it.
func pushBelowModifiers(exprs []algebra.Expr, op algebra.Op) algebra.Op {
	switch o := op.(type) {
	case *algebra.Distinct:
		return &algebra.Distinct{Input: pushBelowModifiers(exprs, o.Input)}
	case *algebra.Reduced:
		return &algebra.Reduced{Input: pushBelowModifiers(exprs, o.Input)}
	case *algebra.OrderBy:
		return &algebra.OrderBy{Conditions: o.Conditions, Input: pushBelowModifiers(exprs, o.Input)}
	}
	return &algebra.Filter{Exprs: exprs, Input: op}
}

func varsOf(vs []algebra.Var) VarSet {
	s := make(VarSet, len(vs))
	for _, v := range vs {
		s[v] = true
	}
	return s
}

// hasExists reports whether e holds an EXISTS.
func hasExists(e algebra.Expr) bool {
	switch x := e.(type) {
	case *algebra.ExistsExpr:
		return true
	case *algebra.FuncExpr:
		return slicesHasExists(x.Args)
	case *algebra.BuiltinExpr:
		return slicesHasExists(x.Args)
	case *algebra.BinaryExpr:
		return hasExists(x.Left) || hasExists(x.Right)
	case *algebra.UnaryExpr:
		return hasExists(x.Arg)
	case *algebra.InExpr:
		return hasExists(x.Arg) || slicesHasExists(x.List)
	}
	return false
}

func slicesHasExists(es []algebra.Expr) bool {
	for _, e := range es {
		if hasExists(e) {
			return true
		}
	}
	return false
}

// bgpTriples flattens a BGP or a tree of joins of BGPs into one list of
// triple patterns, which the planner then orders as a whole.
func bgpTriples(op algebra.Op) ([]algebra.TriplePattern, bool) {
	switch o := op.(type) {
	case *algebra.BGP:
		return o.Triples, true
	case *algebra.Join:
		l, ok := bgpTriples(o.Left)
		if !ok {
			return nil, false
		}
		r, ok := bgpTriples(o.Right)
		if !ok {
			return nil, false
		}
		return append(append([]algebra.TriplePattern{}, l...), r...), true
	}
	return nil, false
}
