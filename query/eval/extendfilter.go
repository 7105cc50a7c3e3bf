package eval

import (
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// A FILTER over a BIND (Filter(exprs, Extend(?x, e, input))) evaluated as
// one node. Evaluated apart, the BIND computes e for every input row and
// puts the result in the query's dictionary (a hash of the term, a store
// lookup and a map entry), and the FILTER then decodes it again: in an L2
// miss ratio query that keeps 4,415 of 29,438 rows a quarter of the CPU
// went to storing ratios that the FILTER then threw away. Here the
// FILTER's references to ?x read e's value directly, e is computed at most
// once per row and only when the FILTER asks for it or the row passes, and
// only a passing row's value enters the dictionary.
//
// Nothing observable changes: a reference to ?x yields e's value, or e's
// expression error where the separate evaluation would have left ?x
// unbound (an error either way, so BOUND, COALESCE, IF, || and && see the
// same outcome); a row whose input already binds ?x keeps the separate
// evaluation's order (the BIND drops a row with a different value, then
// the FILTER reads the input's binding). A FILTER with EXISTS is not
// fused: its pattern reads ?x from the row.

// extendFilterNode is Filter(exprs, Extend(slot, expr, input)).
type extendFilterNode struct {
	nodeInfo
	input node
	slot  int
	expr  cexpr
	exprs []cexpr // the FILTER's, with ?x compiled by letRef
	text  func() string

	// The value of expr for the row being filtered, once asked for.
	ready bool
	t     kb.Term
	err   error
}

// compileExtendFilter compiles o when its input is an Extend whose
// FILTER can be fused (see above); ok is false otherwise.
func (ex *executor) compileExtendFilter(o *algebra.Filter, sc scope) (_ node, ok bool, _ error) {
	ext, isExt := o.Input.(*algebra.Extend)
	if !isExt {
		return nil, false, nil
	}
	for _, e := range o.Exprs {
		if exprHasExists(e) {
			return nil, false, nil
		}
	}
	input, err := ex.compile(ext.Input, sc)
	if err != nil {
		return nil, true, err
	}
	e, err := ex.compileExpr(ext.Expr, sc.with(sc.seed.union(ex.maybe(ext.Input))))
	if err != nil {
		return nil, true, err
	}
	n := &extendFilterNode{input: input, slot: ex.vars.slot(ext.Var), expr: e, text: func() string {
		return fmt.Sprintf("%s, %s := %s computed for the filter", exprsText(o.Exprs), ext.Var, ext.Expr)
	}}
	// While the FILTER's expressions compile, references to ?x compile to
	// n's value (expr.go and numexpr.go consult ex.lets).
	if ex.lets == nil {
		ex.lets = map[int]*extendFilterNode{}
	}
	prev, had := ex.lets[n.slot]
	ex.lets[n.slot] = n
	n.exprs, err = ex.compileExprs(o.Exprs, sc.with(sc.seed.union(ex.maybe(o.Input))))
	if had {
		ex.lets[n.slot] = prev
	} else {
		delete(ex.lets, n.slot)
	}
	if err != nil {
		return nil, true, err
	}
	return n, true, nil
}

// value returns expr's value for r, computing it at the first call per row.
func (n *extendFilterNode) value(ex *executor, r row) (kb.Term, error) {
	if !n.ready {
		n.t, n.err = n.expr(ex, r)
		n.ready = true
	}
	return n.t, n.err
}

// letRef is the compiled reference to ?x inside the FILTER: the input's
// binding when there is one, else expr's value.
func (n *extendFilterNode) letRef(ex *executor, r row) (kb.Term, error) {
	if n.slot < len(r) && r[n.slot] != 0 {
		return ex.dict.term(r[n.slot])
	}
	return n.value(ex, r)
}

// letNum is letRef on numbers (numexpr.go): false when the value is not a
// plain number or is an error, which the general path then reports.
func (n *extendFilterNode) letNum(ex *executor, r row) (numVal, bool) {
	if n.slot < len(r) && r[n.slot] != 0 {
		return ex.numOfID(r[n.slot])
	}
	t, err := n.value(ex, r)
	if err != nil {
		return numVal{}, false
	}
	return numValOf(t)
}

func (n *extendFilterNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.input, seed, func(r row) error {
		ex.env.newSolution(r)
		n.ready = false
		if n.slot < len(r) && r[n.slot] != 0 {
			// The input binds ?x: the BIND keeps the row only when its
			// value is the same term (or an error), as extendNode does.
			id, ok, err := ex.termID(n.value(ex, r))
			if err != nil {
				return err
			}
			if ok && id != r[n.slot] {
				return nil
			}
		}
		ok, err := ex.filterRow(n.exprs, r)
		if err != nil || !ok {
			return err
		}
		if r[n.slot] == 0 {
			id, ok, err := ex.termID(n.value(ex, r))
			if err != nil {
				return err
			}
			if ok {
				r[n.slot] = id
			}
		}
		if !emit(r) {
			return errStop
		}
		return nil
	})
}

func (n *extendFilterNode) children() []node { return []node{n.input} }
func (n *extendFilterNode) describe() string { return "Filter " + n.text() }

// exprHasExists reports whether e holds an EXISTS or NOT EXISTS.
func exprHasExists(e algebra.Expr) bool {
	switch x := e.(type) {
	case *algebra.ExistsExpr:
		return true
	case *algebra.FuncExpr:
		return anyHasExists(x.Args)
	case *algebra.BuiltinExpr:
		return anyHasExists(x.Args)
	case *algebra.BinaryExpr:
		return exprHasExists(x.Left) || exprHasExists(x.Right)
	case *algebra.UnaryExpr:
		return exprHasExists(x.Arg)
	case *algebra.InExpr:
		return exprHasExists(x.Arg) || anyHasExists(x.List)
	case *algebra.AggregateExpr:
		return x.Aggregate.Expr != nil && exprHasExists(x.Aggregate.Expr)
	}
	return false
}

func anyHasExists(es []algebra.Expr) bool {
	for _, e := range es {
		if exprHasExists(e) {
			return true
		}
	}
	return false
}
