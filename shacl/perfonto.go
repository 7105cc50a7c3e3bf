package shacl

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// Default returns the shipped PERFONTO shapes (ontology/perfonto-shapes.ttl).
func Default(ctx context.Context) (*Shapes, error) {
	return LoadShapes(ctx, strings.NewReader(ontology.ShapesTurtle()), "perfonto-shapes.ttl", rdfio.Turtle)
}

// AddOntology loads PERFONTO into ds's ontology graph (kb.OntologyGraph),
// for data validated outside a store (a load being checked, a converter's
// output): PERFONTO's shapes target classes, and SHACL finds the instances
// of a class's subclasses through the rdfs:subClassOf triples of the data
// graph.
func AddOntology(ctx context.Context, ds kb.Dataset) error {
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(ontology.Turtle()), rdfio.LoadOptions{
		Format: rdfio.Turtle, Graph: kb.OntologyGraph, SourceName: "perfonto.ttl", BaseIRI: ontology.Namespace,
	}); err != nil {
		return fmt.Errorf("the built-in ontology: %w", err)
	}
	return nil
}
