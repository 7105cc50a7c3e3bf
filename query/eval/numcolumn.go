package eval

import (
	"math"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// The numeric column: each term's fast-path number (numValOf) kept per ID
// in a column the store holds for its lifetime (kb.IDColumn), so AVG, SUM,
// MIN, MAX and numeric comparisons over metric values decode and parse a
// term once per store rather than once per row of every query. A GROUP BY
// over 29,000 wtime values spent about a quarter of its CPU decoding and
// parsing the same values query after query.
//
// The column keeps exactly what numValOf computes from the term: an int64
// for an xsd:integer or xsd:long, a double for an xsd:double, and "not a
// fast number" for everything else (decimals, floats, strings, IRIs,
// ill-typed literals). A row whose value is not a fast number goes to the
// general path as before, so promotions, decimal exactness and errors stay
// the general path's. IDs are never reissued and terms never change in
// the stores that offer a column, so an entry is right for as long as the
// store is open; a write adds IDs the column does not hold yet, and the
// query-local IDs of computed terms are never kept.

// numColumnName names the evaluator's column among the store's.
const numColumnName = "eval.num"

// The tags of the column's entries.
const (
	numTagNone   = 1 + iota // not a fast-path number
	numTagInt               // word: the int64
	numTagDouble            // word: the float64's bits
)

// numColumnOn turns the column on; tests compare against decoding.
var numColumnOn = true

// idColumner is implemented by stores that keep per-ID columns for their
// lifetime (the native stores).
type idColumner interface {
	IDColumn(name string) *kb.IDColumn
}

// numColumnOf returns ds's numeric column, or nil.
func numColumnOf(ds kb.Dataset) *kb.IDColumn {
	if c, ok := ds.(idColumner); ok {
		return c.IDColumn(numColumnName)
	}
	return nil
}

// numOfID returns the fast-path number of the term id names: numValOf of
// the decoded term, read from the column where an earlier call stored it.
// ok is false for a term that is not a fast number and for an ID that
// does not decode (the general path reports that).
func (ex *executor) numOfID(id kb.ID) (numVal, bool) {
	col := ex.numcol
	if col != nil && numColumnOn {
		if w, tag, ok := col.Get(id); ok {
			switch tag {
			case numTagInt:
				return numVal{i: int64(w)}, true
			case numTagDouble:
				return numVal{f: math.Float64frombits(w), dbl: true}, true
			}
			return numVal{}, false
		}
	}
	t, err := ex.dict.term(id)
	if err != nil {
		return numVal{}, false
	}
	v, ok := numValOf(t)
	if col != nil && numColumnOn && !isTemp(id) {
		switch {
		case !ok:
			col.Put(id, 0, numTagNone)
		case v.dbl:
			col.Put(id, math.Float64bits(v.f), numTagDouble)
		default:
			col.Put(id, uint64(v.i), numTagInt)
		}
	}
	return v, ok
}

// addExtremeID takes a MIN or MAX of a plain variable into the fast state
// from the value's number alone, decoding the term only when it becomes
// the extreme or ties with it: exactly what fastAgg.add does with the
// decoded term, without decoding every row's. done false leaves the row
// to the general path (an unbound or non-numeric value, a spilled state).
func (st *aggState) addExtremeID(ex *executor, a groupAgg, r row) (done bool) {
	agg := a.agg
	if !fastAggOn || !numColumnOn || ex.numcol == nil || agg.Distinct || st.fast.spilled ||
		(agg.Func != algebra.AggMin && agg.Func != algebra.AggMax) ||
		a.varSlot < 0 || a.varSlot >= len(r) || r[a.varSlot] == 0 {
		return false
	}
	id := r[a.varSlot]
	v, ok := ex.numOfID(id)
	if !ok {
		return false
	}
	f := &st.fast
	if f.n > 0 {
		c := cmpNumVal(v, f.bv)
		if c == 0 { // equal, NaN, or not comparable by number
			t, err := ex.dict.term(id)
			if err != nil {
				return false
			}
			c = orderCompare(t, f.best)
		}
		if (agg.Func == algebra.AggMin && c >= 0) || (agg.Func == algebra.AggMax && c <= 0) {
			f.n++
			return true
		}
	}
	t, err := ex.dict.term(id)
	if err != nil {
		return false
	}
	f.n++
	f.best, f.bv = t, v
	return true
}

// numCompare wraps general, the evaluator of comparison x, with one that
// decides the comparison from the operands' fast-path numbers when both
// have one and they differ by value; equal values, NaN and everything not
// a fast number are left to general, whose answer they get.
func (ex *executor) numCompare(x *algebra.BinaryExpr, general cexpr) cexpr {
	switch x.Op {
	case algebra.OpLess, algebra.OpLessEq, algebra.OpGreater, algebra.OpGreatEq, algebra.OpEqual, algebra.OpNotEqual:
	default:
		return general
	}
	left, right := ex.compileNum(x.Left), ex.compileNum(x.Right)
	if left == nil || right == nil {
		return general
	}
	op := x.Op
	return func(ex *executor, r row) (kb.Term, error) {
		if !numColumnOn {
			return general(ex, r)
		}
		a, ok := left(ex, r)
		if !ok {
			return general(ex, r)
		}
		b, ok := right(ex, r)
		if !ok {
			return general(ex, r)
		}
		c := cmpNumVal(a, b)
		if c == 0 {
			return general(ex, r)
		}
		switch op {
		case algebra.OpLess, algebra.OpLessEq:
			return boolTerm(c < 0), nil
		case algebra.OpGreater, algebra.OpGreatEq:
			return boolTerm(c > 0), nil
		case algebra.OpEqual:
			return boolTerm(false), nil
		}
		return boolTerm(true), nil // OpNotEqual
	}
}
