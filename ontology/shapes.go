package ontology

import (
	_ "embed" // for the embedded perfonto-shapes.ttl
)

//go:embed perfonto-shapes.ttl
var shapes string

// ShapesTurtle returns the PERFONTO SHACL shapes (perfonto-shapes.ttl):
// what converters must produce for the shipped rules and analyses.
func ShapesTurtle() string { return shapes }
