package syntax

import "github.com/perfkb/perfkb/kb"

// resolveIRI resolves ref against base per RFC 3986 section 5.2, with the
// RDF syntaxes' resolver. With an empty base, or when ref is already
// absolute, ref is returned unchanged: SPARQL compares IRIs as strings, so
// an absolute IRI is kept exactly as written, dot segments included (W3C
// test normalization-02), where Turtle would remove them.
func resolveIRI(base, ref string) string {
	if base == "" || kb.IsAbsoluteIRI(ref) {
		return ref
	}
	return kb.ResolveIRI(base, ref)
}
