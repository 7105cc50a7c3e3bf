package convert_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Run drives a Converter into a Sink and closes the sink: committed when
// the conversion succeeds, discarded when it fails. Here a converter
// written as a function emits two triples to standard output as sorted
// N-Triples.
func ExampleRun() {
	base := convert.MustBase("http://perfkb.example/site/vienna/")
	c := convert.ConverterFunc(func(ctx context.Context, sink convert.Sink) (convert.Report, error) {
		exp := base.IRI("experiment", "1")
		rep := convert.Report{Converter: "example", Source: "inline"}
		for _, q := range []kb.TermQuad{
			{S: exp, P: kb.IRI(ontology.RDFType), O: kb.IRI(ontology.Experiment)},
			{S: exp, P: kb.IRI(ontology.NumberOfProcesses), O: kb.Literal("4", ontology.XSDInteger)},
		} {
			if err := sink.Add(ctx, q); err != nil {
				return rep, err
			}
			rep.Triples++
		}
		return rep, nil
	})
	rep, err := convert.Run(context.Background(), c, convert.NewNTriplesSink(os.Stdout, true))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Triples, "triples")
	// Output:
	// <http://perfkb.example/site/vienna/experiment/1> <http://www.par.univie.ac.at/project/scalea/perfonto#numberOfProcesses> "4"^^<http://www.w3.org/2001/XMLSchema#integer> .
	// <http://perfkb.example/site/vienna/experiment/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.par.univie.ac.at/project/scalea/perfonto#Experiment> .
	// 2 triples
}
