package cayleyadapter

import (
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// ToValue returns the Cayley value of a term.
func ToValue(t kb.Term) (quad.Value, error) {
	switch t.Kind {
	case kb.KindIRI:
		return quad.IRI(t.Value), nil
	case kb.KindBlank:
		return quad.BNode(t.Value), nil
	case kb.KindLiteral:
		switch {
		case t.Lang != "":
			return quad.LangString{Value: quad.String(t.Value), Lang: t.Lang}, nil
		case t.Datatype == "" || t.Datatype == ontology.XSDString:
			return quad.String(t.Value), nil
		default:
			return quad.TypedString{Value: quad.String(t.Value), Type: quad.IRI(t.Datatype)}, nil
		}
	}
	return nil, fmt.Errorf("cayleyadapter: cannot store %v", t)
}

// FromValue returns the term of a Cayley value. Cayley's native values
// (quad.Int, quad.Float, quad.Bool, quad.Time), which other tools may have
// written, become the equivalent typed literals.
func FromValue(v quad.Value) (kb.Term, error) {
	switch v := v.(type) {
	case quad.IRI:
		return kb.IRI(string(v)), nil
	case quad.BNode:
		return kb.Blank(string(v)), nil
	case quad.String:
		return kb.String(string(v)), nil
	case quad.TypedString:
		return kb.Literal(string(v.Value), string(v.Type)), nil
	case quad.LangString:
		return kb.LangLiteral(string(v.Value), v.Lang), nil
	case quad.TypedStringer:
		ts := v.TypedString()
		return kb.Literal(string(ts.Value), string(ts.Type)), nil
	case nil:
		return kb.Term{}, fmt.Errorf("cayleyadapter: missing value")
	}
	return kb.Term{}, fmt.Errorf("cayleyadapter: unsupported Cayley value %T (%v)", v, v)
}
