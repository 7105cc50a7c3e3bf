package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestCountJoinTop checks ORDER BY a count with a LIMIT over a grouped
// CountJoin (counttop.go) against rows worked by hand over
// testdata/countjoin.nq, in order. Groups of ?o over ?s :p ?o: x1=2,
// x2=1, x3=1, x9=1; over the UNION of :p and :r by ?s: a=2 b=1 c=1 d=1
// e=2 f=1. Among equal counts ORDER BY keeps arrival order, which the
// counted ways make ascending term IDs (the terms' order in the file:
// x1 x2 x3 x9, a b c d e f); the row operators group in another order,
// so for them only the counts, in order, are checked (order), unless the
// answer has no tie to cut (all).
func TestCountJoinTop(t *testing.T) {
	const pre = "PREFIX : <http://ex/> "
	const byO = "SELECT ?o (COUNT(*) AS ?n) { ?s :p ?o } GROUP BY ?o "
	const byS = "SELECT ?s (COUNT(*) AS ?c) { { ?s :p ?o } UNION { ?s :r ?o } } GROUP BY ?s "
	tests := []struct {
		name, query string
		want        string // counted ways: key=count in order
		counts      string // every way: the counts in order
		top         bool   // the limit reaches CountJoin
	}{
		{"desc limit 1", byO + "ORDER BY DESC(?n) LIMIT 1", "x1=2", "2", true},
		{"desc limit 2, tie cut", byO + "ORDER BY DESC(?n) LIMIT 2", "x1=2 x2=1", "2 1", true},
		{"asc limit 2, tie cut", byO + "ORDER BY ?n LIMIT 2", "x2=1 x3=1", "1 1", true},
		{"asc limit 3", byO + "ORDER BY ASC(?n) LIMIT 3", "x2=1 x3=1 x9=1", "1 1 1", true},
		{"asc limit past the groups", byO + "ORDER BY ?n LIMIT 10", "x2=1 x3=1 x9=1 x1=2", "1 1 1 2", true},
		{"offset", byO + "ORDER BY DESC(?n) OFFSET 1 LIMIT 2", "x2=1 x3=1", "1 1", true},
		{"limit 0", byO + "ORDER BY DESC(?n) LIMIT 0", "", "", false},
		{"two top counts, tie cut", byS + "ORDER BY DESC(?c) LIMIT 1", "a=2", "2", true},
		{"ties above and at the cut", byS + "ORDER BY DESC(?c) LIMIT 3", "a=2 e=2 b=1", "2 2 1", true},
		{"asc ties", byS + "ORDER BY ?c LIMIT 5", "b=1 c=1 d=1 f=1 a=2", "1 1 1 1 2", true},
		// Not handed down: a second key, a key that is not the count, a
		// HAVING between.
		{"second key", byO + "ORDER BY DESC(?n) ?o LIMIT 2", "x1=2 x2=1", "2 1", false},
		{"key not the count", byO + "ORDER BY DESC(?o) LIMIT 2", "x9=1 x3=1", "1 1", false},
		{"having", byS + "HAVING (COUNT(*) < 2) ORDER BY DESC(?c) LIMIT 2", "b=1 c=1", "1 1", false},
		// An extend over the count sorted on.
		{"count renamed", "SELECT ?o ?m { { SELECT ?o (COUNT(*) AS ?n) { ?s :p ?o } GROUP BY ?o } BIND(?n AS ?m) } ORDER BY DESC(?m) LIMIT 2",
			"x1=2 x2=1", "2 1", false},
	}
	for sname, ds := range loadedStores(t, "testdata/countjoin.nq", rdfio.NQuads) {
		for _, way := range []struct {
			name string
			on   bool
			opts Options
		}{
			{"counted", true, Options{}},
			{"rows", false, Options{}},
			{"not-optimized", true, Options{NoOptimize: true}},
		} {
			for _, tc := range tests {
				t.Run(sname+"/"+way.name+"/"+tc.name, func(t *testing.T) {
					countJoinOn = way.on
					defer func() { countJoinOn = true }()
					text := pre + tc.query
					q, err := syntax.ParseQuery(text, syntax.Options{})
					if err != nil {
						t.Fatal(err)
					}
					res, err := Query(context.Background(), ds, q, way.opts)
					if err != nil {
						t.Fatal(err)
					}
					var got, counts []string
					for {
						r, ok := res.Next()
						if !ok {
							break
						}
						got = append(got, strings.TrimPrefix(r[0].Value, "http://ex/")+"="+r[1].Value)
						counts = append(counts, r[1].Value)
					}
					if err := res.Err(); err != nil {
						t.Fatal(err)
					}
					graphLast := sname == "native-memory"
					counted := way.on && !way.opts.NoOptimize && graphLast
					if g := strings.Join(counts, " "); g != tc.counts {
						t.Errorf("%s:\n got counts %s\nwant %s", text, g, tc.counts)
					}
					if g := strings.Join(got, " "); counted && g != tc.want {
						t.Errorf("%s:\n got %s\nwant %s", text, g, tc.want)
					}
					top := strings.Contains(res.Explain(), "only the groups among")
					if want := tc.top && counted; top != want {
						t.Errorf("%s: limit handed to CountJoin %v, want %v\n%s", text, top, want, res.Explain())
					}
				})
			}
		}
		ds.Close()
	}
}

// TestTopCounts checks which counts topCounts keeps against choices
// worked by hand.
func TestTopCounts(t *testing.T) {
	for _, tc := range []struct {
		counts []int64
		keep   int64
		desc   bool
		want   []int // indexes kept; nil: all
	}{
		{[]int64{1, 1, 1, 1}, 2, true, []int{0, 1}},
		{[]int64{1, 3, 1, 2, 3}, 2, true, []int{1, 4}},
		{[]int64{1, 3, 1, 2, 3}, 3, true, []int{1, 3, 4}},
		{[]int64{1, 3, 1, 2, 3}, 3, false, []int{0, 2, 3}},
		{[]int64{5, 4, 4, 4, 6}, 2, true, []int{0, 4}},
		{[]int64{5, 4, 4, 4, 6}, 3, true, []int{0, 1, 4}},
		{[]int64{5, 4, 4, 4, 6}, 2, false, []int{1, 2}},
		{[]int64{2, 1}, 2, true, nil},
		{[]int64{2, 1}, 5, false, nil},
	} {
		pick := topCounts(tc.counts, tc.keep, tc.desc)
		var got []int
		for i, p := range pick {
			if p {
				got = append(got, i)
			}
		}
		if pick == nil {
			got = nil
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("topCounts(%v, %d, desc %v) keeps %v, want %v", tc.counts, tc.keep, tc.desc, got, tc.want)
		}
	}
}
