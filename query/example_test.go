package query_test

import (
	"context"
	"fmt"
	"log"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

// Run answers a SPARQL query over any kb.Dataset; Rows collects a SELECT's
// bindings in the order of the projection.
func ExampleRun() {
	ctx := context.Background()
	ds := native.OpenMemory()
	p := kb.IRI(ontology.HasMetricValue)
	quads, err := kb.InternQuads(ctx, ds, []kb.TermQuad{
		{S: kb.IRI("http://example.org/m1"), P: p, O: kb.Literal("12.5", ontology.XSDDouble), G: kb.DefaultGraph},
		{S: kb.IRI("http://example.org/m2"), P: p, O: kb.Literal("3", ontology.XSDInteger), G: kb.DefaultGraph},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Add: quads}); err != nil {
		log.Fatal(err)
	}
	res, err := query.Run(ctx, ds, `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?m ?v WHERE { ?m perfonto:hasMetricValue ?v FILTER(?v > 5) }`, query.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	rows, err := res.Rows()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Vars)
	for _, r := range rows {
		fmt.Println(r[0].Value, r[1].Value)
	}
	// Output:
	// [m v]
	// http://example.org/m1 12.5
}
