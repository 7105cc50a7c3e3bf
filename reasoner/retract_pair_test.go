package reasoner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// TestPairPattern checks which rule patterns over-deleting reads through
// pairRows: the other pattern must depend on the bound triple's predicate
// only.
func TestPairPattern(t *testing.T) {
	for _, tc := range []struct {
		name, rule string
		want       []bool // per body pattern, in body order
	}{
		{name: "domain", rule: `[r: (?p ex:dom ?c), (?x ?p ?y) -> (?x ex:is ?c)]`, want: []bool{false, true}},
		{name: "inverse, head from both", rule: `[r: (?p ex:inv ?q), (?x ?p ?y) -> (?y ?q ?x)]`, want: []bool{false, true}},
		{name: "constant predicates", rule: `[r: (?x ex:a ?y), (?u ex:b ?v) -> (?x ex:c ?v)]`, want: []bool{true, true}},
		{name: "shared data variable", rule: `[r: (?x ex:a ?y), (?y ex:b ?z) -> (?x ex:c ?z)]`, want: []bool{false, false}},
		{name: "a kind test of the bound triple", rule: `[r: (?p ex:dom ?c), (?x ?p ?y), notLiteral(?y) -> (?x ex:is ?c)]`, want: []bool{false, true}},
		{name: "a kind test of the other pattern", rule: `[r: (?p ex:dom ?c), (?x ?p ?y), notLiteral(?c) -> (?x ex:is ?c)]`, want: []bool{false, false}},
		{name: "another builtin", rule: `[r: (?p ex:dom ?c), (?x ?p ?y), notEqual(?x, ?y) -> (?x ex:is ?c)]`, want: []bool{false, false}},
		{name: "three patterns", rule: `[r: (?p ex:t ex:T), (?x ?p ?y), (?y ?p ?z) -> (?x ?p ?z)]`, want: []bool{false, false, false}},
		{name: "free predicate in the other", rule: `[r: (?x ex:a ?y), (?u ?q ?v) -> (?x ?q ?v)]`, want: []bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			eng, err := NewEngine(ctx, loadTurtle(t, `ex:a ex:b ex:c .`), mustProgram(t, tc.rule), Options{})
			if err != nil {
				t.Fatal(err)
			}
			br := eng.rules[0]
			var got []bool
			for _, ci := range br.cr.patterns {
				_, ok := pairPattern(br, ci)
				got = append(got, ok)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("pairPattern per pattern = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRemoveThroughSchemaRules removes data and schema triples under
// rules that over-delete through pairRows and compares the inferred graph
// with what the rules derive by hand from what is left.
func TestRemoveThroughSchemaRules(t *testing.T) {
	const rules = `[dom: (?p ex:dom ?c), (?x ?p ?y) -> (?x ex:is ?c)]
[inv: (?p ex:inv ?q), (?x ?p ?y) -> (?y ?q ?x)]
[same: (?p ex:loop ?p), (?x ?p ?y) -> (?x ex:loops ?y)]`
	const data = `ex:knows ex:dom ex:Person . ex:knows ex:dom ex:Agent . ex:owns ex:dom ex:Agent .
ex:knows ex:inv ex:knownBy . ex:likes ex:loop ex:likes . ex:hates ex:loop ex:other .
ex:a ex:knows ex:b . ex:a ex:owns ex:c . ex:d ex:knows ex:e . ex:f ex:likes ex:g . ex:f ex:hates ex:g .`
	for _, tc := range []struct {
		name, del string
		want      []string // inferred triples left, as "s p o" local names
	}{
		{name: "nothing", want: []string{
			"a is Agent", "a is Person", "b knownBy a", "d is Agent", "d is Person", "e knownBy d", "f loops g"}},
		// a is still an Agent through owns.
		{name: "a data triple with another derivation", del: `ex:a ex:knows ex:b .`, want: []string{
			"a is Agent", "d is Agent", "d is Person", "e knownBy d", "f loops g"}},
		{name: "a schema triple", del: `ex:knows ex:dom ex:Agent .`, want: []string{
			"a is Agent", "a is Person", "b knownBy a", "d is Person", "e knownBy d", "f loops g"}},
		{name: "the inverse", del: `ex:knows ex:inv ex:knownBy .`, want: []string{
			"a is Agent", "a is Person", "d is Agent", "d is Person", "f loops g"}},
		{name: "a looping property's data", del: `ex:f ex:likes ex:g .`, want: []string{
			"a is Agent", "a is Person", "b knownBy a", "d is Agent", "d is Person", "e knownBy d"}},
		{name: "data and schema together", del: `ex:d ex:knows ex:e . ex:owns ex:dom ex:Agent . ex:likes ex:loop ex:likes .`, want: []string{
			"a is Agent", "a is Person", "b knownBy a"}},
	} {
		for _, onDemand := range []bool{false, true} {
			t.Run(removeName(tc.name, onDemand), func(t *testing.T) {
				ds, prog, eng := closedEngine(t, data, rules)
				if tc.del != "" {
					removeBy(t, ds, prog, eng, onDemand, turtleQuads(t, ds, tc.del))
				}
				if got, want := graphTriples(t, ds, kb.InferredGraph), localTriples(tc.want); !slices.Equal(got, want) {
					t.Errorf("inferred after the delete:\n%v\nwant\n%v", got, want)
				}
				checkRecords(t, ds)
			})
		}
	}
}

// TestRemoveThroughRangeRule removes triples under the RDFS range rule,
// whose kind test (notLiteral of the bound triple's object) over-deleting
// answers from the marked triple before combining it with the schema
// rows, and compares the inferred graph with a hand count.
func TestRemoveThroughRangeRule(t *testing.T) {
	const rules = `[rng: (?p ex:rng ?c), (?x ?p ?y), notLiteral(?y) -> (?y ex:is ?c)]`
	const data = `ex:knows ex:rng ex:Person . ex:a ex:knows ex:b . ex:a ex:knows "lit" .
ex:c ex:knows ex:b . ex:d ex:knows ex:e .`
	for _, tc := range []struct {
		name, del string
		want      []string // inferred triples left, as "s p o" local names
	}{
		{name: "nothing", want: []string{"b is Person", "e is Person"}},
		{name: "the only support", del: `ex:d ex:knows ex:e .`, want: []string{"b is Person"}},
		{name: "one of two supports", del: `ex:a ex:knows ex:b .`, want: []string{"b is Person", "e is Person"}},
		{name: "a literal object", del: `ex:a ex:knows "lit" .`, want: []string{"b is Person", "e is Person"}},
		{name: "both supports and another", del: `ex:a ex:knows ex:b . ex:c ex:knows ex:b . ex:d ex:knows ex:e .`},
		{name: "the schema triple", del: `ex:knows ex:rng ex:Person .`},
	} {
		for _, onDemand := range []bool{false, true} {
			t.Run(removeName(tc.name, onDemand), func(t *testing.T) {
				ds, prog, eng := closedEngine(t, data, rules)
				if tc.del != "" {
					eng = removeBy(t, ds, prog, eng, onDemand, turtleQuads(t, ds, tc.del))
					if len(eng.anyPredRefs) > 0 && eng.anyPredRefs[0].pl != nil && (!eng.anyPredRefs[0].pair || len(eng.anyPredRefs[0].tests) != 1) {
						t.Errorf("the data pattern was joined, not combined with the schema rows after its kind test")
					}
				}
				if got, want := graphTriples(t, ds, kb.InferredGraph), localTriples(tc.want); !slices.Equal(got, want) {
					t.Errorf("inferred after the delete:\n%v\nwant\n%v", got, want)
				}
				checkRecords(t, ds)
			})
		}
	}
}

// closedEngine loads data (Turtle) and runs rules on it to their closure.
func closedEngine(t *testing.T, data, rules string) (*native.MemStore, *Program, *Engine) {
	t.Helper()
	ctx := context.Background()
	ds := loadTurtle(t, data)
	prog := mustProgram(t, rules)
	eng, err := NewEngine(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return ds, prog, eng
}

// localTriples turns "s p o" local names under ex: into the sorted strings
// graphTriples returns.
func localTriples(names []string) []string {
	var out []string
	for _, w := range names {
		f := strings.Fields(w)
		out = append(out, kb.TermQuad{S: ex(f[0]), P: ex(f[1]), O: ex(f[2])}.String())
	}
	slices.Sort(out)
	return out
}

// removeName names a subtest of a hand-computed retraction by how the
// removal reads the store.
func removeName(name string, onDemand bool) string {
	if onDemand {
		return name + "/on-demand"
	}
	return name + "/loaded"
}

// removeBy removes quads from ds through eng, which ran prog over ds, or,
// onDemand, through a new engine that reads the store on demand, as
// perfkb drop-graph --retract makes one; it returns the engine that
// removed them.
func removeBy(t *testing.T, ds kb.Dataset, prog *Program, eng *Engine, onDemand bool, quads []kb.Quad) *Engine {
	t.Helper()
	ctx := context.Background()
	if onDemand {
		var err error
		if eng, err = NewEngine(ctx, ds, prog, Options{LoadOnDemand: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.Remove(ctx, quads); err != nil {
		t.Fatal(err)
	}
	return eng
}
