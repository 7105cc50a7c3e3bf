package pg_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
)

// TestPushdown: a query's BGP of several patterns is answered by the
// store in one request (explain says so), with the answers worked out by
// hand from fdwData.
func TestPushdown(t *testing.T) {
	ctx := context.Background()
	ds := newStore(t)
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(fdwData), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		want []string
	}{
		// r1 (site1, 12.5) and r3 (site2, 40.0) are MPI_Send.
		{`SELECT ?r ?t WHERE { ?r <http://e/name> "MPI_Send" ; <http://e/time> ?t }`,
			[]string{`[<http://e/r1> "12.5"^^<http://www.w3.org/2001/XMLSchema#double>]`, `[<http://e/r3> "40.0"^^<http://www.w3.org/2001/XMLSchema#double>]`}},
		// r4 calls r1, whose name is MPI_Send; the join crosses graphs.
		{`SELECT ?a ?n WHERE { ?a <http://e/calls> ?b . ?b <http://e/name> ?n }`,
			[]string{`[<http://e/r4> "MPI_Send"]`}},
		// Within one graph the same join has no solution.
		{`SELECT ?a ?n WHERE { GRAPH ?g { ?a <http://e/calls> ?b . ?b <http://e/name> ?n } }`, nil},
		// times above 5: 12.5, 40.0, 7 (r2's is 3).
		{`SELECT ?r WHERE { ?r <http://e/time> ?t ; <http://e/name> ?n FILTER(?t > 5) }`,
			[]string{`[<http://e/r1>]`, `[<http://e/r3>]`, `[<http://e/r4>]`}},
	}
	for _, tc := range tests {
		res, err := query.Run(ctx, ds, tc.q, query.Options{Explain: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		rows, err := res.Rows()
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		explain := res.Explain()
		res.Close()
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprint(r))
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s\n got %v\nwant %v", tc.q, got, tc.want)
		}
		if !strings.Contains(explain, "whole BGP matched by the store") {
			t.Errorf("%s: the BGP was not pushed down to the store:\n%s", tc.q, explain)
		}
	}
}

// numericData gives ?r <http://e/v> values of every kind a numeric FILTER
// meets: numbers of each numeric datatype, lexical forms the store's num
// column does not parse (leading space, xsd:int, ill-typed), single
// precision floats, NaN and infinities, and terms that are not numbers.
const numericData = `
<http://e/r01> <http://e/v> "5"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/r02> <http://e/v> "5.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://e/r03> <http://e/v> "5E0"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://e/r04> <http://e/v> " 5"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/r05> <http://e/v> "5"^^<http://www.w3.org/2001/XMLSchema#int> .
<http://e/r06> <http://e/v> "0.1"^^<http://www.w3.org/2001/XMLSchema#float> .
<http://e/r07> <http://e/v> "0.10000000149"^^<http://www.w3.org/2001/XMLSchema#float> .
<http://e/r08> <http://e/v> "NaN"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://e/r09> <http://e/v> "INF"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://e/r10> <http://e/v> "-INF"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://e/r11> <http://e/v> "abc" .
<http://e/r12> <http://e/v> "5" .
<http://e/r13> <http://e/v> <http://e/five> .
<http://e/r14> <http://e/v> "5"^^<http://e/custom> .
<http://e/r15> <http://e/v> "abc"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/r16> <http://e/v> "9007199254740993"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/r17> <http://e/v> "4.999999999999999999"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://e/r18> <http://e/v> "0.1"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://e/r19> <http://e/v> "-7"^^<http://www.w3.org/2001/XMLSchema#negativeInteger> .
<http://e/r20> <http://e/v> "5"@en .
`

// TestNumericPushdown: FILTER comparisons of a variable with a number go
// to the store with the BGP (kb.BGP.Numeric) and are applied in its SQL;
// every answer must equal the one the in-memory reference store gives
// through the query engine alone, over values of every kind.
func TestNumericPushdown(t *testing.T) {
	ctx := context.Background()
	ds := newStore(t)
	ref := kbtest.NewMemory()
	var data strings.Builder
	data.WriteString(numericData)
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&data, "<http://e/r%02d> <http://e/kind> <http://e/Value> .\n", i)
	}
	for _, target := range []kb.Dataset{ds, ref} {
		if _, err := rdfio.Load(ctx, target, strings.NewReader(data.String()), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
			t.Fatal(err)
		}
	}
	filters := []string{
		"?v > 5", "?v >= 5", "?v < 5", "?v <= 5", "?v = 5", "5 < ?v", "5 >= ?v",
		"?v = 0.1", "?v > 0.1", "?v <= 0.1", `?v = "0.1"^^<http://www.w3.org/2001/XMLSchema#float>`,
		"?v > 9007199254740992", "?v = 9007199254740993", "?v >= 4.999999999999999999",
		"?v > 5 && ?v < 1E300", "?v != 5", "?v > -1E308", "?v < -5", "?v = 5.0E0",
	}
	for _, f := range filters {
		q := `SELECT ?r WHERE { ?r <http://e/v> ?v ; <http://e/kind> <http://e/Value> FILTER(` + f + `) }`
		got, explain := runSorted(t, ds, q)
		want, _ := runSorted(t, ref, q)
		if !slices.Equal(got, want) {
			t.Errorf("FILTER(%s): the PostgreSQL store answers\n %v\nthe reference store\n %v", f, got, want)
		}
		hinted := f != "?v != 5" && !strings.Contains(f, "#float")
		if hinted != strings.Contains(explain, "starts_with(") {
			t.Errorf("FILTER(%s): want the comparison in the store's SQL: %v; the plan:\n%s", f, hinted, explain)
		}
	}
}

// runSorted runs a SELECT query on ds and returns its rows, formatted and
// sorted, and the query's plan.
func runSorted(t *testing.T, ds kb.Dataset, q string) ([]string, string) {
	t.Helper()
	return runSortedCtx(context.Background(), t, ds, q)
}

// runSortedCtx is runSorted under ctx.
func runSortedCtx(ctx context.Context, t *testing.T, ds kb.Dataset, q string) ([]string, string) {
	t.Helper()
	res, err := query.Run(ctx, ds, q, query.Options{Explain: true})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	rows, err := res.Rows()
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r))
	}
	slices.Sort(out)
	return out, res.Explain()
}
