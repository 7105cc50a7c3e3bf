package reasoner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// noClasses hides the store's TermClassOf (and every other method beyond
// kb.Dataset), so the engine decodes every term it tests.
type noClasses struct{ kb.Dataset }

// TestKindTestsFromTags runs isLiteral, notLiteral, isBNode and notBNode
// over objects of every encoding (IRI, blank node, xsd:string, language
// string, coded and spelled-out datatypes, a functor value a rule stored)
// once on a store that answers them from its tags and once on one whose
// terms are decoded; both must give the hand-computed sets.
func TestKindTestsFromTags(t *testing.T) {
	const data = `
ex:s ex:v ex:iri , _:b , "plain" , "chat"@fr , 42 , "2024-01-01"^^xsd:date , "x"^^ex:custom , "y"^^<urn:x-perfkb:functor> .`
	const rules = `
[f: (ex:s ex:v ex:iri) -> (ex:s ex:v f(ex:iri))]
[lit: (ex:s ex:v ?o), isLiteral(?o) -> (?o ex:kind ex:lit)]
[nlit: (ex:s ex:v ?o), notLiteral(?o) -> (ex:s ex:nonLiteral ?o)]
[bn: (ex:s ex:v ?o), isBNode(?o) -> (ex:s ex:blank ?o)]
[nbn: (ex:s ex:v ?o), notBNode(?o) -> (ex:s ex:notBlank ?o)]`
	count := func(lines []string, pred string) int {
		n := 0
		for _, l := range lines {
			if strings.Contains(l, "<http://example.org/"+pred+">") {
				n++
			}
		}
		return n
	}
	var results [][]string
	for _, tags := range []bool{true, false} {
		mem := loadTurtle(t, data)
		var ds kb.Dataset = mem
		var _ *native.MemStore = mem
		if !tags {
			ds = noClasses{mem}
		}
		if _, ok := ds.(termClasser); ok != tags {
			t.Fatalf("store answers kind tests: %v, want %v", ok, tags)
		}
		if _, err := Run(context.Background(), ds, mustProgram(t, rules), Options{}); err != nil {
			t.Fatal(err)
		}
		got := graphTriples(t, ds, kb.InferredGraph)
		// 9 objects: the 8 asserted and the functor f(ex:iri). Literals
		// (isLiteral): plain, chat@fr, 42, the date and ex:custom: 5.
		// Not literals: the IRI, the blank node, the functor and "y",
		// whose datatype makes it a functor value to the builtins: 4.
		// Blank: 1; not blank: 8.
		for pred, want := range map[string]int{"kind": 5, "nonLiteral": 4, "blank": 1, "notBlank": 8} {
			if n := count(got, pred); n != want {
				t.Errorf("tags %v: %d ex:%s triples, want %d:\n%s", tags, n, pred, want, strings.Join(got, "\n"))
			}
		}
		// Blank node labels are the store's own; the rest must agree.
		results = append(results, canonicalTriples(t, ds, kb.InferredGraph))
	}
	if !slices.Equal(results[0], results[1]) {
		t.Errorf("tag answers differ from decoded terms:\n%s\n--\n%s", strings.Join(results[0], "\n"), strings.Join(results[1], "\n"))
	}
}
