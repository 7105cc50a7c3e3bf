package eval

import (
	"context"
	"strings"
	"testing"
)

// TestBGPExistential checks patterns that stop at their first match
// (groupexists.go) over testdata/bgpexist.trig, answers by hand:
//   - the groups of subjects with a metric are x (a, b) and y (c, e): 2,
//     and ex:m only has to match once per subject;
//   - COUNT(?o1) counts every metric's row: 3 + 1 + 2 + 1 = 7, and
//     COUNT(DISTINCT ?o2) the 7 metrics: both read every match;
//   - with FILTER(?o2 = ex:m3) only a's third metric passes: 1 group;
//     the filter reads ?o2, so ex:m must not stop at a's first metric;
//   - grouped by ?o1 with COUNT(DISTINCT ?s): x and y have 2 subjects
//     each, and ex:m still only has to match once per subject (?o2 is
//     read by nothing, groupexists.go).
func TestBGPExistential(t *testing.T) {
	cases := []struct {
		query string
		want  string
		first bool // explain shows "first match only"
	}{
		{`SELECT (COUNT(DISTINCT ?o1) AS ?n) { ?s <http://e/g> ?o1 . ?s <http://e/m> ?o2 }`, "2", true},
		{`SELECT (COUNT(?o1) AS ?n) { ?s <http://e/g> ?o1 . ?s <http://e/m> ?o2 }`, "7", false},
		{`SELECT (COUNT(DISTINCT ?o2) AS ?n) { ?s <http://e/g> ?o1 . ?s <http://e/m> ?o2 }`, "7", false},
		{`SELECT (COUNT(DISTINCT ?o1) AS ?n) { ?s <http://e/g> ?o1 . ?s <http://e/m> ?o2 FILTER(?o2 = <http://e/m3>) }`, "1", false},
		{`SELECT (COUNT(DISTINCT ?s) AS ?n) { ?s <http://e/g> ?o1 . ?s <http://e/m> ?o2 } GROUP BY ?o1 HAVING(?o1 = <http://e/x>)`, "2", true},
	}
	for name, ds := range trigStores(t, "testdata/bgpexist.trig", "") {
		for _, c := range cases {
			for _, noOpt := range []bool{false, true} {
				res, err := Query(context.Background(), ds, mustParse(t, c.query), Options{NoOptimize: noOpt})
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.query, err)
				}
				r, ok := res.Next()
				if !ok {
					t.Fatalf("%s %s: no row (%v)", name, c.query, res.Err())
				}
				if r[0].Value != c.want {
					t.Errorf("%s %s noOpt=%v: got %s, want (by hand) %s", name, c.query, noOpt, r[0].Value, c.want)
				}
				if _, more := res.Next(); more {
					t.Errorf("%s %s: more than one row", name, c.query)
				}
				if got := strings.Contains(res.Explain(), "first match only"); !noOpt && got != c.first {
					t.Errorf("%s %s: first match only %v, want %v\n%s", name, c.query, got, c.first, res.Explain())
				}
			}
		}
	}
}
