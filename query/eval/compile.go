package eval

import (
	"fmt"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// row is a solution: one ID per variable slot, 0 for unbound.
type row []kb.ID

func (ex *executor) newRow() row { return make(row, ex.vars.n()) }

func (r row) clone(n int) row {
	out := make(row, n)
	copy(out, r)
	return out
}

// varTable assigns each variable a slot. Hidden slots (the active graph
// inside GRAPH ?g) are never projected away.
type varTable struct {
	slots  map[algebra.Var]int
	names  []algebra.Var
	hidden map[int]bool
}

func newVarTable() *varTable {
	return &varTable{slots: map[algebra.Var]int{}, hidden: map[int]bool{}}
}

func (vt *varTable) slot(v algebra.Var) int {
	if s, ok := vt.slots[v]; ok {
		return s
	}
	s := len(vt.names)
	vt.slots[v] = s
	vt.names = append(vt.names, v)
	return s
}

func (vt *varTable) n() int { return len(vt.names) }

func (vt *varTable) newHidden() int {
	s := vt.slot(algebra.Var("#graph" + strconv.Itoa(len(vt.names))))
	vt.hidden[s] = true
	return s
}

// varSet is a set of slots.
type varSet map[int]bool

func (s varSet) union(o varSet) varSet {
	out := make(varSet, len(s)+len(o))
	for k := range s {
		out[k] = true
	}
	for k := range o {
		out[k] = true
	}
	return out
}

func (s varSet) intersect(o varSet) varSet {
	out := varSet{}
	for k := range s {
		if o[k] {
			out[k] = true
		}
	}
	return out
}

// subsetOf reports whether s ⊆ o.
func (s varSet) subsetOf(o varSet) bool {
	for k := range s {
		if !o[k] {
			return false
		}
	}
	return true
}

// graphRef is where a pattern's triples come from.
type graphRef struct {
	kind int // gDefault, gConst, gSlot
	id   kb.ID
	slot int
}

const (
	gDefault = iota
	gConst
	gSlot
)

// scope is the compile-time context of an operator.
type scope struct {
	seed       varSet // variables possibly bound by the seed row
	graph      graphRef
	substitute bool // EXISTS: substitute bindings everywhere
}

func (sc scope) with(seed varSet) scope { sc.seed = seed; return sc }

// ---- variable analysis ----

func (ex *executor) nodeVar(n algebra.Node, s varSet) {
	if n.IsVar() {
		s[ex.vars.slot(n.Var)] = true
	}
}

// maybe returns the variables op may bind; certain those it always binds.
func (ex *executor) maybe(op algebra.Op) varSet {
	s := varSet{}
	switch o := op.(type) {
	case *algebra.BGP:
		for _, t := range o.Triples {
			ex.nodeVar(t.S, s)
			ex.nodeVar(t.P, s)
			ex.nodeVar(t.O, s)
		}
	case *algebra.Path:
		ex.nodeVar(o.Subject, s)
		ex.nodeVar(o.Object, s)
	case *algebra.Join:
		return ex.maybe(o.Left).union(ex.maybe(o.Right))
	case *algebra.LeftJoin:
		return ex.maybe(o.Left).union(ex.maybe(o.Right))
	case *algebra.Union:
		return ex.maybe(o.Left).union(ex.maybe(o.Right))
	case *algebra.Filter:
		return ex.maybe(o.Input)
	case *algebra.Minus:
		return ex.maybe(o.Left)
	case *algebra.Graph:
		s = ex.maybe(o.Input)
		ex.nodeVar(o.Name, s)
	case *algebra.Extend:
		s = ex.maybe(o.Input)
		s[ex.vars.slot(o.Var)] = true
	case *algebra.Table:
		for _, v := range o.Vars {
			s[ex.vars.slot(v)] = true
		}
	case *algebra.Group:
		for _, k := range o.Keys {
			s[ex.vars.slot(k.Var)] = true
		}
		for _, a := range o.Aggregates {
			s[ex.vars.slot(a.Var)] = true
		}
	case *algebra.Project:
		for _, v := range o.Vars {
			s[ex.vars.slot(v)] = true
		}
		return s.intersect(ex.maybe(o.Input))
	case *algebra.Distinct:
		return ex.maybe(o.Input)
	case *algebra.Reduced:
		return ex.maybe(o.Input)
	case *algebra.OrderBy:
		return ex.maybe(o.Input)
	case *algebra.Slice:
		return ex.maybe(o.Input)
	case *algebra.Service:
		s = ex.maybe(o.Input)
		ex.nodeVar(o.Endpoint, s)
	}
	return s
}

func (ex *executor) certain(op algebra.Op) varSet {
	switch o := op.(type) {
	case *algebra.BGP, *algebra.Path:
		return ex.maybe(op)
	case *algebra.Join:
		return ex.certain(o.Left).union(ex.certain(o.Right))
	case *algebra.LeftJoin:
		return ex.certain(o.Left)
	case *algebra.Union:
		return ex.certain(o.Left).intersect(ex.certain(o.Right))
	case *algebra.Filter:
		return ex.certain(o.Input)
	case *algebra.Minus:
		return ex.certain(o.Left)
	case *algebra.Graph:
		s := ex.certain(o.Input)
		ex.nodeVar(o.Name, s)
		return s
	case *algebra.Extend:
		return ex.certain(o.Input)
	case *algebra.Table:
		s := varSet{}
		for i, v := range o.Vars {
			all := true
			for _, r := range o.Rows {
				if r[i].IsZero() {
					all = false
				}
			}
			if all {
				s[ex.vars.slot(v)] = true
			}
		}
		return s
	case *algebra.Group:
		s := varSet{}
		for _, k := range o.Keys {
			if ve, ok := k.Expr.(*algebra.VarExpr); ok && ex.certain(o.Input)[ex.vars.slot(ve.Var)] {
				s[ex.vars.slot(k.Var)] = true
			}
		}
		return s
	case *algebra.Project:
		return ex.maybe(o).intersect(ex.certain(o.Input))
	case *algebra.Distinct:
		return ex.certain(o.Input)
	case *algebra.Reduced:
		return ex.certain(o.Input)
	case *algebra.OrderBy:
		return ex.certain(o.Input)
	case *algebra.Slice:
		return ex.certain(o.Input)
	}
	return varSet{}
}

// exprVars returns every variable an expression mentions, including inside
// EXISTS patterns.
func (ex *executor) exprVars(e algebra.Expr, s varSet) {
	switch x := e.(type) {
	case *algebra.VarExpr:
		s[ex.vars.slot(x.Var)] = true
	case *algebra.FuncExpr:
		for _, a := range x.Args {
			ex.exprVars(a, s)
		}
	case *algebra.BuiltinExpr:
		for _, a := range x.Args {
			ex.exprVars(a, s)
		}
	case *algebra.BinaryExpr:
		ex.exprVars(x.Left, s)
		ex.exprVars(x.Right, s)
	case *algebra.UnaryExpr:
		ex.exprVars(x.Arg, s)
	case *algebra.InExpr:
		ex.exprVars(x.Arg, s)
		for _, a := range x.List {
			ex.exprVars(a, s)
		}
	case *algebra.ExistsExpr:
		for k := range ex.mentioned(x.Pattern) {
			s[k] = true
		}
	}
}

// mentioned returns all variables appearing anywhere in op.
func (ex *executor) mentioned(op algebra.Op) varSet {
	s := ex.maybe(op)
	var walk func(algebra.Op)
	walk = func(op algebra.Op) {
		switch o := op.(type) {
		case *algebra.Join:
			walk(o.Left)
			walk(o.Right)
		case *algebra.LeftJoin:
			walk(o.Left)
			walk(o.Right)
			for _, e := range o.Exprs {
				ex.exprVars(e, s)
			}
		case *algebra.Union:
			walk(o.Left)
			walk(o.Right)
		case *algebra.Minus:
			walk(o.Left)
			for k := range ex.maybe(o.Right) {
				s[k] = true
			}
			walk(o.Right)
		case *algebra.Filter:
			walk(o.Input)
			for _, e := range o.Exprs {
				ex.exprVars(e, s)
			}
		case *algebra.Graph:
			walk(o.Input)
		case *algebra.Extend:
			walk(o.Input)
			ex.exprVars(o.Expr, s)
		case *algebra.Group:
			walk(o.Input)
			for k := range ex.maybe(o.Input) {
				s[k] = true
			}
		case *algebra.Project:
			walk(o.Input)
			for k := range ex.maybe(o.Input) {
				s[k] = true
			}
		case *algebra.Distinct:
			walk(o.Input)
		case *algebra.Reduced:
			walk(o.Input)
		case *algebra.OrderBy:
			walk(o.Input)
		case *algebra.Slice:
			walk(o.Input)
		case *algebra.Service:
			walk(o.Input)
		}
	}
	walk(op)
	return s
}

// isBarrier reports operators that are evaluated on their own (subqueries,
// aggregates, modifiers, SERVICE) and joined by value, never fed bindings.
func isBarrier(op algebra.Op) bool {
	switch op.(type) {
	case *algebra.Project, *algebra.Group, *algebra.Slice, *algebra.Distinct,
		*algebra.Reduced, *algebra.OrderBy, *algebra.Service:
		return true
	}
	return false
}

// seedSafe reports whether evaluating op with bindings of seed substituted
// in gives the same solutions as evaluating it alone and joining (the
// bottom-up semantics of §18): no filter, BIND or OPTIONAL inside op can
// observe a seeded variable that op itself would not bind.
func (ex *executor) seedSafe(op algebra.Op, seed varSet) bool {
	switch o := op.(type) {
	case *algebra.BGP, *algebra.Path, *algebra.Table:
		return true
	case *algebra.Join:
		return ex.seedSafe(o.Left, seed) && ex.seedSafe(o.Right, seed)
	case *algebra.Union:
		return ex.seedSafe(o.Left, seed) && ex.seedSafe(o.Right, seed)
	case *algebra.Graph:
		return ex.seedSafe(o.Input, seed)
	case *algebra.Filter:
		vs := varSet{}
		for _, e := range o.Exprs {
			ex.exprVars(e, vs)
		}
		return ex.seedSafe(o.Input, seed) && vs.intersect(seed).subsetOf(ex.certain(o.Input))
	case *algebra.Extend:
		vs := varSet{}
		ex.exprVars(o.Expr, vs)
		return !seed[ex.vars.slot(o.Var)] && ex.seedSafe(o.Input, seed) &&
			vs.intersect(seed).subsetOf(ex.certain(o.Input))
	case *algebra.LeftJoin:
		left := ex.certain(o.Left)
		vs := ex.mentioned(o.Right)
		for _, e := range o.Exprs {
			ex.exprVars(e, vs)
		}
		return ex.seedSafe(o.Left, seed) && vs.intersect(seed).subsetOf(left)
	case *algebra.Minus:
		return ex.seedSafe(o.Left, seed) && ex.mentioned(o.Right).intersect(seed).subsetOf(ex.certain(o.Left))
	case *algebra.Service:
		return ex.serviceSeeded(o, seed)
	}
	return false
}

// compileQuery builds the plan for a query's pattern.
func (ex *executor) compileQuery(q *algebra.Query) (node, error) {
	// Give the result variables the first slots, for readable explains.
	for _, v := range q.Vars {
		ex.vars.slot(v)
	}
	return ex.compile(q.Pattern, scope{seed: varSet{}})
}

func (ex *executor) compile(op algebra.Op, sc scope) (node, error) {
	if o, ok := op.(*algebra.Service); ok && ex.serviceSeeded(o, sc.seed) {
		return ex.compileSeededService(o, sc), nil // SERVICE ?ep fed the seed's values
	}
	if len(sc.seed) > 0 && (isBarrier(op) || (!sc.substitute && !ex.seedSafe(op, sc.seed))) {
		inner, err := ex.compile(op, sc.with(varSet{}))
		if err != nil {
			return nil, err
		}
		return &hashJoinNode{left: &seedNode{}, right: inner}, nil
	}
	switch o := op.(type) {
	case *algebra.BGP:
		return ex.compileBGP(o.Triples, nil, sc)
	case *algebra.Path:
		return ex.compilePath(o, sc)
	case *algebra.Join:
		if triples, ok := bgpTriples(o); ok {
			return ex.compileBGP(triples, nil, sc)
		}
		if n, ok, err := ex.compileServiceJoin(o, sc); ok {
			return n, err // bind join: SERVICE fed the left side's values
		}
		left, err := ex.compile(o.Left, sc)
		if err != nil {
			return nil, err
		}
		if t, ok := o.Left.(*algebra.Table); ok && t.IsUnit() {
			return ex.compile(o.Right, sc)
		}
		right, err := ex.compile(o.Right, sc.with(sc.seed.union(ex.maybe(o.Left))))
		if err != nil {
			return nil, err
		}
		return &joinNode{left: left, right: right}, nil
	case *algebra.LeftJoin:
		if n, ok, err := ex.compileServiceLeftJoin(o, sc); ok {
			return n, err // OPTIONAL { SERVICE … } fed the left side's values
		}
		left, err := ex.compile(o.Left, sc)
		if err != nil {
			return nil, err
		}
		rsc := sc.with(sc.seed.union(ex.maybe(o.Left)))
		right, err := ex.compile(o.Right, rsc)
		if err != nil {
			return nil, err
		}
		scope := rsc.seed.union(ex.maybe(o.Right))
		exprs, err := ex.compileExprs(o.Exprs, sc.with(scope))
		if err != nil {
			return nil, err
		}
		return &leftJoinNode{left: left, right: right, exprs: exprs, exprText: exprsText(o.Exprs)}, nil
	case *algebra.Filter:
		if triples, ok := bgpTriples(o.Input); ok {
			exprs, err := ex.compileExprs(o.Exprs, sc.with(sc.seed.union(ex.maybe(o.Input))))
			if err != nil {
				return nil, err
			}
			return ex.compileBGP(triples, &pendingFilter{exprs: exprs, src: o.Exprs}, sc)
		}
		if pushed, ok := ex.pushFilter(o); ok {
			return ex.compile(pushed, sc)
		}
		exprs, err := ex.compileExprs(o.Exprs, sc.with(sc.seed.union(ex.maybe(o.Input))))
		if err != nil {
			return nil, err
		}
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		return &filterNode{input: input, exprs: exprs, text: func() string { return exprsText(o.Exprs) }}, nil
	case *algebra.Union:
		left, err := ex.compile(o.Left, sc)
		if err != nil {
			return nil, err
		}
		right, err := ex.compile(o.Right, sc)
		if err != nil {
			return nil, err
		}
		return &unionNode{left: left, right: right}, nil
	case *algebra.Minus:
		left, err := ex.compile(o.Left, sc)
		if err != nil {
			return nil, err
		}
		right, err := ex.compile(o.Right, sc.with(varSet{}))
		if err != nil {
			return nil, err
		}
		return &minusNode{left: left, right: right}, nil
	case *algebra.Graph:
		return ex.compileGraph(o, sc)
	case *algebra.Extend:
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		e, err := ex.compileExpr(o.Expr, sc.with(sc.seed.union(ex.maybe(o.Input))))
		if err != nil {
			return nil, err
		}
		return &extendNode{input: input, slot: ex.vars.slot(o.Var), expr: e, text: func() string { return fmt.Sprintf("%s := %s", o.Var, o.Expr) }}, nil
	case *algebra.Table:
		n := &tableNode{}
		for _, v := range o.Vars {
			n.slots = append(n.slots, ex.vars.slot(v))
		}
		for _, r := range o.Rows {
			ids := make([]kb.ID, len(r))
			for i, t := range r {
				id, err := ex.dict.id(t)
				if err != nil {
					return nil, err
				}
				ids[i] = id
			}
			n.rows = append(n.rows, ids)
		}
		return n, nil
	case *algebra.Group:
		return ex.compileGroup(o, sc)
	case *algebra.Project:
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		keep := map[int]bool{}
		for _, v := range o.Vars {
			keep[ex.vars.slot(v)] = true
		}
		return &projectNode{input: input, keep: keep, vars: o.Vars}, nil
	case *algebra.Distinct:
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		return &distinctNode{input: input}, nil
	case *algebra.Reduced:
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		return &distinctNode{input: input, reduced: true}, nil
	case *algebra.OrderBy:
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		n := &orderNode{input: input}
		for _, c := range o.Conditions {
			e, err := ex.compileExpr(c.Expr, sc.with(sc.seed.union(ex.maybe(o.Input))))
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, e)
			n.desc = append(n.desc, c.Desc)
		}
		return n, nil
	case *algebra.Slice:
		input, err := ex.compile(o.Input, sc)
		if err != nil {
			return nil, err
		}
		if o.Limit >= 0 {
			// Early LIMIT: an ORDER BY below (through a projection) keeps
			// only the rows the slice can emit.
			below := input
			if p, ok := below.(*projectNode); ok {
				below = p.input
			}
			if ord, ok := below.(*orderNode); ok {
				ord.keep = o.Offset + o.Limit
			}
		}
		return &sliceNode{input: input, offset: o.Offset, limit: o.Limit}, nil
	case *algebra.Service:
		return ex.compileService(o), nil
	}
	return nil, fmt.Errorf("eval: unsupported operator %T", op)
}

func (ex *executor) compileGraph(o *algebra.Graph, sc scope) (node, error) {
	if !o.Name.IsVar() {
		id, ok, err := ex.dict.lookup(o.Name.Term)
		if err != nil {
			return nil, err
		}
		if !ok || !ex.namedSet[id] {
			return &emptyNode{why: "graph " + o.Name.Term.String() + " is not a named graph"}, nil
		}
		inner := sc
		inner.graph = graphRef{kind: gConst, id: id}
		input, err := ex.compile(o.Input, inner)
		if err != nil {
			return nil, err
		}
		return &graphNode{input: input, nameSlot: -1, constID: id, hidden: -1}, nil
	}
	nameSlot := ex.vars.slot(o.Name.Var)
	hidden := ex.vars.newHidden()
	inner := sc
	inner.graph = graphRef{kind: gSlot, slot: hidden}
	inner.seed = sc.seed.union(varSet{nameSlot: true, hidden: true})
	input, err := ex.compile(o.Input, inner)
	if err != nil {
		return nil, err
	}
	return &graphNode{input: input, nameSlot: nameSlot, hidden: hidden}, nil
}

// pushFilter moves the conjuncts of a FILTER over a join or left join into
// the join's left side when that cannot change their value: each of their
// variables is either always bound by the left side or bound by neither
// side (§18 semantics are preserved; the left side then filters early).
func (ex *executor) pushFilter(f *algebra.Filter) (algebra.Op, bool) {
	var left, right algebra.Op
	switch in := f.Input.(type) {
	case *algebra.Join:
		left, right = in.Left, in.Right
	case *algebra.LeftJoin:
		left, right = in.Left, in.Right
	default:
		return nil, false
	}
	certainL, certainR := ex.certain(left), ex.certain(right)
	maybeL, maybeR := ex.maybe(left), ex.maybe(right)
	_, inner := f.Input.(*algebra.Join)
	var push, pushRight, keep []algebra.Expr
	for _, e := range f.Exprs {
		vs := varSet{}
		ex.exprVars(e, vs)
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
