package pg_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// pushedWhole is what --explain says of a GROUP BY a store answered in
// one request (kb.ClosureCounter, kb.BGPAggregator).
const pushedWhole = "answered by the store in one request"

// loadBoth loads testdata/pushdown-agg.nq into a new PostgreSQL store and
// the in-memory reference store.
func loadBoth(t *testing.T) (kb.Dataset, kb.Dataset) {
	t.Helper()
	ds := newStore(t)
	ref := kbtest.NewMemory()
	data, err := os.ReadFile("testdata/pushdown-agg.nq")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []kb.Dataset{ds, ref} {
		if _, err := rdfio.Load(context.Background(), target, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			t.Fatal(err)
		}
	}
	return ds, ref
}

// TestClosureCountPushdown: COUNT over a BGP joined with p+ or p* is one
// statement (kb.ClosureCounter), and answers what the reference store
// answers through the query engine alone, and what was worked out by
// hand, over a tree with a diamond (a reaches e twice), a cycle
// (x → y → z → x) and a triple held in two graphs.
func TestClosureCountPushdown(t *testing.T) {
	ds, ref := loadBoth(t)
	const pfx = "PREFIX e: <http://e/> "
	tests := []struct {
		name, q string
		want    string // the count, worked out by hand
		pushed  bool
	}{
		// roots without a parent: a only (x's parent is z, b's is a); a+ = b c d e.
		{"roots+", `SELECT (COUNT(?d) AS ?n) { ?r e:in e:exp1 ; e:kind e:Region FILTER NOT EXISTS { ?p e:child ?r } ?r e:child+ ?d }`, "4", true},
		// a* adds a itself.
		{"roots*", `SELECT (COUNT(?d) AS ?n) { ?r e:in e:exp1 ; e:kind e:Region FILTER NOT EXISTS { ?p e:child ?r } ?r e:child* ?d }`, "5", true},
		// a, b, x: a+ 4, b+ = c d e 3, x+ = y z x w 4 (the cycle brings x back once).
		{"all+", `SELECT (COUNT(*) AS ?n) { ?r e:in e:exp1 ; e:kind e:Region . ?r e:child+ ?d }`, "11", true},
		// a* 5, b* 4, x* = x y z w 4.
		{"all*", `SELECT (COUNT(?d) AS ?n) { ?r e:in e:exp1 ; e:kind e:Region . ?r e:child* ?d }`, "13", true},
		// w's ancestors: z, y, x (and z again through the cycle).
		{"inverse+", `SELECT (COUNT(?d) AS ?n) { ?r e:in e:exp2 ; e:kind e:Region . ?r ^e:child+ ?d }`, "3", true},
		// Only graph g1: roots a and b; a+ 4, b+ 3.
		{"from g1", `SELECT (COUNT(?d) AS ?n) FROM e:g1 { ?r e:in e:exp1 ; e:kind e:Region . ?r e:child+ ?d }`, "7", true},
		// A NOT EXISTS naming a term the store lacks keeps every root.
		{"unknown term", `SELECT (COUNT(?d) AS ?n) { ?r e:in e:exp1 ; e:kind e:Region FILTER NOT EXISTS { ?p e:nothing ?r } ?r e:child+ ?d }`, "11", true},
		// Another filter: the engine's own evaluation.
		{"other filter", `SELECT (COUNT(?d) AS ?n) { ?r e:in e:exp1 ; e:kind e:Region FILTER (?r != e:b) ?r e:child+ ?d }`, "8", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A walk that does not end at the cycle fails here, not by
			// hanging the test.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, explain := runSortedCtx(ctx, t, ds, pfx+tc.q)
			want, _ := runSorted(t, ref, pfx+tc.q)
			if !slices.Equal(got, want) {
				t.Errorf("the PostgreSQL store answers\n %v\nthe reference store\n %v", got, want)
			}
			if len(got) != 1 || !strings.Contains(got[0], `"`+tc.want+`"`) {
				t.Errorf("answer %v; want the count %s", got, tc.want)
			}
			if strings.Contains(explain, pushedWhole) != tc.pushed {
				t.Errorf("answered by the store in one request: want %v; the plan:\n%s", tc.pushed, explain)
			}
			if tc.pushed && !strings.Contains(explain, "WITH RECURSIVE") {
				t.Errorf("the plan shows no recursive statement:\n%s", explain)
			}
		})
	}
}

// TestAggregatePushdown: GROUP BY over a BGP with COUNT, SUM, AVG, MIN
// and MAX is one statement (kb.BGPAggregator) when the store can give
// every value exactly, and the engine's own evaluation otherwise (a group
// holding an integer, a NaN, or a maximum two distinct terms share); the
// answers equal the reference store's either way. The doubles sum exactly
// in any order.
func TestAggregatePushdown(t *testing.T) {
	ds, ref := loadBoth(t)
	const pfx = "PREFIX e: <http://e/> "
	const aggs = `(COUNT(*) AS ?n) (COUNT(?v) AS ?c) (SUM(?v) AS ?s) (AVG(?v) AS ?a) (MIN(?v) AS ?lo) (MAX(?v) AS ?hi)`
	tests := []struct {
		name, q string
		pushed  bool
	}{
		{"counts", `SELECT ?t (COUNT(*) AS ?n) (COUNT(?v) AS ?c) { ?m e:type ?t ; e:value ?v } GROUP BY ?t`, true},
		{"all types", `SELECT ?t ` + aggs + ` { ?m e:type ?t ; e:value ?v } GROUP BY ?t`, false},
		{"T1", `SELECT ?t ` + aggs + ` { ?m e:type "T1", ?t ; e:value ?v } GROUP BY ?t`, true},
		{"T1 per graph", `SELECT ?t ?g ` + aggs + ` { GRAPH ?g { ?m e:type "T1", ?t ; e:value ?v } } GROUP BY ?t ?g`, false},
		{"T1 from g2", `SELECT ?t ` + aggs + ` FROM e:g2 { ?m e:type "T1", ?t ; e:value ?v } GROUP BY ?t`, true},
		{"T1 not skipped", `SELECT ?t ` + aggs + ` { ?m e:type "T1", ?t ; e:value ?v FILTER NOT EXISTS { ?m e:skip ?x } } GROUP BY ?t`, true},
		{"T1 per metric", `SELECT ?t ?m (SUM(?v) AS ?s) (MAX(?v) AS ?hi) { ?m e:type "T1", ?t ; e:value ?v } GROUP BY ?t ?m`, true},
		{"T2 integer", `SELECT ?t ` + aggs + ` { ?m e:type "T2", ?t ; e:value ?v } GROUP BY ?t`, false},
		{"T3 sum", `SELECT ?t (COUNT(?v) AS ?c) (SUM(?v) AS ?s) (AVG(?v) AS ?a) { ?m e:type "T3", ?t ; e:value ?v } GROUP BY ?t`, true},
		{"T3 max tie", `SELECT ?t (MAX(?v) AS ?hi) { ?m e:type "T3", ?t ; e:value ?v } GROUP BY ?t`, false},
		{"T4 NaN", `SELECT ?t (SUM(?v) AS ?s) { ?m e:type "T4", ?t ; e:value ?v } GROUP BY ?t`, false},
		{"distinct", `SELECT ?t (COUNT(DISTINCT ?v) AS ?c) { ?m e:type ?t ; e:value ?v } GROUP BY ?t`, false},
		{"no groups", `SELECT ?t (SUM(?v) AS ?s) { ?m e:type "T9", ?t ; e:value ?v } GROUP BY ?t`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, explain := runSorted(t, ds, pfx+tc.q)
			want, _ := runSorted(t, ref, pfx+tc.q)
			if !slices.Equal(got, want) {
				t.Errorf("the PostgreSQL store answers\n %v\nthe reference store\n %v", got, want)
			}
			if strings.Contains(explain, pushedWhole) != tc.pushed && tc.name != "no groups" {
				t.Errorf("answered by the store in one request: want %v; the plan:\n%s", tc.pushed, explain)
			}
		})
	}
	// T1 by hand: m1 1.5 (in two graphs: once), m2 2.25, m3 -0.5, m3b 2.25.
	got, _ := runSorted(t, ds, pfx+`SELECT ?n ?s ?lo ?hi { { SELECT ?t `+aggs+` { ?m e:type "T1", ?t ; e:value ?v } GROUP BY ?t } }`)
	wantT1 := `["4"^^<http://www.w3.org/2001/XMLSchema#integer> "5.5"^^<http://www.w3.org/2001/XMLSchema#double> "-0.5"^^<http://www.w3.org/2001/XMLSchema#double> "2.25"^^<http://www.w3.org/2001/XMLSchema#double>]`
	if len(got) != 1 || got[0] != wantT1 {
		t.Errorf("T1's COUNT, SUM, MIN, MAX: %v; want %s", got, wantT1)
	}
}
