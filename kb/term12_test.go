package kb

import (
	"testing"

	"github.com/perfkb/perfkb/ontology"
)

// TestTripleTerm: a triple term is written <<( s p o )>> with its terms in
// N-Triples syntax (escapes included, written by hand here), and Triple
// gives back the very terms it was made of, nested triple terms too.
func TestTripleTerm(t *testing.T) {
	inner := TripleTerm(IRI("http://e/s"), IRI("http://e/p"), Blank("b1"))
	for _, tc := range []struct {
		s, p, o Term
		want    string
	}{
		{IRI("http://e/s"), IRI("http://e/p"), IRI("http://e/o"), `<<( <http://e/s> <http://e/p> <http://e/o> )>>`},
		{Blank("x"), IRI("http://e/p"), String("a \"q\" \\ \n"), `<<( _:x <http://e/p> "a \"q\" \\ \n" )>>`},
		{IRI("http://e/a b"), IRI("http://e/p"), LangLiteral("hi", "EN"), `<<( <http://e/a\u0020b> <http://e/p> "hi"@en )>>`},
		{IRI("http://e/s"), IRI("http://e/p"), DirLangLiteral("שלום", "he", "RTL"), `<<( <http://e/s> <http://e/p> "שלום"@he--rtl )>>`},
		{IRI("http://e/s"), IRI("http://e/p"), Literal("1", ontology.XSDInteger), `<<( <http://e/s> <http://e/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> )>>`},
		{inner, IRI("http://e/p"), inner, `<<( <<( <http://e/s> <http://e/p> _:b1 )>> <http://e/p> <<( <http://e/s> <http://e/p> _:b1 )>> )>>`},
	} {
		tt := TripleTerm(tc.s, tc.p, tc.o)
		if got := tt.String(); got != tc.want {
			t.Errorf("String() = %s, want %s", got, tc.want)
		}
		tr, ok := tt.Triple()
		if !ok || tr != (Triple{tc.s, tc.p, tc.o}) {
			t.Errorf("%s: Triple() = %v, %v", tc.want, tr, ok)
		}
	}
	if _, ok := IRI("http://e/s").Triple(); ok {
		t.Error("an IRI taken apart as a triple term")
	}
	if _, ok := (Term{Kind: KindTriple, Value: "<http://e/s> <http://e/p>"}).Triple(); ok {
		t.Error("a two-term Value taken apart")
	}
}

// TestDirLangLiteral: the base direction rides in Lang after "--" with
// datatype rdf:dirLangString, and Language and Direction split it.
func TestDirLangLiteral(t *testing.T) {
	l := DirLangLiteral("x", "en-GB", "LTR")
	if l.Lang != "en-gb--ltr" || l.Datatype != ontology.RDFDirLangString || l.Language() != "en-gb" || l.Direction() != "ltr" {
		t.Errorf("%#v: language %q direction %q", l, l.Language(), l.Direction())
	}
	if got := l.String(); got != `"x"@en-gb--ltr` {
		t.Errorf("String() = %s", got)
	}
	p := LangLiteral("x", "en")
	if p.Language() != "en" || p.Direction() != "" {
		t.Errorf("plain language tag: %q %q", p.Language(), p.Direction())
	}
}
