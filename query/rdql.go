package query

import (
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/syntax"
)

// IsRDQL reports whether text looks like a legacy RDQL query (a SELECT
// whose WHERE clause starts with a parenthesised triple pattern).
func IsRDQL(text string) bool { return syntax.LooksLikeRDQL(text) }

// parseRDQL parses a legacy RDQL query into the algebra of its SPARQL
// equivalent.
func parseRDQL(text string, opts Options) (*algebra.Query, error) {
	return syntax.ParseRDQL(text, syntax.Options{BaseIRI: opts.Base, Source: opts.Source})
}
