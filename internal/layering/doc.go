// Package layering holds the test that keeps perfkb's packages in their
// layers (DESIGN.md's package map): the ontology depends on nothing of
// perfkb, the store only on the ontology, converters never on the query or
// rule engines, and so on up to the CLI. Rules are the map from each
// top-level directory to the top-level directories its (non-test) packages
// may import, directly or not; a new top-level directory must be added to
// the map before its packages build into the tree.
package layering

// Rules maps each top-level directory of the module to the top-level
// directories its packages may depend on besides their own; "*" allows
// any. The test fails for a package in a directory the map does not list.
var Rules = map[string][]string{
	"textpos":  {},
	"ontology": {"textpos"},
	"rules":    {"ontology", "textpos"},
	"internal": {"kb", "ontology", "textpos"},
	"kb":       {"ontology", "textpos", "internal"},
	"query":    {"kb", "ontology", "textpos", "internal"},
	"reasoner": {"query", "kb", "rules", "ontology", "textpos", "internal"},
	"convert":  {"kb", "ontology", "textpos", "internal"},
	"monitor":  {"convert", "reasoner", "query", "kb", "rules", "ontology", "textpos", "internal"},
	"analysis": {"reasoner", "query", "kb", "rules", "ontology", "textpos", "internal"},
	"shacl":    {"query", "kb", "ontology", "textpos", "internal"},
	"server":   {"monitor", "analysis", "shacl", "convert", "reasoner", "query", "kb", "rules", "ontology", "textpos", "internal"},
	"cmd":      {"*"},
	"bench":    {"*"},
}

// TestSupport lists packages that only tests import, with why they may
// reach above their layer. The check still covers them from the other
// side: a production package that imported one would depend on what it
// reaches and fail its own row.
var TestSupport = map[string]string{
	"convert/converttest": "the converter conformance suite checks every converter's output against the shipped SHACL shapes",
}
