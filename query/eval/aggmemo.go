package eval

import (
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
)

// Per-term memos for the fused aggregate scan. A scan of `?s p ?o` meets
// each object in a run of quads (the P-O-S-G order groups them), and an
// aggregate whose argument reads only ?o — SUM(xsd:integer(STRSTARTS(?o,
// "a"))), MIN(?o) — gets the same value for every quad of the run. The
// argument is computed once per run, and MIN/MAX, which the same value
// again cannot change, skip the repeats.

// memoVarSlot returns the slot of the one variable e reads when e is a
// deterministic function of that variable's term alone, else -1.
func (ex *executor) memoVarSlot(e algebra.Expr) int {
	vs := algebra.ExprVars(e)
	if len(vs) != 1 || !termFunction(e) {
		return -1
	}
	return ex.vars.slot(vs[0])
}

// termFunction reports whether e is built only from variables, constants,
// operators, built-ins that return the same value for the same arguments,
// and XSD casts.
func termFunction(e algebra.Expr) bool {
	switch x := e.(type) {
	case *algebra.VarExpr, *algebra.ConstExpr:
		return true
	case *algebra.UnaryExpr:
		return termFunction(x.Arg)
	case *algebra.BinaryExpr:
		return termFunction(x.Left) && termFunction(x.Right)
	case *algebra.InExpr:
		for _, a := range x.List {
			if !termFunction(a) {
				return false
			}
		}
		return termFunction(x.Arg)
	case *algebra.BuiltinExpr:
		switch x.Name {
		case algebra.BuiltinRand, algebra.BuiltinUUID, algebra.BuiltinStrUUID, algebra.BuiltinBNode:
			return false
		}
		for _, a := range x.Args {
			if !termFunction(a) {
				return false
			}
		}
		return true
	case *algebra.FuncExpr:
		if !strings.HasPrefix(x.IRI, ontology.XSDNamespace) {
			return false // an extension function may be anything
		}
		for _, a := range x.Args {
			if !termFunction(a) {
				return false
			}
		}
		return true
	}
	return false
}

// memoByID wraps e, a function of the term in slot alone, to compute it
// once for a run of rows with the same ID there.
func memoByID(e cexpr, slot int) cexpr {
	var last kb.ID
	var term kb.Term
	var err error
	return func(ex *executor, r row) (kb.Term, error) {
		id := r[slot]
		if id == 0 || id != last {
			term, err = e(ex, r)
			last = id
		}
		return term, err
	}
}

// aggMemoOn turns the memos on; tests compare them with the plain scan.
var aggMemoOn = true

// memoAgg returns the compiled argument c of aggregate e, memoised where
// it reads one variable.
func (ex *executor) memoAgg(e algebra.Expr, c cexpr) cexpr {
	if !aggMemoOn || ex.plainVarSlot(e) >= 0 {
		return c // a variable's term is its own memo
	}
	if s := ex.memoVarSlot(e); s >= 0 {
		return memoByID(c, s)
	}
	return c
}

// repeatSkips reports whether aggregate a ignores a value it has just
// added: MIN and MAX of a plain variable.
func repeatSkips(a groupAgg) bool {
	return aggMemoOn && a.varSlot >= 0 && (a.agg.Func == algebra.AggMin || a.agg.Func == algebra.AggMax)
}
