package eval

import (
	"context"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// numWant is a hand-worked aggregate result: "" unbound, "*" not checked
// (the order of the group's rows decides it, or SPARQL leaves the order
// of the values open), "int N", "dec N" and "dbl N" a number of that
// datatype and exactly that value ("dbl NaN" for NaN), "lex V T" the
// value's own term (MIN and MAX return a value of the group unchanged):
// lexical form V, datatype T (integer, decimal, double).
type numWant string

// numColumnGroups are the aggregates of testdata/numcolumn.trig's groups:
// COUNT(?v), SUM, AVG, MIN and MAX of ?v, worked out by hand. ints: the
// triple in both graphs counts once (1+2+3). mixed: 1 + 2.5e0 + 0.5 is the
// double 4 in any order, AVG 4/3 as a double. decs: exact decimals (as
// doubles, 0.1 + 0.2 is 0.30000000000000004). big: 9007199254740993 (2^53 + 1) is
// above 9007199254740992 as integers, equal as doubles. nan: NaN in a
// SUM or AVG makes it NaN. err: the string makes SUM and AVG errors. unb:
// the subject without a value makes SUM and AVG errors (an unbound
// argument) and is skipped by COUNT, MIN and MAX.
var numColumnGroups = map[string][5]numWant{
	"big":   {"int 3", "*", "*", "lex 1.0e0 double", "lex 9007199254740993 integer"},
	"decs":  {"int 2", "dec 0.3", "dec 0.15", "lex 0.1 decimal", "lex 0.2 decimal"},
	"err":   {"int 2", "", "", "*", "*"},
	"ints":  {"int 3", "int 6", "dec 2", "lex 1 integer", "lex 3 integer"},
	"ints2": {"int 2", "int 30", "dec 15", "lex 10 integer", "lex 20 integer"},
	"mixed": {"int 3", "dbl 4", "dbl 4/3", "lex 0.5 decimal", "lex 2.5e0 double"},
	"nan":   {"int 2", "dbl NaN", "dbl NaN", "*", "*"},
	"unb":   {"int 1", "", "", "lex 4 integer", "lex 4 integer"},
}

// numColumnFilters are numeric FILTERs over the join, with the subjects
// that pass, by hand. NaN fails every comparison; the string makes each
// an error (the row is dropped). 9007199254740993 > 9007199254740992 as
// integers, but meets a double constant as 2^53.
var numColumnFilters = []struct{ filter, want string }{
	{`FILTER(?v > 1)`, "a2 a3 b2 d1 d3 h1 i1 i2"},
	{`FILTER(?v <= 2)`, "a1 a2 b1 b3 c1 c2 d2 e1 f1"},
	{`FILTER(1 < ?v && ?v < 4)`, "a2 a3 b2"},
	{`FILTER(?v > 9007199254740992)`, "d1"},
	{`FILTER(?v >= 9007199254740992.0e0)`, "d1 d3"},
	{`FILTER(?v = 9007199254740992)`, "d3"},
	{`FILTER(?v + 1 > 9007199254740993)`, "d1"},
	{`FILTER(?v * 2 = 40)`, "i2"},
	{`FILTER(?v != 1 && ?v < 3)`, "a2 b2 b3 c1 c2"},
}

// checkNum compares a result term with a hand-worked want.
func checkNum(t kb.Term, want numWant) bool {
	switch {
	case want == "*":
		return true
	case want == "":
		return t == kb.Term{}
	}
	f := strings.Fields(string(want))
	if f[0] == "lex" {
		return t.Kind == kb.KindLiteral && t.Value == f[1] && t.Datatype == "http://www.w3.org/2001/XMLSchema#"+f[2]
	}
	if t.Kind != kb.KindLiteral {
		return false
	}
	switch f[0] {
	case "int":
		return t.Datatype == ontology.XSDInteger && t.Value == f[1]
	case "dec":
		got, ok1 := new(big.Rat).SetString(t.Value)
		exp, ok2 := new(big.Rat).SetString(f[1])
		return t.Datatype == ontology.XSDDecimal && ok1 && ok2 && got.Cmp(exp) == 0
	}
	got, err := strconv.ParseFloat(t.Value, 64)
	if t.Datatype != ontology.XSDDouble || err != nil {
		return false
	}
	switch f[1] {
	case "NaN":
		return math.IsNaN(got)
	case "4/3":
		return got == 4.0/3.0
	}
	exp, _ := strconv.ParseFloat(f[1], 64)
	return got == exp
}

// TestNumColumn checks GROUP BY aggregates and numeric FILTERs over a join
// (numcolumn.go) against the hand-worked answers, with the numeric column
// on and off, optimized and not, on every store, twice (the second run
// reads the column the first filled), then again after a write adds a
// value to a group whose values the column holds.
func TestNumColumn(t *testing.T) {
	stores := trigStores(t, "testdata/numcolumn.trig", "http://e/")
	defer func() { numColumnOn = true }()
	const grouped = `PREFIX ex: <http://e/>
SELECT ?g (COUNT(?v) AS ?n) (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (MIN(?v) AS ?min) (MAX(?v) AS ?max)
{ ?s ex:grp ?g OPTIONAL { ?s ex:v ?v } } GROUP BY ?g ORDER BY ?g`
	type filterCase struct{ filter, want string }
	check := func(t *testing.T, name string, ds kb.Dataset, groups map[string][5]numWant, filters []filterCase) {
		for _, way := range []struct{ col, noOpt bool }{{true, false}, {true, true}, {true, false}, {false, false}, {false, true}} {
			numColumnOn = way.col
			opts := Options{NoOptimize: way.noOpt}
			rows, err := run(t, ds, grouped, opts)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, way, err)
			}
			if len(rows) != len(groups) {
				t.Errorf("%s %+v: %d groups, want %d", name, way, len(rows), len(groups))
			}
			for _, r := range rows {
				g := strings.TrimPrefix(r[0].Value, "http://e/")
				want, ok := groups[g]
				if !ok {
					t.Errorf("%s %+v: unexpected group %s", name, way, g)
					continue
				}
				for i, w := range want {
					if !checkNum(r[i+1], w) {
						t.Errorf("%s %+v: group %s aggregate %d: got %v, want (by hand) %q", name, way, g, i, r[i+1], w)
					}
				}
			}
			for _, c := range filters {
				q := `PREFIX ex: <http://e/> SELECT ?s { ?s ex:grp ?g . ?s ex:v ?v ` + c.filter + ` } ORDER BY ?s`
				rows, err := run(t, ds, q, opts)
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.filter, err)
				}
				var got []string
				for _, r := range rows {
					got = append(got, strings.TrimPrefix(r[0].Value, "http://e/"))
				}
				if g := strings.Join(got, " "); g != c.want {
					t.Errorf("%s %+v %s: got %q, want (by hand) %q", name, way, c.filter, g, c.want)
				}
			}
		}
	}
	for name, ds := range stores {
		var filters []filterCase
		for _, c := range numColumnFilters {
			filters = append(filters, filterCase(c))
		}
		check(t, name, ds, numColumnGroups, filters)
		if col := numColumnOf(ds); col != nil && col.Pages() == 0 {
			t.Errorf("%s: the queries filled no page of the numeric column", name)
		}
		// A write after the column holds the group's values: a new value,
		// a new ID, and the sums move with it.
		more := `@prefix ex: <http://e/> . ex:g1 { ex:a4 ex:grp ex:ints ; ex:v 10 . }`
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(more), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		after := map[string][5]numWant{}
		for g, w := range numColumnGroups {
			after[g] = w
		}
		after["ints"] = [5]numWant{"int 4", "int 16", "dec 4", "lex 1 integer", "lex 10 integer"}
		filters[0].want = "a2 a3 a4 b2 d1 d3 h1 i1 i2" // ex:a4's 10 > 1
		check(t, name+" after a write", ds, after, filters)
	}
	if _, ok := stores["native-disk"].(idColumner); !ok {
		t.Error("the native store offers no numeric column: the test checks only the general path")
	}
}
