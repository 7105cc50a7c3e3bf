package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/query/syntax"
)

// groupExistsCases are GROUP BYs over { ?s ex:grp ?g . ?s ex:m ?x . ?s
// ex:v ?v } on testdata/groupexists.trig, answers by hand, one line per
// group sorted, and the rows the BGP emits when it runs as written
// (NoOptimize): 8 joined rows (s1 three metrics, s2 one, s3 two, s5 two;
// s4 has none), or 4 when ?x, read by nothing, is matched once per ?s.
var groupExistsCases = []struct {
	name, sel, filter string
	want              string
	rows              int64
}{
	{"distinct aggregates", `(COUNT(DISTINCT ?v) AS ?a) (MIN(?v) AS ?b) (MAX(?v) AS ?c) (SUM(DISTINCT ?v) AS ?d) (AVG(DISTINCT ?v) AS ?e)`, ``,
		"A 2 1 2 3 1.5|B 1 2 2 2 2|C 1 7 7 7 7", 4},
	// Unoptimized, the FILTER stays above the BGP, which then is not the
	// GROUP BY's input: all 8 rows (optimized, it moves into the BGP).
	{"sample of one value", `(SAMPLE(?v) AS ?a) (COUNT(DISTINCT ?s) AS ?b)`, `FILTER(?g != "A")`, "B 2 1|C 7 1", 8},
	{"count of rows", `(COUNT(*) AS ?a) (COUNT(DISTINCT ?v) AS ?b)`, ``, "A 4 2|B 2 1|C 2 1", 8},
	{"count distinct rows", `(COUNT(DISTINCT *) AS ?a)`, ``, "A 4|B 2|C 2", 8},
	{"sum of rows", `(SUM(?v) AS ?a)`, ``, "A 5|B 4|C 14", 8},
	{"metric in a filter", `(COUNT(DISTINCT ?v) AS ?a)`, `FILTER(?x = <http://e/m4>)`, "A 1", 8},
	{"metric in an aggregate", `(COUNT(DISTINCT ?x) AS ?a) (MAX(?v) AS ?b)`, ``, "A 4 2|B 2 2|C 2 7", 8},
}

func TestGroupExists(t *testing.T) {
	defer func(min float64, w, blk int, on bool) {
		groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn = min, w, blk, on
	}(groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn)
	for name, ds := range trigStores(t, "testdata/groupexists.trig", "") {
		for _, c := range groupExistsCases {
			text := `PREFIX ex: <http://e/> SELECT ?g ` + c.sel + ` { ?s ex:grp ?g . ?s ex:m ?x . ?s ex:v ?v ` + c.filter + ` } GROUP BY ?g`
			q, err := syntax.ParseQuery(text, syntax.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 3} {
				for _, noOpt := range []bool{true, false} {
					groupJoinOn, groupJoinMin, groupJoinWorkers, groupJoinBlock = workers > 1, 0, workers, 1
					res, err := Query(context.Background(), ds, q, Options{NoOptimize: noOpt})
					if err != nil {
						t.Fatalf("%s %s: %v", name, c.name, err)
					}
					var lines []string
					for r, ok := res.Next(); ok; r, ok = res.Next() {
						var f []string
						for _, x := range r {
							f = append(f, x.Value)
						}
						lines = append(lines, strings.Join(f, " "))
					}
					if err := res.Err(); err != nil {
						t.Fatal(err)
					}
					slices.Sort(lines)
					if got := strings.Join(lines, "|"); got != c.want {
						t.Errorf("%s %s workers %d noOpt %v: got %q, want %q", name, c.name, workers, noOpt, got, c.want)
					}
					if !noOpt || workers > 1 {
						continue // the planner may put ?x's pattern first, and workers count per copy
					}
					if got := bgpRows(res.plan); got != c.rows {
						t.Errorf("%s %s: the BGP emitted %d rows, want %d", name, c.name, got, c.rows)
					}
				}
			}
		}
	}
}

// bgpRows returns the rows the first BGP under nd emitted.
func bgpRows(nd node) int64 {
	if b, ok := nd.(*bgpNode); ok {
		return b.actual
	}
	for _, c := range nd.children() {
		if n := bgpRows(c); n >= 0 {
			return n
		}
	}
	return -1
}
