package eval

import (
	"fmt"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/opt"
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

// scope is the compile-time context of an operator. seed follows the
// bindings the plan feeds (it decides SERVICE bind joins and whether an
// isolated operator needs its hash join); which operators are fed is
// opt's decision (opt.Plan.Isolated).
type scope struct {
	seed       varSet // variables possibly bound by the seed row
	graph      graphRef
	substitute bool // EXISTS: substitute bindings everywhere (opt plans the pattern so)
}

func (sc scope) with(seed varSet) scope { sc.seed = seed; return sc }

// ---- variable analysis (package opt's, in slots) ----

// slots returns the slots of the variables in vs.
func (ex *executor) slots(vs opt.VarSet) varSet {
	s := make(varSet, len(vs))
	for v := range vs {
		s[ex.vars.slot(v)] = true
	}
	return s
}

// maybe returns the variables op may bind.
func (ex *executor) maybe(op algebra.Op) varSet { return ex.slots(opt.Maybe(op)) }

// compileQuery builds the plan for a query's pattern.
func (ex *executor) compileQuery(q *algebra.Query) (node, error) {
	// Give the result variables the first slots, for readable explains.
	for _, v := range q.Vars {
		ex.vars.slot(v)
	}
	root, err := ex.optimize(q.Pattern)
	if err != nil {
		return nil, err
	}
	return ex.compile(root, scope{seed: varSet{}})
}

// optimize has package opt plan op (filter placement, join order, which
// operators are fed bindings) and returns the pattern to compile; compile
// then follows ex.plan.
func (ex *executor) optimize(op algebra.Op) (algebra.Op, error) {
	plan, err := opt.Optimize(ex.ctx, op, planStats{ex}, opt.Options{NoOptimize: ex.opts.NoOptimize})
	if err != nil {
		if cerr := ctxErr(ex.ctx); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("eval: planning: %w", err)
	}
	ex.plan = plan
	return plan.Root, nil
}

func (ex *executor) compile(op algebra.Op, sc scope) (node, error) {
	if ex.plan == nil {
		return nil, fmt.Errorf("%w: compiling a pattern that was not planned", ErrInternal)
	}
	op = ex.plan.Pattern(op) // an EXISTS pattern, as the optimizer rewrote it
	if o, ok := op.(*algebra.Service); ok && ex.serviceSeeded(o, sc.seed) {
		return ex.compileSeededService(o, sc), nil // SERVICE ?ep fed the seed's values
	}
	if len(sc.seed) > 0 && ex.plan.Isolated(op) {
		inner, err := ex.compile(op, sc.with(varSet{}))
		if err != nil {
			return nil, err
		}
		return &hashJoinNode{left: &seedNode{}, right: inner}, nil
	}
	switch o := op.(type) {
	case *algebra.BGP:
		return ex.compileBGP(o, sc)
	case *algebra.Path:
		return ex.compilePath(o, sc)
	case *algebra.Join:
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
		n := &joinNode{left: left, right: right}
		n.hash, err = ex.hashRight(o.Left, o.Right, sc)
		return n, err
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
		n := &leftJoinNode{left: left, right: right, exprs: exprs, exprText: exprsText(o.Exprs)}
		n.hash, err = ex.hashRight(o.Left, o.Right, sc)
		return n, err
	case *algebra.Filter:
		if n, ok, err := ex.compileExtendFilter(o, sc); ok || err != nil {
			return n, err // extendfilter.go
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
		return &extendNode{input: input, slot: ex.vars.slot(o.Var), expr: e, from: ex.plainVarSlot(o.Expr), text: func() string { return fmt.Sprintf("%s := %s", o.Var, o.Expr) }}, nil
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
		if n, ok := ex.compileServiceCount(o, sc); ok {
			return n, nil
		}
		if n, ok, err := ex.compileCountJoin(o, sc); ok || err != nil {
			return n, err
		}
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
			n.slots = append(n.slots, ex.plainVarSlot(c.Expr))
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
				ord.skip = o.Offset
				pushTopCounts(ord)
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
