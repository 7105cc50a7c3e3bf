package cayleyqs

import (
	"testing"

	"github.com/cayleygraph/quad"
)

func TestValueTermRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		v    quad.Value
	}{
		{"iri", quad.IRI("http://example.org/x")},
		{"bnode", quad.BNode("b1")},
		{"string", quad.String("s")},
		{"lang", quad.LangString{Value: "v", Lang: "en"}},
		{"typed", quad.TypedString{Value: "10", Type: "int"}},
		{"int", quad.Int(-42)},
		{"float", quad.Float(-12345e-6)},
		{"bool", quad.Bool(true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			term, ok := TermFromValue(tc.v)
			if !ok {
				t.Fatalf("TermFromValue(%#v) failed", tc.v)
			}
			if got := ValueFromTerm(term); got != tc.v {
				t.Errorf("ValueFromTerm(TermFromValue(%#v)) = %#v", tc.v, got)
			}
		})
	}
}
