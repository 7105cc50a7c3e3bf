package eval

import (
	"math"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// The numeric fast path of aggregate arguments. SUM(?o + ?o),
// SUM(ROUND(?o)) and their kind over a metric predicate spent most of
// their time building a result term per row (a big.Rat for every integer
// operand, a formatted lexical form for every result) that the aggregate
// then parsed back. numExpr computes such an argument on int64 integers
// and doubles instead, and fastAgg.addNum folds the number in without a
// term. Only what has the same value and kind as the general evaluation
// is computed here: xsd:integer (and xsd:long) and xsd:double operands, +
// - * and unary minus, ABS, CEIL, FLOOR and ROUND; an integer result that
// would leave int64, and any other operand (a decimal, a float, a string,
// an unbound variable), reports ok false, and the caller evaluates the
// general expression for that row, so errors and promotions stay exactly
// the general path's.

// numVal is a number of the fast path: an integer or, when dbl, a double.
type numVal struct {
	i   int64
	f   float64
	dbl bool
}

// float returns v as a double, promoted as op:numeric-* promotes an
// integer: exactly, which the fast path guarantees by leaving integers
// beyond ±2^53 to the general path when they meet a double.
func (v numVal) float() float64 {
	if v.dbl {
		return v.f
	}
	return float64(v.i)
}

// exactDouble reports whether integer i converts to a double exactly.
func exactDouble(i int64) bool { return i >= -1<<53 && i <= 1<<53 }

// numExpr evaluates an argument on numbers; ok false leaves the row to
// the general expression.
type numExpr func(ex *executor, r row) (v numVal, ok bool)

// numValOf returns t's value for the fast path.
func numValOf(t kb.Term) (numVal, bool) {
	i, f, k, ok := fastNumber(t)
	switch {
	case !ok:
		return numVal{}, false
	case k == function.NumDouble:
		return numVal{f: f, dbl: true}, true
	}
	return numVal{i: i}, true
}

// compileNum returns the fast evaluator of e, or nil when e is not an
// expression it covers.
func (ex *executor) compileNum(e algebra.Expr) numExpr {
	switch x := e.(type) {
	case *algebra.ConstExpr:
		v, ok := numValOf(x.Term)
		if !ok {
			return nil
		}
		return func(*executor, row) (numVal, bool) { return v, true }
	case *algebra.VarExpr:
		s := ex.vars.slot(x.Var)
		if let := ex.lets[s]; let != nil {
			return let.letNum // a FILTER over its BIND (extendfilter.go)
		}
		return func(ex *executor, r row) (numVal, bool) {
			if s >= len(r) || r[s] == 0 {
				return numVal{}, false
			}
			return ex.numOfID(r[s]) // a decoding error: the general path reports it
		}
	case *algebra.UnaryExpr:
		arg := ex.compileNum(x.Arg)
		if arg == nil || x.Op == algebra.OpNot {
			return nil
		}
		neg := x.Op == algebra.OpMinus
		return func(ex *executor, r row) (numVal, bool) {
			v, ok := arg(ex, r)
			if !ok || !neg {
				return v, ok
			}
			if v.dbl {
				return numVal{f: -v.f, dbl: true}, true
			}
			if v.i == math.MinInt64 {
				return numVal{}, false
			}
			return numVal{i: -v.i}, true
		}
	case *algebra.BinaryExpr:
		switch x.Op {
		case algebra.OpAdd, algebra.OpSub, algebra.OpMul:
		default:
			return nil
		}
		left, right := ex.compileNum(x.Left), ex.compileNum(x.Right)
		if left == nil || right == nil {
			return nil
		}
		op := x.Op
		return func(ex *executor, r row) (numVal, bool) {
			a, ok := left(ex, r)
			if !ok {
				return a, false
			}
			b, ok := right(ex, r)
			if !ok {
				return b, false
			}
			return numArith(op, a, b)
		}
	case *algebra.BuiltinExpr:
		if len(x.Args) != 1 {
			return nil
		}
		var ff func(float64) float64
		switch x.Name {
		case algebra.BuiltinAbs:
			ff = math.Abs
		case algebra.BuiltinCeil:
			ff = math.Ceil
		case algebra.BuiltinFloor:
			ff = math.Floor
		case algebra.BuiltinRound:
			ff = roundHalfUp
		default:
			return nil
		}
		arg := ex.compileNum(x.Args[0])
		if arg == nil {
			return nil
		}
		abs := x.Name == algebra.BuiltinAbs
		return func(ex *executor, r row) (numVal, bool) {
			v, ok := arg(ex, r)
			switch {
			case !ok:
				return v, false
			case v.dbl:
				return numVal{f: ff(v.f), dbl: true}, true
			case abs && v.i < 0:
				if v.i == math.MinInt64 {
					return numVal{}, false
				}
				return numVal{i: -v.i}, true
			}
			return v, true // an integer is its own ceiling, floor and rounding
		}
	}
	return nil
}

// numArith is op:numeric-add, -subtract and -multiply on fast-path
// numbers: integers exactly (ok false past int64), a double when either
// operand is one.
func numArith(op algebra.BinaryOp, a, b numVal) (numVal, bool) {
	if a.dbl || b.dbl {
		if (!a.dbl && !exactDouble(a.i)) || (!b.dbl && !exactDouble(b.i)) {
			return numVal{}, false
		}
		x, y := a.float(), b.float()
		switch op {
		case algebra.OpAdd:
			return numVal{f: x + y, dbl: true}, true
		case algebra.OpSub:
			return numVal{f: x - y, dbl: true}, true
		}
		return numVal{f: x * y, dbl: true}, true
	}
	x, y := a.i, b.i
	switch op {
	case algebra.OpAdd:
		s := x + y
		if (s > x) != (y > 0) {
			return numVal{}, false
		}
		return numVal{i: s}, true
	case algebra.OpSub:
		s := x - y
		if (s < x) != (y > 0) {
			return numVal{}, false
		}
		return numVal{i: s}, true
	}
	if x == 0 || y == 0 {
		return numVal{}, true
	}
	p := x * y
	if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		return numVal{}, false
	}
	return numVal{i: p}, true
}

// numAggregate reports whether an aggregate takes the numeric fast path:
// SUM and AVG of a covered expression (MIN and MAX need the value's own
// term, which a plain variable's decoding already gives them).
func numAggregate(agg *algebra.Aggregate) bool {
	return !agg.Distinct && agg.Expr != nil && (agg.Func == algebra.AggSum || agg.Func == algebra.AggAvg)
}

// addFast feeds one row to a SUM or AVG whose answer is already decided,
// or through its numeric fast path; done false leaves the row to add's
// general path.
//
// A SUM or AVG fails as soon as one argument is an error or not a number
// (add records that as the group's first error), whatever the rows after
// it hold, so its later rows are not evaluated at all: SUM(?o > 0) over a
// predicate of numbers sums booleans, an error at the first row.
func (st *aggState) addFast(ex *executor, a groupAgg, r row, acct *account) (done bool, err error) {
	agg := a.agg
	if (agg.Func != algebra.AggSum && agg.Func != algebra.AggAvg) || agg.Expr == nil {
		return false, nil
	}
	if st.firstErr != nil {
		return true, nil
	}
	if a.num == nil || !fastAggOn || agg.Distinct || st.fast.spilled {
		return false, nil
	}
	v, ok := a.num(ex, r)
	if !ok {
		return false, nil
	}
	if st.fast.addNum(agg.Func, v) {
		return true, nil
	}
	// Spilled just now: the general path continues from these values.
	if spilled := st.fast.spilledValues(agg.Func); len(spilled) > 0 {
		before := cap(st.vals)
		st.vals = append(st.vals, spilled...)
		if err := acct.charge(int64(cap(st.vals)-before)*termSize + int64(len(spilled[0].Value))); err != nil {
			return true, err
		}
	}
	return false, nil
}

// addSlow takes a value the fast state did not: it decides a SUM or AVG
// of a non-number (an error, whatever follows), and keeps only the
// extreme so far of a MIN or MAX, compared as result's loop over the
// whole list would compare it, in the same order. done false leaves the
// value to add's list.
func (st *aggState) addSlow(agg *algebra.Aggregate, t kb.Term, acct *account) (done bool, err error) {
	if !fastAggOn {
		return false, nil
	}
	switch agg.Func {
	case algebra.AggSum, algebra.AggAvg:
		if _, ok := function.ParseNumeric(t); !ok {
			st.firstErr = typeErr("%s of non-numeric %s", agg.Func, t)
			return true, nil
		}
	case algebra.AggMin, algebra.AggMax:
		if agg.Distinct || len(st.vals) == 0 {
			return false, nil
		}
		c := orderCompare(t, st.vals[0])
		if (agg.Func == algebra.AggMin && c < 0) || (agg.Func == algebra.AggMax && c > 0) {
			st.vals[0] = t
			return true, acct.charge(int64(len(t.Value) + len(t.Lang)))
		}
		return true, nil
	}
	return false, nil
}
