package syntax

import "github.com/perfkb/perfkb/kb"

// resolveIRI resolves ref against base as SPARQL does (kb.ResolveRelative:
// an absolute ref is kept exactly as written).
func resolveIRI(base, ref string) string { return kb.ResolveRelative(base, ref) }
