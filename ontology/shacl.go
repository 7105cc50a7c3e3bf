package ontology

// The SHACL and EARL namespaces, for the shacl package's vocabulary and
// its conformance reports.
const (
	// SHNamespace is the SHACL namespace.
	SHNamespace = "http://www.w3.org/ns/shacl#"
	// EARLNamespace is the W3C Evaluation and Report Language namespace
	// that conformance (implementation) reports are written in.
	EARLNamespace = "http://www.w3.org/ns/earl#"
)
