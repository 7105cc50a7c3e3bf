// Package shacl validates RDF data against SHACL shapes (W3C Shapes
// Constraint Language, Core, plus SPARQL-based constraints where the
// query engine can run them) and writes the validation report as RDF.
//
//	shapes graph ──Parse──▶ *Shapes ──Validate(data)──▶ *Report ──Quads/WriteTurtle──▶ sh:ValidationReport
//
// Parse reads shapes from any graph of a kb.Dataset (usually an
// in-memory store holding a Turtle file, see LoadShapes); Validate walks
// the data graphs of another (or the same) Dataset by term IDs, so
// validating a store costs index lookups, not a copy of its data. Shapes
// that perfkb's converters must satisfy ship as ontology/perfonto-shapes.ttl
// (Default).
//
// Conformance: the W3C SHACL test suite (tests/core and tests/sparql of
// github.com/w3c/data-shapes, under testdata/w3c) runs in go test; with
// PERFKB_EARL_DIR set, the runner writes an EARL report there.
package shacl
