package eval

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// aggScanParallelCases are GROUP BYs whose answers depend on the order a
// group's rows arrive in (GROUP_CONCAT, SAMPLE, the first error) or that
// mix DISTINCT and plain aggregates, worked out by hand from aggscan.trig:
// the native store scans one subject's objects in the order they were
// loaded. Blank-node subjects are filtered out (their labels are the
// store's).
var aggScanParallelCases = []struct {
	name, query string
	want        [][]string
}{
	// ex:d's STR(_:b1) is an error: its GROUP_CONCAT is unbound.
	{"concat-sample-distinct", `SELECT ?s (GROUP_CONCAT(STR(?o); separator=",") AS ?c) (COUNT(DISTINCT ?o) AS ?d) (SAMPLE(?o) AS ?x)
		FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(isIRI(?s)) } GROUP BY ?s ORDER BY ?s`,
		[][]string{
			{`<http://e/a>`, `"1,2,3,10,-4"`, `"5"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`},
			{`<http://e/b>`, `"1.5e0,2.5E0,NaN,-INF,2.0e0"`, `"5"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"1.5e0"^^<http://www.w3.org/2001/XMLSchema#double>`},
			{`<http://e/c>`, `"2.5,0.1,3,99999999999999999999"`, `"4"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"2.5"^^<http://www.w3.org/2001/XMLSchema#decimal>`},
			{`<http://e/d>`, ``, `"4"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"abc"`},
		}},
	// SUM over ex:a: 1+2+3+10-4; ex:b holds NaN; ex:d a string (an
	// error: unbound).
	{"sum", `SELECT ?s (SUM(?o) AS ?sum)
		FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(?s IN (<http://e/a>, <http://e/b>, <http://e/d>)) } GROUP BY ?s ORDER BY ?s`,
		[][]string{
			{`<http://e/a>`, `"12"^^<http://www.w3.org/2001/XMLSchema#integer>`},
			{`<http://e/b>`, `"NaN"^^<http://www.w3.org/2001/XMLSchema#double>`},
			{`<http://e/d>`, ``},
		}},
	// MIN and MAX keep the term they found: the long 10, the decimal 0.1.
	{"min-max", `SELECT ?s (MIN(?o) AS ?lo) (MAX(?o) AS ?hi)
		FROM <http://e/g1> { ?s <http://e/v> ?o FILTER(?s IN (<http://e/a>, <http://e/c>)) } GROUP BY ?s ORDER BY ?s`,
		[][]string{
			{`<http://e/a>`, `"-4"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"10"^^<http://www.w3.org/2001/XMLSchema#long>`},
			{`<http://e/c>`, `"0.1"^^<http://www.w3.org/2001/XMLSchema#decimal>`, `"99999999999999999999"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		}},
	// Groups by object over both graphs (the union default graph): each
	// value once per subject holding it.
	{"group-object-count", `SELECT ?o (COUNT(?s) AS ?n) { ?s <http://e/name> ?o } GROUP BY ?o ORDER BY ?o`,
		[][]string{{`"alpha"`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`"beta"`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}, {`"gamma"`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`}}},
}

// TestAggScanParallel runs the fused scan's cases dealt out to 2, 3 and 4
// workers on the native store and checks each against the answer worked
// out by hand; the order-dependent cases are also checked serially, so a
// wrong hand answer shows as a failure of both.
func TestAggScanParallel(t *testing.T) {
	ds := aggScanStores(t)["native"]
	defer func(min int64, w int) { aggScanParallelMin, aggScanWorkers = min, w }(aggScanParallelMin, aggScanWorkers)
	// A numeric FILTER on the object reads the value order instead of
	// dealing rows to workers (valueorder.go); this test is of the workers.
	defer func(on bool) { valueOrderOn = on }(valueOrderOn)
	valueOrderOn = false
	type tc = struct {
		name, query string
		want        [][]string
	}
	var cases []tc
	for _, c := range aggScanCases {
		cases = append(cases, tc(c))
	}
	for _, c := range aggScanParallelCases {
		cases = append(cases, tc(c))
	}
	for _, workers := range []int{1, 2, 3, 4} {
		aggScanParallelMin, aggScanWorkers = 0, workers
		before := aggScanParallelRuns.Load()
		for _, c := range cases {
			got, err := run(t, ds, c.query, Options{})
			if err != nil {
				t.Fatalf("%d workers, %s: %v", workers, c.name, err)
			}
			var text [][]string
			for _, r := range got {
				var row []string
				for _, term := range r {
					s := ""
					if !term.IsZero() {
						s = term.String()
					}
					row = append(row, s)
				}
				text = append(text, row)
			}
			if !sameText(text, c.want) {
				t.Errorf("%d workers, %s: got %v, want (by hand) %v", workers, c.name, text, c.want)
			}
		}
		ran := aggScanParallelRuns.Load() - before
		if workers == 1 && ran != 0 {
			t.Errorf("one worker: %d scans ran in parallel", ran)
		}
		// The cases with a GROUP BY key, one graph and an aggregate other
		// than COUNT (grouped counts alone are CountJoin's).
		if workers > 1 && ran < 4 {
			t.Errorf("%d workers: only %d scans ran in parallel", workers, ran)
		}
	}
}

// TestAggScanParallelBudget: a parallel scan charges the query's budget
// like the serial one, so a GROUP_CONCAT past it fails with the budget
// error on every worker count.
func TestAggScanParallelBudget(t *testing.T) {
	ds := aggScanStores(t)["native"]
	defer func(min int64, w int) { aggScanParallelMin, aggScanWorkers = min, w }(aggScanParallelMin, aggScanWorkers)
	q := `SELECT ?s (GROUP_CONCAT(STR(?o)) AS ?c) FROM <http://e/g1> { ?s <http://e/v> ?o } GROUP BY ?s`
	for _, workers := range []int{1, 3} {
		aggScanParallelMin, aggScanWorkers = 0, workers
		_, err := run(t, ds, q, Options{QueryMemory: 600})
		if !errors.Is(err, ErrLimit) {
			t.Errorf("%d workers: %v, want the query memory error", workers, err)
		}
		if _, err := run(t, ds, q, Options{QueryMemory: 1 << 20}); err != nil {
			t.Errorf("%d workers within the budget: %v", workers, err)
		}
	}
}

// TestAggScanParallelSameAsSerial: over 20,000 doubles in 97 groups,
// whose sums depend on the order they are added in, the parallel scan's
// SUM, AVG, GROUP_CONCAT and SAMPLE equal those of the serial scan and
// of groupNode bit for bit, and the groups come in the same order.
func TestAggScanParallelSameAsSerial(t *testing.T) {
	ds := native.OpenMemory()
	var b strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		fmt.Fprintf(&b, "<http://e/s%d> <http://e/v> \"%g\"^^<http://www.w3.org/2001/XMLSchema#double> .\n", rng.IntN(97), rng.Float64()*1e6-3e5)
		if i%7 == 0 {
			fmt.Fprintf(&b, "<http://e/s%d> <http://e/v> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", rng.IntN(97), rng.IntN(1000))
		}
	}
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(b.String()), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
		t.Fatal(err)
	}
	defer func(min int64, w int) { aggScanParallelMin, aggScanWorkers = min, w }(aggScanParallelMin, aggScanWorkers)
	q := `SELECT ?s (SUM(?o) AS ?sum) (AVG(?o) AS ?avg) (GROUP_CONCAT(STR(?o)) AS ?c) (SAMPLE(?o) AS ?x) (COUNT(DISTINCT ?o) AS ?d) { ?s <http://e/v> ?o }  GROUP BY ?s`
	aggScanParallelMin, aggScanWorkers = 1<<62, 1
	serial, err := run(t, ds, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	serial2, _ := run(t, ds, q, Options{})
	if !sameRows(serial, serial2) {
		t.Fatalf("serial twice differs%s", firstDiff(serial2, serial))
	}
	aggScanOn = false
	grouped, err := run(t, ds, q, Options{})
	aggScanOn = true
	if err != nil {
		t.Fatal(err)
	}
	if len(serial) != 97 || !sameRows(serial, grouped) {
		t.Fatalf("serial scan (%d groups) and groupNode (%d) differ", len(serial), len(grouped))
	}
	aggScanParallelMin = 0
	for _, workers := range []int{2, 5, 8} {
		aggScanWorkers = workers
		got, err := run(t, ds, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !sameRows(got, serial) {
			t.Errorf("%d workers: answers differ from the serial scan%s", workers, firstDiff(got, serial))
		}
	}
}

// firstDiff describes the first cell where a and b differ.
func firstDiff(a, b [][]kb.Term) string {
	for i := range min(len(a), len(b)) {
		for j := range min(len(a[i]), len(b[i])) {
			if a[i][j] != b[i][j] {
				x, y := a[i][j].String(), b[i][j].String()
				k := 0
				for k < min(len(x), len(y)) && x[k] == y[k] {
					k++
				}
				return fmt.Sprintf(": row %d column %d: …%s, want …%s", i, j, x[max(0, k-40):min(len(x), k+40)], y[max(0, k-40):min(len(y), k+40)])
			}
		}
	}
	return fmt.Sprintf(": %d rows, want %d", len(a), len(b))
}
