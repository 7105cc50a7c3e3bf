package reasoner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// Forget bounds the working memory of an engine fed a stream: per-item
// rules keep firing on new data, context read at start stays, and the
// store keeps everything.
func TestForgetKeepsAWindow(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:path1 ex:threshold "1.0"^^xsd:double .`)
	prog := mustProgram(t, `@prefix xsd: <http://www.w3.org/2001/XMLSchema#>.
		[low: (?m ex:about ?p), (?m ex:bw ?bw), (?p ex:threshold ?t), lessThan(?bw, ?t) -> (?p ex:problem ?m), (?m ex:flag ex:low)]
		[pair: (?m ex:after ?n), (?n ex:flag ex:low), (?m ex:flag ex:low) -> (?m ex:twice ex:yes)]`)
	eng, err := NewEngine(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loaded := eng.ts.size()
	batch := func(i int, bw string) []kb.Quad {
		return turtleQuads(t, ds, fmt.Sprintf(`ex:m%d ex:about ex:path1 . ex:m%d ex:bw "%s"^^xsd:double . ex:m%d ex:after ex:m%d .`, i, i, bw, i, i-1))
	}
	sizes := []int{}
	for i := 1; i <= 20; i++ {
		if _, err := eng.Add(ctx, batch(i, "0.5")); err != nil {
			t.Fatal(err)
		}
		if err := eng.Forget(ctx, 3); err != nil {
			t.Fatal(err)
		}
		if eng.Adds() > 3 {
			t.Fatalf("after Forget(3) the engine holds %d adds", eng.Adds())
		}
		sizes = append(sizes, eng.ts.size())
	}
	// Each batch brings 3 asserted and 3 derived triples (from the second
	// on): the window holds 3 batches on top of what was loaded.
	if last := sizes[len(sizes)-1]; last != loaded+3*6 {
		t.Errorf("working memory holds %d triples after 20 batches with a window of 3 (sizes %v), want %d", last, sizes, loaded+18)
	}
	// Everything was derived and stored; the context triple still joins.
	got := strings.Join(graphTriples(t, ds, kb.InferredGraph), "\n")
	for _, want := range []string{
		"<http://example.org/path1> <http://example.org/problem> <http://example.org/m1> .",
		"<http://example.org/path1> <http://example.org/problem> <http://example.org/m20> .",
		"<http://example.org/m20> <http://example.org/twice> <http://example.org/yes> .",
		"<http://example.org/m2> <http://example.org/twice> <http://example.org/yes> .",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s", want)
		}
	}
	if n := strings.Count(got, "<http://example.org/twice>"); n != 19 {
		t.Errorf("%d twice triples, want 19 (m2 … m20)", n)
	}

	// A rule joining new data with a forgotten triple does not fire: m30
	// follows m19, which left the window.
	if err := eng.Forget(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if eng.ts.size() != loaded {
		t.Errorf("Forget(0) leaves %d triples, want the %d loaded", eng.ts.size(), loaded)
	}
	if _, err := eng.Add(ctx, turtleQuads(t, ds, `ex:m30 ex:about ex:path1 . ex:m30 ex:bw "0.2"^^xsd:double . ex:m30 ex:after ex:m19 .`)); err != nil {
		t.Fatal(err)
	}
	got = strings.Join(graphTriples(t, ds, kb.InferredGraph), "\n")
	if !strings.Contains(got, "<http://example.org/path1> <http://example.org/problem> <http://example.org/m30> .") {
		t.Error("the per-item rule did not fire after Forget(0)")
	}
	if strings.Contains(got, "<http://example.org/m30> <http://example.org/twice>") {
		t.Error("a rule joined m30 with the forgotten m19")
	}
}

// Forgetting keeps the generations straight: a forgotten triple added
// again is new again and its consequences are derived once more.
func TestForgetThenAddAgain(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:seed ex:p ex:q .`)
	eng, err := NewEngine(ctx, ds, mustProgram(t, `[r: (?x ex:a ?y) -> (?y ex:b ?x)]`), Options{NoDerivations: true})
	if err != nil {
		t.Fatal(err)
	}
	q := turtleQuads(t, ds, `ex:x ex:a ex:y .`)
	if s, err := eng.Add(ctx, q); err != nil || s.Derived != 1 {
		t.Fatalf("first add: %+v %v", s, err)
	}
	if s, err := eng.Add(ctx, q); err != nil || s.Derived != 1 {
		t.Fatalf("the same triple again: %+v %v, want nothing new", s, err)
	}
	if err := eng.Forget(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if s, err := eng.Add(ctx, q); err != nil || s.Derived != 2 {
		t.Fatalf("after Forget: %+v %v, want it derived again", s, err)
	}
	if n := len(graphTriples(t, ds, kb.InferredGraph)); n != 1 {
		t.Errorf("%d inferred triples in the store, want 1", n)
	}
}
