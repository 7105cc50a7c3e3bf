package reasoner_test

import (
	"context"
	"fmt"
	"log"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

// LoadSources compiles rule texts (and files or shipped sets by name) into
// one program; Run applies it to a store until nothing new follows, writing
// what it derives to the inferred graph.
func ExampleLoadSources() {
	ctx := context.Background()
	prog, err := reasoner.LoadSources(ctx, []reasoner.Source{{Name: "inline.rules", Text: []byte(`
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>.
@prefix ex: <http://example.org/>.
[large: (?m perfonto:hasMetricValue ?v), greaterThan(?v, 10) -> (?m rdf:type ex:LargeValue)]
`)}}, reasoner.ParseOptions{})
	if err != nil {
		log.Fatal(err)
	}
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
	sum, err := reasoner.Run(ctx, ds, prog, reasoner.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(prog.Len(), "rule;", sum.Derived, "triple derived by", sum.Firings)
	// Output:
	// 1 rule; 1 triple derived by map[large:1]
}
