package reasoner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/textpos"
)

func TestTransitiveClosureOfALongChain(t *testing.T) {
	const n = 200
	var b strings.Builder
	for i := 0; i < n-1; i++ {
		fmt.Fprintf(&b, "ex:n%d ex:before ex:n%d .\n", i, i+1)
	}
	ds := loadTurtle(t, b.String())
	prog := mustProgram(t, `[trans: (?x ex:before ?y), (?y ex:before ?z) -> (?x ex:before ?z)]`)
	sum, err := Run(context.Background(), ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := int64(n*(n-1)/2 - (n - 1))
	if sum.Derived != want {
		t.Errorf("derived %d triples, want %d", sum.Derived, want)
	}
	// Semi-naive doubling: the longest path needs about log2(n) rounds.
	if sum.Rounds > 12 {
		t.Errorf("took %d rounds for a chain of %d", sum.Rounds, n)
	}
	got := graphTriples(t, ds, kb.InferredGraph)
	for _, wantLine := range []string{
		"<http://example.org/n0> <http://example.org/before> <http://example.org/n199> .",
		"<http://example.org/n17> <http://example.org/before> <http://example.org/n150> .",
	} {
		if _, found := slices.BinarySearch(got, wantLine); !found {
			t.Errorf("missing %s", wantLine)
		}
	}
	// A second run finds nothing new.
	again, err := Run(context.Background(), ds, prog, Options{})
	if err != nil || again.Derived != 0 {
		t.Errorf("second run derived %d (err %v), want 0", again.Derived, err)
	}
}

// randomOntologyData makes a class/property hierarchy and instance data.
func randomOntologyData(seed uint64) (schema, data []string) {
	r := rand.New(rand.NewPCG(seed, 1))
	for c := 1; c < 30; c++ {
		schema = append(schema, fmt.Sprintf("ex:C%d rdfs:subClassOf ex:C%d .", c, r.IntN(c)))
	}
	schema = append(schema,
		"ex:child owl:inverseOf ex:parent .",
		"ex:ancestor rdf:type owl:TransitiveProperty .",
		"ex:parent rdfs:subPropertyOf ex:ancestor .",
		"ex:parent rdfs:domain ex:C3 .",
		"ex:parent rdfs:range ex:C5 .",
		"ex:knows rdf:type owl:SymmetricProperty .",
		"ex:C7 owl:equivalentClass ex:D7 .",
	)
	for i := 0; i < 300; i++ {
		switch r.IntN(4) {
		case 0:
			data = append(data, fmt.Sprintf("ex:i%d rdf:type ex:C%d .", i, r.IntN(30)))
		case 1:
			data = append(data, fmt.Sprintf("ex:i%d ex:parent ex:i%d .", i, r.IntN(300)))
		case 2:
			data = append(data, fmt.Sprintf("ex:i%d ex:knows ex:i%d .", i, r.IntN(300)))
		default:
			data = append(data, fmt.Sprintf("ex:i%d ex:child ex:i%d .", i, r.IntN(300)))
		}
	}
	return schema, data
}

func TestIncrementalAdditionsGiveTheSameClosure(t *testing.T) {
	ctx := context.Background()
	prog, err := LoadProgram([]string{"RDFS", "OWL"}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		schema, data := randomOntologyData(seed)
		all := append(append([]string{}, schema...), data...)

		scratch := loadTurtle(t, strings.Join(all, "\n"))
		if _, err := Run(ctx, scratch, prog, Options{}); err != nil {
			t.Fatal(err)
		}
		want := closure(t, scratch)

		// Engine.Add: half the data first, then the rest in three batches.
		half := len(all) / 2
		inc := loadTurtle(t, strings.Join(all[:half], "\n"))
		eng, err := NewEngine(ctx, inc, prog, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Run(ctx); err != nil {
			t.Fatal(err)
		}
		rest := all[half:]
		for len(rest) > 0 {
			n := min(len(rest), len(rest)/3+1)
			quads := turtleQuads(t, inc, strings.Join(rest[:n], "\n"))
			if _, err := eng.Add(ctx, quads); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if got := closure(t, inc); !slices.Equal(got, want) {
			t.Errorf("seed %d: Engine.Add closure has %d triples, from scratch %d\n%s", seed, len(got), len(want), diff(got, want))
		}

		// RunIncremental in a fresh engine (another process) after storing
		// the new quads.
		inc2 := loadTurtle(t, strings.Join(all[:half], "\n"))
		if _, err := Run(ctx, inc2, prog, Options{}); err != nil {
			t.Fatal(err)
		}
		quads := turtleQuads(t, inc2, strings.Join(all[half:], "\n"))
		if err := inc2.Apply(ctx, kb.Delta{Add: quads}); err != nil {
			t.Fatal(err)
		}
		if _, err := RunIncremental(ctx, inc2, prog, quads, Options{}); err != nil {
			t.Fatal(err)
		}
		if got := closure(t, inc2); !slices.Equal(got, want) {
			t.Errorf("seed %d: RunIncremental closure has %d triples, from scratch %d\n%s", seed, len(got), len(want), diff(got, want))
		}
	}
}

// closure returns every triple of every graph but the derivation records,
// deduplicated and sorted: asserted and inferred together. (A triple derived
// before it was also asserted stays in the inferred graph, so the inferred
// graphs of an incremental and a from-scratch run may differ while their
// closures are equal.)
func closure(t *testing.T, ds kb.Dataset) []string {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	derivG, _, _ := ds.Lookup(ctx, DerivationsGraph)
	seen := map[string]bool{}
	var out []string
	for _, q := range quads {
		if q.G == derivG {
			continue
		}
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		tq.G = kb.Term{}
		if l := tq.String(); !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// turtleQuads interns Turtle triples into ds (default graph) without
// storing them.
func turtleQuads(t *testing.T, ds kb.Dataset, data string) []kb.Quad {
	t.Helper()
	tmp := loadTurtle(t, data)
	var terms []kb.TermQuad
	quads, err := kb.Collect(tmp.Match(context.Background(), kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range quads {
		tq, err := kb.ResolveQuad(context.Background(), tmp, q)
		if err != nil {
			t.Fatal(err)
		}
		terms = append(terms, tq)
	}
	out, err := kb.InternQuads(context.Background(), ds, terms)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diff(got, want []string) string {
	var b strings.Builder
	for _, g := range got {
		if _, ok := slices.BinarySearch(want, g); !ok {
			b.WriteString("  extra   " + g + "\n")
		}
	}
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			b.WriteString("  missing " + w + "\n")
		}
	}
	return b.String()
}

func TestRemoveDeletesTheMatchedTriple(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:job ex:state ex:pending . ex:job ex:ready "yes" .`)
	prog := mustProgram(t, `[advance: (?j ex:state ex:pending), (?j ex:ready "yes") -> remove(0), (?j ex:state ex:running)]
		[log: (?j ex:state ex:running) -> (?j ex:seen ex:running)]`)
	sum, err := Run(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Removed != 1 || sum.Derived != 2 {
		t.Errorf("summary %+v, want 1 removed, 2 derived", sum)
	}
	all := graphTriples(t, ds, kb.DefaultGraph)
	for _, l := range all {
		if strings.Contains(l, "pending") {
			t.Errorf("the pending state was not removed: %s", l)
		}
	}
}

func TestTrueIsNotALiteralInJenaRules(t *testing.T) {
	// "true" is not special in Jena rule syntax; a bare name is a constant.
	_, err := ParseProgram("t.rules", []byte(`[r: (?a <p> true) -> (?a <q> ?a)]`), ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "undefined name true") {
		t.Errorf("got %v", err)
	}
}

func TestLimitsStopRunawayRules(t *testing.T) {
	ctx := context.Background()
	rulesText := `[grow: (?x ex:next ?y) makeTemp(?z) -> (?y ex:next ?z)]`
	t.Run("MaxIterations", func(t *testing.T) {
		ds := loadTurtle(t, `ex:a ex:next ex:b .`)
		sum, err := Run(ctx, ds, mustProgram(t, rulesText), Options{MaxIterations: 25})
		if !errors.Is(err, ErrMaxIterations) {
			t.Fatalf("err = %v, want ErrMaxIterations", err)
		}
		if sum.Rounds != 25 || sum.Derived != 25 {
			t.Errorf("summary %+v", sum)
		}
	})
	t.Run("MaxDerived", func(t *testing.T) {
		ds := loadTurtle(t, `ex:a ex:next ex:b .`)
		sum, err := Run(ctx, ds, mustProgram(t, rulesText), Options{MaxDerived: 10})
		if !errors.Is(err, ErrMaxDerived) {
			t.Fatalf("err = %v, want ErrMaxDerived", err)
		}
		if sum.Derived != 10 {
			t.Errorf("derived %d, want 10", sum.Derived)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ds := loadTurtle(t, `ex:a ex:next ex:b .`)
		cctx, cancel := context.WithCancel(ctx)
		calls := 0
		_, err := Run(cctx, ds, mustProgram(t, rulesText), Options{Progress: func(p Progress) {
			if calls++; p.Round == 5 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestCompileErrorsHavePositions(t *testing.T) {
	tests := []struct{ rules, want string }{
		{"[r: (?a <p> ?b) frobnicate(?b) -> (?a <q> ?b)]", "t.rules:1:17: unknown builtin frobnicate"},
		{"[r: (?a <p> ?b) greaterThan(?b) -> (?a <q> ?b)]", "t.rules:1:17: greaterThan takes 2 arguments, got 1"},
		{"[r: (?a <p> ?b) -> (?a <q> ?c)]", "t.rules:1:28: head variable ?c is not bound by the rule body"},
		{"[r: (?a <p> ?b) -> remove(1)]", `t.rules:1:27: remove: "1"^^<http://www.w3.org/2001/XMLSchema#int> is not the index of a triple pattern in the body (0-based)`},
		{"[r: (?a <p> ?b) lessThan(?b, ?c) -> (?a <q> ?b)]", "t.rules:1:30: variable ?c in lessThan is never bound by the rule body"},
		{"[r: (?a <p> ?b) -> sum(?b, 1, ?c)]", "t.rules:1:20: builtin sum cannot be used in a rule head"},
		{"[r: (?a <p> ?b) remove(0) -> (?a <q> ?b)]", "t.rules:1:17: builtin remove can only be used in a rule head"},
		// The patterns start at columns 27 and 47 of their lines.
		{`[r: (?a <p> ?b) regex(?b, "a(") -> (?a <q> ?b)]`, "t.rules:1:27: regex: error parsing regexp: missing closing ): `a(`"},
		{"@prefix ex: <http://ex/>.\n[r: (?a <p> ?b) regex(?b, 'x', ?m), regex(?m, '[z-a]') -> (?a <q> ?b)]", "t.rules:2:47: regex: error parsing regexp: invalid character class range: `z-a`"},
	}
	for _, tc := range tests {
		_, err := ParseProgram("t.rules", []byte(tc.rules), ParseOptions{})
		var list textpos.ErrorList
		if !errors.As(err, &list) || len(list) == 0 || list[0].Error() != tc.want {
			t.Errorf("%s\n got %v\nwant %s", tc.rules, err, tc.want)
		}
	}
}

func TestExplainTracesDerivationsToAssertedTriples(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `
		ex:Dog rdfs:subClassOf ex:Mammal . ex:Mammal rdfs:subClassOf ex:Animal .
		ex:rex rdf:type ex:Dog .`)
	prog, err := LoadProgram([]string{"RDFS"}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, ds, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	ders, err := Explain(ctx, ds, ex("rex"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range ders {
		d.Format(&b, "")
	}
	// Both derivations of rex a Animal are valid; the first round derives
	// it from the subclass closure.
	want := `<http://example.org/rex> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Animal> .   [rule rdfs9]
    <http://example.org/Dog> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Animal> .   [rule rdfs11]
        <http://example.org/Dog> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Mammal> .   [asserted]
        <http://example.org/Mammal> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Animal> .   [asserted]
    <http://example.org/rex> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Dog> .   [asserted]
<http://example.org/rex> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Mammal> .   [rule rdfs9]
    <http://example.org/Dog> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://example.org/Mammal> .   [asserted]
    <http://example.org/rex> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Dog> .   [asserted]
`
	if b.String() != want {
		t.Errorf("explanation:\n%s\nwant:\n%s", b.String(), want)
	}
	// Without derivation records the tree stops at the inferred triple.
	ds2 := loadTurtle(t, `ex:Dog rdfs:subClassOf ex:Mammal . ex:rex rdf:type ex:Dog .`)
	if _, err := Run(ctx, ds2, prog, Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	ders, err = Explain(ctx, ds2, ex("rex"))
	if err != nil || len(ders) != 1 || ders[0].Note == "" || ders[0].Rule != "" {
		t.Errorf("without records: %+v, %v", ders, err)
	}
}

func TestReadGraphsAndReset(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	g1, g2 := ex("g1"), ex("g2")
	quads, err := kb.InternQuads(ctx, ds, []kb.TermQuad{
		{S: ex("a"), P: ex("p"), O: ex("b"), G: g1},
		{S: ex("b"), P: ex("p"), O: ex("c"), G: g2},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Add: quads}); err != nil {
		t.Fatal(err)
	}
	prog := mustProgram(t, `[sym: (?x ex:p ?y) -> (?y ex:p ?x)]`)
	sum, err := Run(ctx, ds, prog, Options{ReadGraphs: []kb.Term{g1}})
	if err != nil || sum.Derived != 1 {
		t.Fatalf("read g1 only: %+v %v", sum, err)
	}
	sum, err = Run(ctx, ds, prog, Options{Reset: true})
	if err != nil || sum.Derived != 2 {
		t.Fatalf("reset and read all: %+v %v", sum, err)
	}
	if n := len(derivationQuads(t, ds)); n != 2 {
		t.Errorf("%d derivation records, want 2", n)
	}
}

func TestShippedRuleSetsCompile(t *testing.T) {
	for _, name := range rules.Names() {
		if _, err := LoadProgram([]string{name}, ParseOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestDerivationRecordsRoundTrip(t *testing.T) {
	p, o := kb.IRI("http://e/p"), kb.LangLiteral("a \"quoted\"\nline", "en")
	prem := []kb.Triple{
		{S: kb.Blank("b1"), P: kb.IRI("http://e/q"), O: kb.Literal("3.5", "http://www.w3.org/2001/XMLSchema#double")},
		{S: kb.IRI("http://e/x y"), P: kb.IRI("http://e/r"), O: kb.String("tab\there")},
	}
	rec, err := decodeRecord(encodeRecord("rule one", p, o, prem).Value)
	if err != nil {
		t.Fatal(err)
	}
	if rec.rule != "rule one" || rec.p != p || rec.o != o || !slices.Equal(rec.premises, prem) {
		t.Errorf("round trip: %+v", rec)
	}
}

func TestFindingsFilterAndJSON(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `
		ex:rs1 perfonto:hasMetric ex:tcm1, ex:tca1 .
		ex:tcm1 perfonto:hasMetricName "L2_TCM" ; perfonto:hasMetricValue "900"^^xsd:long .
		ex:tca1 perfonto:hasMetricName "L2_TCA" ; perfonto:hasMetricValue "1000"^^xsd:long .
		ex:rs2 perfonto:hasMetric ex:tcm2, ex:tca2 .
		ex:tcm2 perfonto:hasMetricName "L2_TCM" ; perfonto:hasMetricValue "500"^^xsd:long .
		ex:tca2 perfonto:hasMetricName "L2_TCA" ; perfonto:hasMetricValue "1000"^^xsd:long .
		ex:rs3 perfonto:hasProblem perfonto:BigMessage .`)
	prog, err := LoadProgram([]string{"PERFONTO"}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, ds, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	all, err := Findings(ctx, ds, FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range all {
		got = append(got, fmt.Sprintf("%s %s %v %s %s=%s", f.TypeName(), f.Subject.Value, f.Severity, f.SeverityClass, f.MetricName, f.MetricValue.Value))
	}
	want := []string{
		"PoorCacheBehaviour http://example.org/rs1 0.8 high L2_TCM=900",
		"PoorCacheBehaviour http://example.org/rs2 0.4 medium L2_TCM=500",
		"BigMessage http://example.org/rs3 0  =",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	high, err := Findings(ctx, ds, FindingFilter{Type: "PoorCacheBehaviour", MinSeverity: 0.5})
	if err != nil || len(high) != 1 || high[0].Subject != ex("rs1") {
		t.Errorf("filtered findings: %+v %v", high, err)
	}
	js, err := json.Marshal(high[0])
	if err != nil || !strings.Contains(string(js), `"severity":0.8`) || !strings.Contains(string(js), `"subject":"http://example.org/rs1"`) || !strings.Contains(string(js), `"rule":"poor_l2_cache"`) {
		t.Errorf("JSON: %s %v", js, err)
	}
}

func TestAxiomsFunctorsAndComputedValues(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:a ex:size "3"^^xsd:int .`)
	prog := mustProgram(t, `
		[axiom: -> (ex:kb ex:version "1")]
		[double: (?x ex:size ?n), product(?n, 2, ?d), sum(?d, 1, ?e) -> (?x ex:doubledPlusOne ?e), (?x ex:shape box(?n ?e))]
		[fresh: (?x ex:size ?n), makeTemp(?t) -> (?x ex:temp ?t)]`)
	sum, err := Run(ctx, ds, prog, Options{Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	got := graphTriples(t, ds, kb.InferredGraph)
	want := []string{
		`<http://example.org/a> <http://example.org/doubledPlusOne> "7"^^<http://www.w3.org/2001/XMLSchema#int> .`,
		`<http://example.org/a> <http://example.org/shape> "box(\"3\"^^<http://www.w3.org/2001/XMLSchema#int> \"7\"^^<http://www.w3.org/2001/XMLSchema#int>)"^^<urn:x-perfkb:functor> .`,
		`<http://example.org/kb> <http://example.org/version> "1" .`,
	}
	var rest []string
	for _, l := range got {
		if strings.Contains(l, "/temp>") {
			if !strings.Contains(l, " _:t") {
				t.Errorf("makeTemp did not make a blank node: %s", l)
			}
			continue
		}
		rest = append(rest, l)
	}
	if !slices.Equal(rest, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(rest, "\n"), strings.Join(want, "\n"))
	}
	if sum.Derived != 4 {
		t.Errorf("derived %d, want 4", sum.Derived)
	}
	// The intermediate product (6) never reached the dictionary.
	if _, ok, _ := ds.Lookup(ctx, kb.Literal("6", "http://www.w3.org/2001/XMLSchema#int")); ok {
		t.Errorf("the transient value 6 was interned")
	}
}
