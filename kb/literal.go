package kb

import (
	"math"
	"strconv"

	"github.com/perfkb/perfkb/ontology"
)

// The typed-literal constructors for the numbers converters and analyses
// write. Their lexical forms are valid XSD and read back as the same value;
// SPARQL expression results have their own canonical forms (query/eval).

// Double returns an xsd:double literal in the shortest form that reads
// back as f (4.75, not 4.75E0; 1e+21 for large values), and INF, -INF or
// NaN for the special values.
func Double(f float64) Term {
	switch {
	case math.IsInf(f, 1):
		return Literal("INF", ontology.XSDDouble)
	case math.IsInf(f, -1):
		return Literal("-INF", ontology.XSDDouble)
	case math.IsNaN(f):
		return Literal("NaN", ontology.XSDDouble)
	}
	return Literal(strconv.FormatFloat(f, 'g', -1, 64), ontology.XSDDouble)
}

// Integer returns an xsd:integer literal.
func Integer(n int64) Term { return Literal(strconv.FormatInt(n, 10), ontology.XSDInteger) }

// Long returns an xsd:long literal.
func Long(n int64) Term { return Literal(strconv.FormatInt(n, 10), ontology.XSDLong) }
