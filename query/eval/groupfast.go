package eval

import (
	"math"
	"math/big"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// fastAgg runs SUM, AVG, MIN and MAX as the values arrive while every value
// is an xsd:integer (or xsd:long) or an xsd:double, the common case for
// metric values: the value is parsed while its bytes are still in cache,
// and nothing is kept per value. Parsing every kept value at the end
// (twice for AVG and MAX of the same variable) and growing the value lists
// were half the CPU of a GROUP BY over 29,000 metrics. Integers and
// doubles may mix: SUM adds exactly as op:numeric-add does left to right
// (integers exactly until the first double, then doubles, each integer
// promoted), and MIN and MAX compare across the two kinds by value. The
// results equal the general path's. A value that does not fit (another
// kind, not a number, an integer overflow, an integer beyond ±2^53 meeting
// a double) spills: the state becomes values the general path reduces to
// the same result, and the general path takes over.
type fastAgg struct {
	n       int64 // values accumulated
	spilled bool
	kind    function.NumKind // SUM/AVG: the running sum's kind
	isum    int64
	fsum    float64
	best    kb.Term // MIN/MAX: the extreme so far, with its value
	bv      numVal
}

// fastAggOn turns fastAgg on; tests compare against the value lists.
var fastAggOn = true

// fastAggFunc reports whether fn streams through fastAgg.
func fastAggFunc(fn algebra.AggregateFunc) bool {
	switch fn {
	case algebra.AggSum, algebra.AggAvg, algebra.AggMin, algebra.AggMax:
		return true
	}
	return false
}

// add takes t into the running state and reports true, or reports false
// after spilling (the caller then keeps t in the value list, after the
// values spill returned, which it must keep first).
func (f *fastAgg) add(fn algebra.AggregateFunc, t kb.Term) (bool, []kb.Term) {
	if f.spilled {
		return false, nil
	}
	v, ok := numValOf(t)
	if !ok {
		return false, f.spill(fn)
	}
	switch fn {
	case algebra.AggSum, algebra.AggAvg:
		if f.addNum(fn, v) {
			return true, nil
		}
		return false, f.spilledValues(fn)
	}
	f.n++
	if f.n == 1 {
		f.best, f.bv = t, v
		return true, nil
	}
	c := cmpNumVal(v, f.bv)
	if c == 0 { // equal, NaN, or not comparable here
		c = orderCompare(t, f.best)
	}
	if (fn == algebra.AggMin && c < 0) || (fn == algebra.AggMax && c > 0) {
		f.best, f.bv = t, v
	}
	return true, nil
}

// cmpNumVal orders two fast-path numbers by value, or returns 0 when they
// are equal, either is NaN, or an integer beyond ±2^53 meets a double
// (the caller then asks orderCompare).
func cmpNumVal(a, b numVal) int {
	switch {
	case !a.dbl && !b.dbl:
		return cmpOrdered(a.i, b.i)
	case (!a.dbl && !exactDouble(a.i)) || (!b.dbl && !exactDouble(b.i)):
		return 0
	}
	x, y := a.float(), b.float()
	if math.IsNaN(x) || math.IsNaN(y) {
		return 0
	}
	return cmpOrdered(x, y)
}

// addNum adds v to a SUM or AVG and reports true, or reports false after
// spilling (the caller then gives the row to the general path, which
// computes the value's term, or, from add, calls spilledValues).
func (f *fastAgg) addNum(fn algebra.AggregateFunc, v numVal) bool {
	if f.spilled {
		return false
	}
	switch {
	case !v.dbl && (f.n == 0 || f.kind == function.NumInteger):
		i := v.i
		if (i > 0 && f.isum > math.MaxInt64-i) || (i < 0 && f.isum < math.MinInt64-i) {
			f.spilled = true // overflow: exact integers from here
			return false
		}
		f.isum += i
		f.kind = function.NumInteger
	case !v.dbl:
		if !exactDouble(v.i) {
			f.spilled = true
			return false
		}
		f.fsum += float64(v.i)
	default:
		if f.n > 0 && f.kind == function.NumInteger {
			// The integer sum so far meets a double: promoted, exactly.
			if !exactDouble(f.isum) {
				f.spilled = true
				return false
			}
			f.fsum = float64(f.isum)
		}
		f.fsum += v.f
		f.kind = function.NumDouble
	}
	f.n++
	return true
}

// spill ends the fast state and returns values that the general path
// reduces to what it would have made of the values taken so far: the
// extreme for MIN/MAX; for SUM/AVG the exact sum followed by n-1 zeros
// (adding -0 changes no sum, and AVG divides by the count).
func (f *fastAgg) spill(fn algebra.AggregateFunc) []kb.Term {
	f.spilled = true
	return f.spilledValues(fn)
}

// spilledValues returns spill's values for a state already spilled.
func (f *fastAgg) spilledValues(fn algebra.AggregateFunc) []kb.Term {
	if f.n == 0 {
		return nil
	}
	if fn == algebra.AggMin || fn == algebra.AggMax {
		return []kb.Term{f.best}
	}
	sum, zero := integerTerm(f.isum), integerTerm(0)
	if f.kind == function.NumDouble {
		// The shortest form that parses back to exactly fsum.
		sum = kb.Term{Kind: kb.KindLiteral, Datatype: ontology.XSDDouble, Value: strconv.FormatFloat(f.fsum, 'E', -1, 64)}
		zero = kb.Term{Kind: kb.KindLiteral, Datatype: ontology.XSDDouble, Value: "-0E0"}
	}
	out := make([]kb.Term, f.n)
	out[0] = sum
	for j := 1; j < len(out); j++ {
		out[j] = zero
	}
	return out
}

// result is the aggregate over the values taken, when they all went
// through the fast state (ok false otherwise: use the value list).
// firstErr is the group's first expression error: SUM and AVG fail with
// it, MIN and MAX skip errors.
func (f *fastAgg) result(fn algebra.AggregateFunc, firstErr error) (kb.Term, bool, error) {
	if f.spilled || f.n == 0 {
		return kb.Term{}, false, nil
	}
	switch fn {
	case algebra.AggMin, algebra.AggMax:
		return f.best, true, nil
	}
	if firstErr != nil {
		return kb.Term{}, true, firstErr
	}
	sum := function.Numeric{Kind: function.NumDouble, F: f.fsum}
	if f.kind == function.NumInteger {
		sum = function.Numeric{Kind: function.NumInteger, R: new(big.Rat).SetInt64(f.isum)}
	}
	if fn == algebra.AggSum {
		return sum.Term(), true, nil
	}
	avg, err := arithNumeric('/', sum, function.Numeric{Kind: function.NumInteger, R: big.NewRat(f.n, 1)})
	if err != nil {
		return kb.Term{}, true, err
	}
	return avg.Term(), true, nil
}
