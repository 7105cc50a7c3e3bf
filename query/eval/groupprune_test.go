package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/syntax"
)

// groupPruneCases are GROUP BYs over testdata/groupprune.trig, answers by
// hand (one line per group, sorted), and the rows the BGP emits when it
// runs as written (NoOptimize), serially. { ?s ex:grp ?g . ?s ex:m ?x }
// joins s1 (two metrics), s2, s3, s4 and s6 (one each); s0 and s5 have
// none. ?x is read by nothing, so its pattern stops at the first metric
// where the aggregates ignore repeats (groupexists.go): 5 rows, one per
// summary with a metric; 6 otherwise. When the group reads only ?g, a
// summary whose ?g a row already gave is skipped: s2 (A after s1) and s4
// (B after s3), 3 rows; s0 does not count as A's row, it gave none.
var groupPruneCases = []struct {
	name, query string
	want        string
	rows        int64 // -1: not checked
	skips       bool  // explain marks the first pattern
}{
	{"count distinct", `SELECT (COUNT(DISTINCT ?g) AS ?n) { ?s ex:grp ?g . ?s ex:m ?x }`, "3", 3, true},
	{"keys and sample", `SELECT ?g (SAMPLE(?g) AS ?a) (MIN(?g) AS ?b) { ?s ex:grp ?g . ?s ex:m ?x } GROUP BY ?g`, "A A A|B B B|D D D", 3, true},
	{"key of an expression", `SELECT ?k (COUNT(DISTINCT ?g) AS ?n) { ?s ex:grp ?g . ?s ex:m ?x } GROUP BY (?g < "C" AS ?k)`, "false 1|true 2", 3, true},
	{"group concat", `SELECT (GROUP_CONCAT(DISTINCT ?g; separator=",") AS ?n) { ?s ex:grp ?g . ?s ex:m ?x }`, "A,B,D", 3, true},
	// Not skipped: the group reads what the last pattern binds, or counts rows.
	{"argument bound last", `SELECT ?g (COUNT(DISTINCT ?x) AS ?n) { ?s ex:grp ?g . ?s ex:m ?x } GROUP BY ?g`, "A 3|B 2|D 1", 6, false},
	{"count of rows", `SELECT (COUNT(*) AS ?n) { ?s ex:grp ?g . ?s ex:m ?x }`, "6", 6, false},
	{"count distinct subjects", `SELECT ?g (COUNT(DISTINCT ?s) AS ?n) { ?s ex:grp ?g . ?s ex:m ?x } GROUP BY ?g`, "A 2|B 2|D 1", 5, true},
	// A filter on the later pattern: A's first summary with a value (s1,
	// 1) fails it, its second (s2, 2) passes; B's s3 passes, s4 repeats B.
	{"later filter", `SELECT (COUNT(DISTINCT ?g) AS ?n) (MAX(?g) AS ?m) { ?s ex:grp ?g . ?s ex:v ?v FILTER(?v > 1) }`, "3 D", -1, false},
	// A value made per row: every joined row differs, so neither skipping
	// nor first-match patterns (groupexists.go) apply: 6 rows, 6 values.
	{"per-row value", `SELECT (COUNT(DISTINCT STRUUID()) AS ?n) (COUNT(DISTINCT ?g) AS ?c) { ?s ex:grp ?g . ?s ex:m ?x }`, "6 3", 6, false},
	{"several runs", `SELECT ?h ?n { VALUES ?h { 1 2 } { SELECT (COUNT(DISTINCT ?g) AS ?n) { ?s ex:grp ?g . ?s ex:m ?x } } }`, "1 3|2 3", -1, false},
}

func TestGroupPrune(t *testing.T) {
	defer func(min float64, w, blk int, on, prune bool) {
		groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn, groupPruneOn = min, w, blk, on, prune
	}(groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn, groupPruneOn)
	for name, ds := range trigStores(t, "testdata/groupprune.trig", "") {
		for _, c := range groupPruneCases {
			q, err := syntax.ParseQuery(`PREFIX ex: <http://e/> `+c.query, syntax.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 3} {
				for _, noOpt := range []bool{true, false} {
					for _, prune := range []bool{true, false} {
						groupJoinOn, groupJoinMin, groupJoinWorkers, groupJoinBlock = workers > 1, 0, workers, 1
						groupPruneOn = prune
						res, err := Query(context.Background(), ds, q, Options{NoOptimize: noOpt})
						if err != nil {
							t.Fatalf("%s %s: %v", name, c.name, err)
						}
						if got := pruneLines(t, res); got != c.want {
							t.Errorf("%s %s workers %d noOpt %v prune %v: got %q, want %q", name, c.name, workers, noOpt, prune, got, c.want)
						}
						if !noOpt || workers > 1 || c.rows < 0 {
							continue // the planner may reorder, and workers count per copy
						}
						want := c.rows
						if !prune && c.skips {
							want = 5 // one row per summary with a metric
						}
						if got := bgpRows(res.plan); got != want {
							t.Errorf("%s %s prune %v: the BGP emitted %d rows, want %d", name, c.name, prune, got, want)
						}
						marked := strings.Contains(res.Explain(), "then skips rows whose")
						if marked != (prune && c.skips) {
							t.Errorf("%s %s prune %v: explain marks skipping %v, want %v:\n%s", name, c.name, prune, marked, prune && c.skips, res.Explain())
						}
					}
				}
			}
		}
	}
}

// pruneLines returns a result's rows, values space-separated, sorted and
// joined by "|".
func pruneLines(t *testing.T, res *Result) string {
	t.Helper()
	var lines []string
	for r, ok := res.Next(); ok; r, ok = res.Next() {
		var f []string
		for _, x := range r {
			if x.Kind == kb.KindIRI {
				f = append(f, strings.TrimPrefix(x.Value, "http://e/"))
				continue
			}
			f = append(f, x.Value)
		}
		lines = append(lines, strings.Join(f, " "))
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	return strings.Join(lines, "|")
}
