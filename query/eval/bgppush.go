package eval

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// bgpRequest is the store request for n's patterns under r (constants,
// r's bindings and numbered variables, the graphs to read and those to
// exclude), with the request variable of each slot and the slot of each
// request variable; ok is false when r binds a computed term the store
// does not hold or no graph is left to read.
func (n *bgpNode) bgpRequest(ex *executor, r row) (q kb.BGP, varOf map[int]int, slots []int, ok bool) {
	varOf = map[int]int{}
	for _, p := range n.pats {
		var t [3]kb.BGPTerm
		for k, pos := range p.pos {
			switch {
			case pos.slot < 0:
				t[k].ID = pos.id
			case r[pos.slot] != 0:
				if isTemp(r[pos.slot]) {
					return q, nil, nil, false
				}
				t[k].ID = r[pos.slot]
			default:
				v, seen := varOf[pos.slot]
				if !seen {
					v = len(slots)
					varOf[pos.slot] = v
					slots = append(slots, pos.slot)
				}
				t[k].Var = v
			}
		}
		q.Patterns = append(q.Patterns, t)
	}
	q.Vars = len(slots)
	graphs, dedupe := n.graphsFor(ex, r)
	for _, g := range graphs {
		if !isTemp(g) {
			q.Graphs = append(q.Graphs, g)
		}
	}
	if len(q.Graphs) == 0 {
		return q, nil, nil, false
	}
	q.Distinct = dedupe
	if n.graph.kind == gDefault {
		for g := range ex.hidden {
			q.Exclude = append(q.Exclude, g)
		}
	}
	return q, varOf, slots, true
}

// runPushed answers the BGP with one request to a store that matches
// whole BGPs (kb.BGPMatcher; kb/pg makes it one SQL join), instead of one
// lookup per pattern and partial row, and applies the BGP's filters to
// each solution. The filters placed after pattern i only read variables
// bound by then, which keep their values in the full solution, so testing
// them all at the end gives the same rows.
func (n *bgpNode) runPushed(ex *executor, bm kb.BGPMatcher, r row, emit func(row) bool) error {
	q, varOf, slots, ok := n.bgpRequest(ex, r)
	if !ok {
		return nil // a computed term the store does not hold, or no graph
	}
	q.Numeric = n.numericHints(ex, varOf)
	n.pushed++
	n.lastBGP, n.store = q, ex.ds
	var inner error
	stopped := false
	last := len(n.pats) - 1
	err := bm.MatchBGP(ex.ctx, q, func(vals []kb.ID) bool {
		if inner = ex.check(); inner != nil {
			return false
		}
		out := r.clone(len(r))
		for v, slot := range slots {
			out[slot] = vals[v]
		}
		for level := 1; level < len(n.filters); level++ {
			pass, err := ex.filterRow(n.filters[level], out)
			if err != nil {
				inner = err
				return false
			}
			if !pass {
				return true
			}
		}
		n.rows[last]++
		if !emit(out) {
			stopped = true
			return false
		}
		return true
	})
	switch {
	case inner != nil:
		return inner
	case err != nil:
		return err
	case stopped:
		return errStop
	}
	return nil
}

// numericHints returns the conjuncts of n's filters that compare a variable
// the store binds (varOf: slot to BGP variable) with a numeric constant, as
// kb.BGP.Numeric: a store may drop the solutions they reject early. The
// filters still run on every solution the store returns.
func (n *bgpNode) numericHints(ex *executor, varOf map[int]int) []kb.BGPNumeric {
	var out []kb.BGPNumeric
	var add func(e algebra.Expr)
	add = func(e algebra.Expr) {
		x, ok := e.(*algebra.BinaryExpr)
		if !ok {
			return
		}
		if x.Op == algebra.OpAnd {
			add(x.Left)
			add(x.Right)
			return
		}
		op, v, c := x.Op, x.Left, x.Right
		op, v, c = varFirst(op, v, c)
		switch op {
		case algebra.OpLess, algebra.OpGreater, algebra.OpLessEq, algebra.OpGreatEq, algebra.OpEqual:
		default:
			return
		}
		ve, isVar := v.(*algebra.VarExpr)
		ce, isConst := c.(*algebra.ConstExpr)
		if !isVar || !isConst {
			return
		}
		slot, ok := ex.vars.slots[ve.Var]
		if !ok {
			return
		}
		bv, ok := varOf[slot]
		if !ok {
			return
		}
		// An xsd:float constant compares in single precision, which the
		// store's double values cannot decide.
		num, ok := function.ParseNumeric(ce.Term)
		if !ok || num.IsNaN() || num.Kind == function.NumFloat {
			return
		}
		out = append(out, kb.BGPNumeric{Var: bv, Op: string(op), Value: num.Float64()})
	}
	for _, exprs := range n.fsrc {
		for _, e := range exprs {
			add(e)
		}
	}
	return out
}
