package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestCountTopOneGraph checks that a grouped count of one pattern over a
// default graph of one graph (what a SPARQL protocol request with
// default-graph-uri asks for, and FROM) is counted by CountJoin with the
// limit of ORDER BY count LIMIT k handed down, as over the union default
// graph, and answers as worked by hand from testdata/countjoin.nq.
func TestCountTopOneGraph(t *testing.T) {
	const pre = "PREFIX : <http://ex/> "
	const byO = "SELECT ?o (COUNT(*) AS ?n) { ?s :p ?o } GROUP BY ?o "
	g1 := kb.IRI("http://ex/g1")
	tests := []struct {
		name, query string
		dataset     DatasetSpec
		want        string // key=count, sorted on the key where unordered
		top         bool   // the limit reaches CountJoin
	}{
		// The unnamed graph: x1 (a, b), x2 (a), x3 (c).
		{"default graph, top 1", byO + "ORDER BY DESC(?n) LIMIT 1",
			DatasetSpec{Default: []kb.Term{kb.DefaultGraph}}, "x1=2", true},
		{"default graph, all", byO,
			DatasetSpec{Default: []kb.Term{kb.DefaultGraph}}, "x1=2 x2=1 x3=1", false},
		// g1: x1 (a), x9 (f).
		{"g1, top 2", byO + "ORDER BY DESC(?n) LIMIT 2",
			DatasetSpec{Default: []kb.Term{g1}}, "x1=1 x9=1", true},
		{"g1 by FROM, top 1 ascending", strings.Replace(byO, "{", "FROM :g1 {", 1) + "ORDER BY ?n ?o LIMIT 1",
			DatasetSpec{}, "x1=1", false},
		{"g1 by subject", "SELECT ?s (COUNT(?o) AS ?n) { ?s :p ?o } GROUP BY ?s ORDER BY DESC(?n) LIMIT 5",
			DatasetSpec{Default: []kb.Term{g1}}, "a=1 f=1", true},
	}
	for sname, ds := range loadedStores(t, "testdata/countjoin.nq", rdfio.NQuads) {
		for _, tc := range tests {
			t.Run(sname+"/"+tc.name, func(t *testing.T) {
				text := pre + tc.query
				q, err := syntax.ParseQuery(text, syntax.Options{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := Query(context.Background(), ds, q, Options{Dataset: tc.dataset})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for {
					r, ok := res.Next()
					if !ok {
						break
					}
					got = append(got, strings.TrimPrefix(r[0].Value, "http://ex/")+"="+r[1].Value)
				}
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(tc.query, "ORDER BY") || strings.Contains(tc.name, "top 2") || strings.Contains(tc.name, "by subject") {
					// Unordered, or ties all kept: compare as sets.
					slices.Sort(got)
				}
				if g := strings.Join(got, " "); g != tc.want {
					t.Errorf("%s over %v:\n got %s\nwant %s", text, tc.dataset.Default, g, tc.want)
				}
				plan := res.Explain()
				if !strings.Contains(plan, "CountJoin") {
					t.Errorf("%s: not counted by CountJoin:\n%s", text, plan)
				}
				if top := strings.Contains(plan, "only the groups among"); top != tc.top {
					t.Errorf("%s: limit handed to CountJoin %v, want %v\n%s", text, top, tc.top, plan)
				}
			})
		}
		ds.Close()
	}
}
