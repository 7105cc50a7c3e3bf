package pg_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

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
