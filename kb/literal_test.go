package kb

import (
	"math"
	"testing"

	"github.com/perfkb/perfkb/ontology"
)

func TestTypedLiterals(t *testing.T) {
	for _, tc := range []struct {
		got               Term
		lexical, datatype string
	}{
		{Double(4.75), "4.75", ontology.XSDDouble},
		{Double(-0.001), "-0.001", ontology.XSDDouble},
		{Double(1e21), "1e+21", ontology.XSDDouble},
		{Double(0), "0", ontology.XSDDouble},
		{Double(math.Inf(1)), "INF", ontology.XSDDouble},
		{Double(math.Inf(-1)), "-INF", ontology.XSDDouble},
		{Double(math.NaN()), "NaN", ontology.XSDDouble},
		{Integer(-42), "-42", ontology.XSDInteger},
		{Long(9007199254740993), "9007199254740993", ontology.XSDLong},
	} {
		want := Term{Kind: KindLiteral, Value: tc.lexical, Datatype: tc.datatype}
		if tc.got != want {
			t.Errorf("got %v; want %v", tc.got, want)
		}
	}
}
