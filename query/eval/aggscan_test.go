package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// aggScanStores loads testdata/aggscan.trig into the reference store and
// into a native in-memory store (which adds QuadScanner and TermTable).
func aggScanStores(t *testing.T) map[string]kb.Dataset {
	t.Helper()
	data, err := os.ReadFile("testdata/aggscan.trig")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kb.Dataset{"kbtest": kbtest.NewMemory(), "native": native.OpenMemory()}
	for name, ds := range out {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.TriG, BaseIRI: "http://e/"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return out
}

// The aggregate queries over one triple pattern that the fused scan
// answers, each with the answer worked out by hand from aggscan.trig (rows
// in the query's order; the values as N-Triples terms).
var aggScanCases = []struct {
	name, query string
	want        [][]string
}{
	{"count-g1", `SELECT (COUNT(*) AS ?n) (COUNT(?o) AS ?m) FROM <http://e/g1> { ?s <http://e/v> ?o }`,
		[][]string{{`"21"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"21"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"count-graph", `SELECT (COUNT(?s) AS ?n) { GRAPH <http://e/g2> { ?s <http://e/v> ?o } }`,
		[][]string{{`"4"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	// The union default graph counts ex:a ex:v 1 and 2 once.
	{"count-union", `SELECT (COUNT(*) AS ?n) { ?s <http://e/v> ?o }`,
		[][]string{{`"23"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	// Over the union default graph the fused scan drops a triple's repeat
	// in another graph and the rule-internal graph: >= 2 holds for g1's 9
	// and for ex:a 40 and ex:z 2.0e0 of g2 (ex:a 2 of g2 repeats g1's).
	{"union-filter", `SELECT (COUNT(?s) AS ?n) { ?s <http://e/v> ?o FILTER(?o >= 2) }`,
		[][]string{{`"11"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	// ex:a's values: 1, 2, 3, 10, -4 (g1) and 40 (g2); not 5 (hidden).
	{"union-sum", `SELECT (SUM(?o) AS ?s) (COUNT(?o) AS ?c) { <http://e/a> <http://e/v> ?o }`,
		[][]string{{`"52"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"6"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"union-group", `SELECT ?o (COUNT(?s) AS ?n) { ?s <http://e/name> ?o } GROUP BY ?o ORDER BY ?o`,
		[][]string{{`"alpha"`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`"beta"`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`"gamma"`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"count-missing", `SELECT (COUNT(*) AS ?n) (SUM(?o) AS ?s) FROM <http://e/g1> { ?s <http://e/nothing> ?o }`,
		[][]string{{`"0"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"0"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"count-distinct", `SELECT (COUNT(DISTINCT ?o) AS ?n) FROM <http://e/g1> { ?s <http://e/name> ?o }`,
		[][]string{{`"3"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"isblank", `SELECT (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s ?p ?o FILTER isBlank(?s) }`,
		[][]string{{`"4"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"isliteral", `SELECT (COUNT(?o) AS ?n) FROM <http://e/g1> { ?s ?p ?o FILTER isLiteral(?o) }`,
		[][]string{{`"22"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"isiri-object", `SELECT (COUNT(*) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o FILTER isIRI(?o) }`,
		[][]string{{`"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	// >= 2: 2, 3, 10 (long), 2.5E0, 2.0E0, 2.5, 3 (float), 1e20, 7; not
	// NaN, -INF, "2" (a string: type error), IRIs, blank nodes.
	{"numeric-ge", `SELECT (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(?o >= 2) }`,
		[][]string{{`"9"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"numeric-lt-decimal", `SELECT (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(2.5 > ?o) }`,
		[][]string{{`"7"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	// 3 <= 3.0 is decided exactly (the integer equals the decimal's double).
	{"numeric-le-decimal", `SELECT (COUNT(?o) AS ?n) FROM <http://e/g1> { <http://e/a> <http://e/v> ?o FILTER(?o <= 3.0) }`,
		[][]string{{`"4"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"numeric-eq", `SELECT (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(?o = 2.5e0) }`,
		[][]string{{`"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	// NaN != 2 holds (fn:not of a false op:numeric-equal).
	{"numeric-ne", `SELECT (COUNT(?o) AS ?n) FROM <http://e/g1> { <http://e/b> <http://e/v> ?o FILTER(?o != 2) }`,
		[][]string{{`"4"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"sum-ints", `SELECT (SUM(?o) AS ?s) (MAX(?o) AS ?hi) (MIN(?o) AS ?lo) FROM <http://e/g1> { <http://e/a> <http://e/v> ?o }`,
		[][]string{{`"12"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"10"^^<http://www.w3.org/2001/XMLSchema#long>`, `"-4"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"group-count", `SELECT ?o (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/name> ?o } GROUP BY ?o ORDER BY ?o`,
		[][]string{{`"alpha"`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`"beta"`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`"gamma"`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
	{"group-filter", `SELECT ?s (COUNT(*) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(?o < 2) } GROUP BY ?s ORDER BY DESC(?n) ?s`,
		[][]string{{`<http://e/a>`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`<http://e/b>`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`<http://e/c>`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
}

// TestAggScan checks the fused aggregate scan against hand-computed answers
// and against groupNode (aggScanOn false) on both stores.
func TestAggScan(t *testing.T) {
	for name, ds := range aggScanStores(t) {
		for _, c := range aggScanCases {
			aggScanOn = false
			want, wantErr := run(t, ds, c.query, Options{})
			aggScanOn = true
			got, err := run(t, ds, c.query, Options{})
			if err != nil || wantErr != nil {
				t.Fatalf("%s %s: %v (groupNode: %v)", name, c.name, err, wantErr)
			}
			if !sameRows(got, want) {
				t.Errorf("%s %s: fused scan %v, groupNode %v", name, c.name, got, want)
			}
			text := rowsText(got)
			if !sameText(text, c.want) {
				t.Errorf("%s %s: got %v, want (by hand) %v", name, c.name, text, c.want)
			}
		}
	}
}

// TestAggScanUsed checks that the single-pattern aggregates are planned as
// the fused scan (grouped counts alone as CountJoin), and answered from the
// count where the issue expects it.
func TestAggScanUsed(t *testing.T) {
	ds := aggScanStores(t)["native"]
	for _, c := range []struct {
		query, want string
	}{
		{`SELECT (COUNT(*) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o }`, "from the store's count"},
		{`SELECT (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(?o >= 2) }`, "AggregateScan"},
		{`SELECT ?o (MIN(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/name> ?o } GROUP BY ?o`, "AggregateScan"},
		// Grouped counts alone are CountJoin's (runs of the key, a top k).
		{`SELECT ?o (COUNT(?s) AS ?n) FROM <http://e/g1> { ?s <http://e/name> ?o } GROUP BY ?o`, "CountJoin"},
		{`SELECT (COUNT(?s) AS ?n) { ?s <http://e/v> ?o FILTER(?o >= 2) }`, "AggregateScan"},
	} {
		q := mustParse(t, c.query)
		res, err := Query(context.Background(), ds, q, Options{Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, ok := res.Next(); !ok {
				break
			}
		}
		if ex := res.Explain(); !strings.Contains(ex, c.want) {
			t.Errorf("%s: plan lacks %q:\n%s", c.query, c.want, ex)
		}
	}
}

func sameRows(a, b [][]kb.Term) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// rowsText writes each row's terms as N-Triples terms, for comparing
// answers with rows worked out by hand.
func rowsText(rows [][]kb.Term) [][]string {
	var text [][]string
	for _, r := range rows {
		var row []string
		for _, term := range r {
			row = append(row, term.String())
		}
		text = append(text, row)
	}
	return text
}

func sameText(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], " ") != strings.Join(b[i], " ") {
			return false
		}
	}
	return true
}
