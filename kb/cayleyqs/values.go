package cayleyqs

import (
	"math"
	"strconv"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// TermFromValue converts a Cayley value to a term. Native numbers, booleans
// and times become xsd-typed literals; it reports false for nil and for
// value types it does not know.
func TermFromValue(v quad.Value) (kb.Term, bool) {
	switch v := v.(type) {
	case quad.IRI:
		return kb.IRI(string(v)), true
	case quad.BNode:
		return kb.Blank(string(v)), true
	case quad.String:
		return kb.String(string(v)), true
	case quad.LangString:
		return kb.LangLiteral(string(v.Value), v.Lang), true
	case quad.TypedString:
		return kb.Literal(string(v.Value), string(v.Type)), true
	case quad.Int:
		return kb.Literal(strconv.FormatInt(int64(v), 10), ontology.XSDInteger), true
	case quad.Float:
		return kb.Literal(formatDouble(float64(v)), ontology.XSDDouble), true
	case quad.Bool:
		return kb.Literal(strconv.FormatBool(bool(v)), ontology.XSDBoolean), true
	case quad.Time:
		return kb.Literal(time.Time(v).Format(time.RFC3339Nano), ontology.XSDDateTime), true
	}
	return kb.Term{}, false
}

// formatDouble is the canonical xsd:double lexical form of f.
func formatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'E', -1, 64)
}

// ValueFromTerm converts a term to a Cayley value. A literal whose lexical
// form is the canonical one for its xsd type comes back as the native value
// (quad.Int, quad.Float, quad.Bool, quad.Time); any other literal is a
// quad.TypedString or quad.LangString with its lexical form unchanged, so
// that no term changes on its way through Cayley.
func ValueFromTerm(t kb.Term) quad.Value {
	switch t.Kind {
	case kb.KindIRI:
		return quad.IRI(t.Value)
	case kb.KindBlank:
		return quad.BNode(t.Value)
	case kb.KindLiteral:
		switch t.Datatype {
		case ontology.XSDString, "":
			return quad.String(t.Value)
		case ontology.RDFLangString:
			return quad.LangString{Value: quad.String(t.Value), Lang: t.Lang}
		case ontology.XSDInteger:
			if n, err := strconv.ParseInt(t.Value, 10, 64); err == nil && strconv.FormatInt(n, 10) == t.Value {
				return quad.Int(n)
			}
		case ontology.XSDDouble:
			if f, err := strconv.ParseFloat(t.Value, 64); err == nil && formatDouble(f) == t.Value {
				return quad.Float(f)
			}
		case ontology.XSDBoolean:
			if t.Value == "true" || t.Value == "false" {
				return quad.Bool(t.Value == "true")
			}
		case ontology.XSDDateTime:
			if tm, err := time.Parse(time.RFC3339Nano, t.Value); err == nil && tm.Format(time.RFC3339Nano) == t.Value {
				return quad.Time(tm)
			}
		}
		return quad.TypedString{Value: quad.String(t.Value), Type: quad.IRI(t.Datatype)}
	}
	return nil
}
