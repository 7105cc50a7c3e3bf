package eval

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/function"
)

// referenceSortCompare is ORDER BY's comparison computed the slow way: both
// values parsed again and compared by compareNumeric (XPath promotion
// through big.Rat), then orderCompare for ties and non-numbers.
func referenceSortCompare(a, b kb.Term) int {
	x, okx := function.ParseNumeric(a)
	y, oky := function.ParseNumeric(b)
	if okx && oky {
		if c, err := compareNumeric(x, y); err == nil && c != 0 {
			return c
		}
	}
	return orderCompare(a, b)
}

// TestSortKeyCompare checks sortKey.compare, which compares the promotions
// kept in the keys, against the reference on pairs chosen where promotion
// matters (integers beyond 2^53 against doubles, float rounding of an
// integer, decimals equal as doubles but not exactly, NaN, xsd:long) and on
// random mixes of the numeric types with a few non-numbers.
func TestSortKeyCompare(t *testing.T) {
	lit := kb.Literal
	cases := [][2]kb.Term{
		{lit("9007199254740993", ontology.XSDInteger), lit("9007199254740992", ontology.XSDDouble)},
		{lit("9007199254740993", ontology.XSDInteger), lit("9007199254740992", ontology.XSDInteger)},
		{lit("9007199254740992", ontology.XSDInteger), lit("0009007199254740993", ontology.XSDInteger)},
		{lit("9007199254740992", ontology.XSDLong), lit("0009007199254740993", ontology.XSDInteger)},
		{lit("9007199254740992.0", ontology.XSDDecimal), lit("0009007199254740992.5", ontology.XSDDecimal)},
		{lit("16777217", ontology.XSDInteger), lit("16777216", ontology.XSDFloat)},
		{lit("16777217", ontology.XSDInteger), lit("16777216", ontology.XSDDouble)},
		{lit("0.1", ontology.XSDDecimal), lit("0.1", ontology.XSDDouble)},
		{lit("0.1000000000000000000001", ontology.XSDDecimal), lit("0.1", ontology.XSDDecimal)},
		{lit("0.1000000000000000000001", ontology.XSDDecimal), lit("0.1", ontology.XSDDouble)},
		{lit("NaN", ontology.XSDDouble), lit("1", ontology.XSDInteger)},
		{lit("NaN", ontology.XSDDouble), lit("NaN", ontology.XSDDouble)},
		{lit("-INF", ontology.XSDDouble), lit("-99999999999999999999999", ontology.XSDInteger)},
		{lit("12", ontology.XSDLong), lit("12.5", ontology.XSDDouble)},
		{lit("12", ontology.XSDLong), lit("012", ontology.XSDInteger)},
		{lit("-3", ontology.XSDInteger), lit("-3.0", ontology.XSDDecimal)},
		{lit("99999999999999999999", ontology.XSDInteger), lit("99999999999999999998", ontology.XSDInteger)},
		{lit("1e0", ontology.XSDDouble), lit("1", ontology.XSDString)},
		{kb.IRI("http://x/a"), lit("1", ontology.XSDInteger)},
	}
	types := []string{ontology.XSDInteger, ontology.XSDLong, ontology.XSDDecimal, ontology.XSDFloat, ontology.XSDDouble}
	rng := rand.New(rand.NewSource(29))
	pool := []kb.Term{lit("NaN", ontology.XSDDouble), lit("x", ontology.XSDString), kb.IRI("http://x/b")}
	for range 400 {
		dt := types[rng.Intn(len(types))]
		var v string
		switch rng.Intn(4) {
		case 0:
			v = fmt.Sprint(rng.Int63n(2000) - 1000)
		case 1:
			v = fmt.Sprint(int64(1)<<53 + rng.Int63n(8) - 4)
		case 2:
			v = fmt.Sprintf("%d.%d", rng.Intn(50), rng.Intn(1000))
		default:
			v = fmt.Sprint(rng.Int63n(1 << 24))
		}
		if dt == ontology.XSDInteger || dt == ontology.XSDLong {
			if _, ok := function.ParseNumeric(lit(v, dt)); !ok {
				continue
			}
		}
		pool = append(pool, lit(v, dt))
	}
	for i := range 3000 {
		cases = append(cases, [2]kb.Term{pool[rng.Intn(len(pool))], pool[(i*7)%len(pool)]})
	}
	bad := 0
	for _, c := range cases {
		for _, p := range [][2]kb.Term{c, {c[1], c[0]}} {
			got := newSortKey(p[0]).compare(newSortKey(p[1]))
			want := referenceSortCompare(p[0], p[1])
			if got != want {
				bad++
				if bad <= 10 {
					t.Errorf("compare(%v, %v) = %d, want %d", p[0], p[1], got, want)
				}
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d comparisons differ", bad)
	}
}
