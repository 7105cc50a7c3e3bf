package kbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// Opener returns a new, empty dataset for one subtest. The suite closes the
// dataset when the subtest ends (some subtests close it earlier), so Close
// must tolerate being called twice; the opener may register its own
// t.Cleanup to remove files or databases.
type Opener func(t *testing.T) kb.Dataset

// TestDataset runs the whole conformance suite against the datasets open
// returns, one fresh dataset per subtest.
func TestDataset(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, ds kb.Dataset)
	}{
		{"TermRoundTrip", testTermRoundTrip},
		{"InternDistinguishesTerms", testInternDistinguishes},
		{"InternBatchDuplicates", testInternBatchDuplicates},
		{"InternZeroTerm", testInternZeroTerm},
		{"InternAloneChangesNoData", testInternAloneChangesNoData},
		{"ResolveUnknown", testResolveUnknown},
		{"MatchAllBindings", testMatchAllBindings},
		{"MatchUnknownIDs", testMatchUnknownIDs},
		{"IteratorEarlyClose", testIteratorEarlyClose},
		{"Graphs", testGraphs},
		{"DuplicateAdds", testDuplicateAdds},
		{"Removals", testRemovals},
		{"DeltaRemovesBeforeAdds", testDeltaOrder},
		{"ApplyAtomicUnknownID", testApplyAtomicUnknownID},
		{"ApplyZeroID", testApplyZeroID},
		{"ApplyCancelledContext", testApplyCancelled},
		{"CountMatchesMatch", testCountMatchesMatch},
		{"Stats", testStats},
		{"BulkCommit", testBulkCommit},
		{"BulkAbort", testBulkAbort},
		{"BulkUnknownID", testBulkUnknownID},
		{"BulkDuplicatesAndExisting", testBulkDuplicates},
		{"BulkAfterDone", testBulkAfterDone},
		{"LoadRoundTrip", testLoadRoundTrip},
		{"LoadSyntaxErrorLeavesStoreUnchanged", testLoadSyntaxError},
		{"LoadBlankNodesPerLoad", testLoadBlankNodes},
		{"ConcurrentReadersAndWriter", testConcurrent},
		{"Close", testClose},
	}
	tests = append(tests, capabilityTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := open(t)
			t.Cleanup(func() { _ = ds.Close() })
			tc.fn(t, ds)
		})
	}
}

// Vocabulary used by the fixtures.
const (
	ex      = "http://example.org/perf#"
	xsdInt  = ontology.XSDInteger
	xsdDbl  = ontology.XSDDouble
	xsdBool = ontology.XSDBoolean
	xsdDate = ontology.XSDDateTime
)

func iri(local string) kb.Term { return kb.IRI(ex + local) }

// sampleTerms covers every term shape the dictionary must keep exactly.
func sampleTerms() []kb.Term {
	return []kb.Term{
		iri("Region1"),
		kb.IRI("urn:x-perfkb:site/vienna"),
		kb.IRI("http://example.org/ü/é?q=1#frag"),
		kb.DefaultGraph,
		kb.InferredGraph,
		kb.Blank("b0"),
		kb.Blank("genid-42"),
		kb.String("plain"),
		kb.String(""),
		kb.String("with \"quotes\", \\backslash\\, tab\t and\nnewline"),
		kb.String("unicode ✓ 日本語 𝄞"),
		kb.Literal("007", xsdInt),
		kb.Literal("7", xsdInt),
		kb.Literal("+7", xsdInt),
		kb.Literal("1.50E3", xsdDbl),
		kb.Literal("true", xsdBool),
		kb.Literal("1", xsdBool),
		kb.Literal("2005-03-01T10:00:00Z", xsdDate),
		kb.Literal("x", "http://example.org/custom#type"),
		kb.Literal("CR_MPIP2P", ""),
		kb.LangLiteral("Region", "en"),
		kb.LangLiteral("Region", "en-GB"),
		kb.LangLiteral("Region", "de"),
		kb.LangLiteral("", "fr"),
	}
}

func mustIntern(t *testing.T, ds kb.Dataset, terms ...kb.Term) []kb.ID {
	t.Helper()
	ids, err := ds.Intern(context.Background(), terms)
	if err != nil {
		t.Fatalf("Intern(%v): %v", terms, err)
	}
	if len(ids) != len(terms) {
		t.Fatalf("Intern returned %d IDs for %d terms", len(ids), len(terms))
	}
	return ids
}

func mustApply(t *testing.T, ds kb.Dataset, d kb.Delta) {
	t.Helper()
	if err := ds.Apply(context.Background(), d); err != nil {
		t.Fatalf("Apply(%d removals, %d additions): %v", len(d.Remove), len(d.Add), err)
	}
}

func mustMatch(t *testing.T, ds kb.Dataset, p kb.Pattern) []kb.Quad {
	t.Helper()
	got, err := kb.Collect(ds.Match(context.Background(), p))
	if err != nil {
		t.Fatalf("Match(%+v): %v", p, err)
	}
	return got
}

func mustCount(t *testing.T, ds kb.Dataset, p kb.Pattern, exact bool) int64 {
	t.Helper()
	n, err := ds.Count(context.Background(), p, exact)
	if err != nil {
		t.Fatalf("Count(%+v, %v): %v", p, exact, err)
	}
	return n
}

// sortQuads sorts quads in place and returns them.
func sortQuads(qs []kb.Quad) []kb.Quad {
	sort.Slice(qs, func(i, j int) bool {
		a, b := qs[i], qs[j]
		if a.S != b.S {
			return a.S < b.S
		}
		if a.P != b.P {
			return a.P < b.P
		}
		if a.O != b.O {
			return a.O < b.O
		}
		return a.G < b.G
	})
	return qs
}

// sameQuads compares two quad multisets, reporting the differences.
func sameQuads(t *testing.T, what string, got, want []kb.Quad) bool {
	t.Helper()
	got = sortQuads(append([]kb.Quad(nil), got...))
	want = sortQuads(append([]kb.Quad(nil), want...))
	if len(got) == len(want) {
		equal := true
		for i := range got {
			if got[i] != want[i] {
				equal = false
				break
			}
		}
		if equal {
			return true
		}
	}
	t.Errorf("%s: got %d quads %v, want %d quads %v", what, len(got), limit(got), len(want), limit(want))
	return false
}

func limit(qs []kb.Quad) []kb.Quad {
	if len(qs) > 12 {
		return qs[:12]
	}
	return qs
}

// allQuads returns every stored quad.
func allQuads(t *testing.T, ds kb.Dataset) []kb.Quad {
	t.Helper()
	return mustMatch(t, ds, kb.Pattern{})
}

func testTermRoundTrip(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	terms := sampleTerms()
	ids := mustIntern(t, ds, terms...)
	seen := make(map[kb.ID]kb.Term)
	for i, term := range terms {
		id := ids[i]
		if id == kb.Any {
			t.Errorf("Intern(%v) = 0, the wildcard", term)
			continue
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("Intern gave %v and %v the same ID %d", prev, term, id)
		}
		seen[id] = term
		got, err := ds.Resolve(ctx, id)
		if err != nil {
			t.Errorf("Resolve(%d) for %v: %v", id, term, err)
		} else if got != term {
			t.Errorf("Resolve(Intern(%#v)) = %#v", term, got)
		}
		lid, ok, err := ds.Lookup(ctx, term)
		if err != nil || !ok || lid != id {
			t.Errorf("Lookup(%v) = %d, %v, %v; want %d, true, nil", term, lid, ok, err, id)
		}
	}
	// Interning again returns the same IDs.
	again := mustIntern(t, ds, terms...)
	for i := range terms {
		if again[i] != ids[i] {
			t.Errorf("second Intern(%v) = %d, first gave %d", terms[i], again[i], ids[i])
		}
	}
	// Terms survive being stored in quads and read back.
	p := mustIntern(t, ds, iri("value"))[0]
	g := mustIntern(t, ds, iri("g"))[0]
	var add []kb.Quad
	for _, id := range ids {
		if seen[id].IsLiteral() {
			add = append(add, kb.Quad{S: ids[0], P: p, O: id, G: g})
		} else {
			add = append(add, kb.Quad{S: id, P: p, O: id, G: g})
		}
	}
	mustApply(t, ds, kb.Delta{Add: add})
	for _, q := range mustMatch(t, ds, kb.Pattern{P: p}) {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatalf("ResolveQuad(%v): %v", q, err)
		}
		if tq.O != seen[q.O] {
			t.Errorf("stored object %#v came back as %#v", seen[q.O], tq.O)
		}
	}
}

func testInternDistinguishes(t *testing.T, ds kb.Dataset) {
	// Terms that look alike but differ in kind, datatype or language.
	groups := [][]kb.Term{
		{kb.IRI("x"), kb.Blank("x"), kb.String("x"), kb.Literal("x", xsdInt), kb.LangLiteral("x", "en")},
		{kb.Literal("007", xsdInt), kb.Literal("7", xsdInt), kb.String("007"), kb.Literal("007", xsdDbl)},
		{kb.LangLiteral("a", "en"), kb.LangLiteral("a", "en-us"), kb.String("a")},
		{kb.IRI(ex + "a"), kb.IRI(ex + "A"), kb.IRI(ex + "a/")},
	}
	for _, g := range groups {
		ids := mustIntern(t, ds, g...)
		set := make(map[kb.ID]bool)
		for i, id := range ids {
			if set[id] {
				t.Errorf("%v got an ID already given to a different term in %v", g[i], g)
			}
			set[id] = true
		}
	}
}

func testInternBatchDuplicates(t *testing.T, ds kb.Dataset) {
	a, b := iri("a"), kb.Literal("1", xsdInt)
	ids := mustIntern(t, ds, a, b, a, b, a)
	if ids[0] != ids[2] || ids[0] != ids[4] || ids[1] != ids[3] || ids[0] == ids[1] {
		t.Errorf("Intern(a, b, a, b, a) = %v; want the same ID for equal terms", ids)
	}
}

func testInternZeroTerm(t *testing.T, ds kb.Dataset) {
	if _, err := ds.Intern(context.Background(), []kb.Term{iri("ok"), {}}); err == nil {
		t.Errorf("Intern of the zero term succeeded; want an error")
	}
}

func testInternAloneChangesNoData(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	mustIntern(t, ds, sampleTerms()...)
	if got := allQuads(t, ds); len(got) != 0 {
		t.Errorf("after Intern only, Match(all) = %v; want nothing", got)
	}
	if gs, err := ds.Graphs(ctx); err != nil || len(gs) != 0 {
		t.Errorf("after Intern only, Graphs = %v, %v; want none", gs, err)
	}
	st, err := ds.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if st.Quads != 0 {
		t.Errorf("after Intern only, Stats.Quads = %d; want 0", st.Quads)
	}
}

func testResolveUnknown(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	mustIntern(t, ds, iri("a"))
	if _, ok, err := ds.Lookup(ctx, iri("never-seen")); err != nil || ok {
		t.Errorf("Lookup(never seen) = %v, %v; want false, nil", ok, err)
	}
	for _, id := range []kb.ID{0, 1 << 40, ^kb.ID(0)} {
		if term, err := ds.Resolve(ctx, id); err == nil {
			t.Errorf("Resolve(%d) = %v; want an error", id, term)
		} else if id != 0 && !errors.Is(err, kb.ErrUnknownID) {
			t.Errorf("Resolve(%d) error = %v; want kb.ErrUnknownID", id, err)
		}
	}
}

// fixture is a small multi-graph data set, with the terms' IDs.
type fixture struct {
	ids   map[string]kb.ID
	quads []kb.Quad
}

// newFixture stores quads over 3 graphs, sharing subjects, predicates and
// objects between graphs, and one term used in several positions.
func newFixture(t *testing.T, ds kb.Dataset) fixture {
	t.Helper()
	names := []string{"s1", "s2", "s3", "p1", "p2", "p3", "o1", "o2", "lit7", "lit007", "langEn", "blank", "g1", "g2", "g3"}
	terms := map[string]kb.Term{
		"lit7":   kb.Literal("7", xsdInt),
		"lit007": kb.Literal("007", xsdInt),
		"langEn": kb.LangLiteral("seven", "en"),
		"blank":  kb.Blank("node1"),
	}
	list := make([]kb.Term, len(names))
	for i, n := range names {
		if tm, ok := terms[n]; ok {
			list[i] = tm
		} else {
			list[i] = iri(n)
		}
	}
	idList := mustIntern(t, ds, list...)
	f := fixture{ids: make(map[string]kb.ID)}
	for i, n := range names {
		f.ids[n] = idList[i]
	}
	id := f.ids
	q := func(s, p, o, g string) kb.Quad { return kb.Quad{S: id[s], P: id[p], O: id[o], G: id[g]} }
	f.quads = []kb.Quad{
		q("s1", "p1", "o1", "g1"),
		q("s1", "p1", "o2", "g1"),
		q("s1", "p2", "lit7", "g1"),
		q("s1", "p2", "lit007", "g1"),
		q("s2", "p1", "o1", "g1"),
		q("s2", "p3", "langEn", "g1"),
		q("s1", "p1", "o1", "g2"), // same triple, other graph
		q("s2", "p2", "lit7", "g2"),
		q("blank", "p1", "s1", "g2"), // s1 as object
		q("s3", "p1", "blank", "g2"),
		q("s3", "p3", "o2", "g3"),
		q("s3", "p1", "p1", "g3"), // p1 as object
		q("p1", "p2", "o1", "g3"), // p1 as subject
		q("g1", "p1", "g2", "g3"), // graph names as subject and object
	}
	mustApply(t, ds, kb.Delta{Add: f.quads})
	return f
}

func filter(quads []kb.Quad, p kb.Pattern) []kb.Quad {
	var out []kb.Quad
	for _, q := range quads {
		if p.Matches(q) {
			out = append(out, q)
		}
	}
	return out
}

// patternFrom binds the positions of q selected by mask (bit 0 = S … bit 3 = G).
func patternFrom(q kb.Quad, mask int) kb.Pattern {
	var p kb.Pattern
	if mask&1 != 0 {
		p.S = q.S
	}
	if mask&2 != 0 {
		p.P = q.P
	}
	if mask&4 != 0 {
		p.O = q.O
	}
	if mask&8 != 0 {
		p.G = q.G
	}
	return p
}

func maskName(mask int) string {
	b := []byte("????")
	for i, c := range "SPOG" {
		if mask&(1<<i) != 0 {
			b[i] = byte(c)
		}
	}
	return string(b)
}

func testMatchAllBindings(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	// Probe quads: every stored quad, plus combinations that are not stored
	// but whose terms all are.
	id := f.ids
	probes := append([]kb.Quad(nil), f.quads...)
	probes = append(probes,
		kb.Quad{S: id["s1"], P: id["p3"], O: id["o1"], G: id["g2"]},
		kb.Quad{S: id["s2"], P: id["p1"], O: id["lit007"], G: id["g3"]},
		kb.Quad{S: id["o1"], P: id["o1"], O: id["o1"], G: id["o1"]},
	)
	for mask := 0; mask < 16; mask++ {
		t.Run(maskName(mask), func(t *testing.T) {
			for _, probe := range probes {
				p := patternFrom(probe, mask)
				want := filter(f.quads, p)
				got := mustMatch(t, ds, p)
				sameQuads(t, fmt.Sprintf("Match(%+v)", p), got, want)
				if n := mustCount(t, ds, p, true); n != int64(len(want)) {
					t.Errorf("Count(%+v, exact) = %d; want %d", p, n, len(want))
				}
			}
		})
	}
}

func testMatchUnknownIDs(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	unused := mustIntern(t, ds, iri("interned-but-unused"))[0]
	never := kb.ID(1 << 40)
	for _, p := range []kb.Pattern{
		{S: unused}, {P: unused}, {O: unused}, {G: unused},
		{S: never}, {P: never, G: f.ids["g1"]}, {O: never}, {G: never},
		{S: f.ids["s1"], P: f.ids["p1"], O: f.ids["o1"], G: unused},
	} {
		if got := mustMatch(t, ds, p); len(got) != 0 {
			t.Errorf("Match(%+v) = %v; want nothing", p, got)
		}
		if n := mustCount(t, ds, p, true); n != 0 {
			t.Errorf("Count(%+v, exact) = %d; want 0", p, n)
		}
	}
}

func testIteratorEarlyClose(t *testing.T, ds kb.Dataset) {
	newFixture(t, ds)
	it := ds.Match(context.Background(), kb.Pattern{})
	if !it.Next() {
		t.Fatalf("Match(all) yielded nothing: %v", it.Err())
	}
	_ = it.Quad()
	if err := it.Close(); err != nil {
		t.Errorf("Close after one quad: %v", err)
	}
	// The store is still usable.
	if n := len(allQuads(t, ds)); n == 0 {
		t.Errorf("Match(all) after an early Close yielded nothing")
	}
}

func graphSet(t *testing.T, ds kb.Dataset) map[kb.ID]bool {
	t.Helper()
	gs, err := ds.Graphs(context.Background())
	if err != nil {
		t.Fatalf("Graphs: %v", err)
	}
	set := make(map[kb.ID]bool)
	for _, g := range gs {
		if set[g] {
			t.Errorf("Graphs lists %d twice", g)
		}
		set[g] = true
	}
	return set
}

func testGraphs(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	id := f.ids
	want := map[kb.ID]bool{id["g1"]: true, id["g2"]: true, id["g3"]: true}
	if got := graphSet(t, ds); !equalSets(got, want) {
		t.Errorf("Graphs = %v; want %v", got, want)
	}
	// Emptying a graph removes it from Graphs.
	mustApply(t, ds, kb.Delta{Remove: filter(f.quads, kb.Pattern{G: id["g3"]})})
	delete(want, id["g3"])
	if got := graphSet(t, ds); !equalSets(got, want) {
		t.Errorf("after emptying g3, Graphs = %v; want %v", got, want)
	}
	// The default graph is a graph like any other.
	dg := mustIntern(t, ds, kb.DefaultGraph)[0]
	mustApply(t, ds, kb.Delta{Add: []kb.Quad{{S: id["s1"], P: id["p1"], O: id["o1"], G: dg}}})
	want[dg] = true
	if got := graphSet(t, ds); !equalSets(got, want) {
		t.Errorf("after adding to the default graph, Graphs = %v; want %v", got, want)
	}
}

func equalSets(a, b map[kb.ID]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func testDuplicateAdds(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	// Re-adding stored quads, and duplicates inside one delta, are no-ops.
	mustApply(t, ds, kb.Delta{Add: f.quads})
	extra := kb.Quad{S: f.ids["s3"], P: f.ids["p2"], O: f.ids["lit7"], G: f.ids["g1"]}
	mustApply(t, ds, kb.Delta{Add: []kb.Quad{extra, extra, f.quads[0], extra}})
	want := append(append([]kb.Quad(nil), f.quads...), extra)
	sameQuads(t, "after duplicate adds", allQuads(t, ds), want)
	if n := mustCount(t, ds, kb.Pattern{}, true); n != int64(len(want)) {
		t.Errorf("Count(all) = %d; want %d", n, len(want))
	}
}

func testRemovals(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	id := f.ids
	gone := []kb.Quad{f.quads[0], f.quads[6], f.quads[len(f.quads)-1]}
	absent := kb.Quad{S: id["o1"], P: id["o1"], O: id["o1"], G: id["g1"]}
	// Removing a missing quad, or the same quad twice, is not an error.
	mustApply(t, ds, kb.Delta{Remove: append(append([]kb.Quad(nil), gone...), absent, gone[0])})
	var want []kb.Quad
	for _, q := range f.quads {
		if q != gone[0] && q != gone[1] && q != gone[2] {
			want = append(want, q)
		}
	}
	sameQuads(t, "after removals", allQuads(t, ds), want)
	// The same triple in another graph is untouched by removing it from g1.
	if got := mustMatch(t, ds, kb.Pattern{S: id["s1"], P: id["p1"], O: id["o1"]}); len(got) != 0 {
		t.Errorf("s1 p1 o1 should be gone from g1 and g2, found %v", got)
	}
	for mask := 0; mask < 16; mask++ {
		for _, q := range gone {
			p := patternFrom(q, mask)
			if n := mustCount(t, ds, p, true); n != int64(len(filter(want, p))) {
				t.Errorf("after removals Count(%+v) = %d; want %d", p, n, len(filter(want, p)))
			}
		}
	}
	// Remove everything; the store is empty and has no graphs.
	mustApply(t, ds, kb.Delta{Remove: want})
	if got := allQuads(t, ds); len(got) != 0 {
		t.Errorf("after removing everything, Match(all) = %v", got)
	}
	if gs := graphSet(t, ds); len(gs) != 0 {
		t.Errorf("after removing everything, Graphs = %v", gs)
	}
	// Terms stay resolvable after their quads are gone.
	if term, err := ds.Resolve(context.Background(), id["lit007"]); err != nil || term != kb.Literal("007", xsdInt) {
		t.Errorf("Resolve(lit007) after removal = %v, %v", term, err)
	}
}

func testDeltaOrder(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	q := f.quads[2]
	// Removals are applied before additions: remove+add of one quad keeps it.
	mustApply(t, ds, kb.Delta{Remove: []kb.Quad{q}, Add: []kb.Quad{q}})
	if got := mustMatch(t, ds, kb.Pattern(q)); len(got) != 1 {
		t.Errorf("after Remove+Add of %v, Match = %v; want the quad", q, got)
	}
	// And a new quad added and removed in one delta is stored.
	n := kb.Quad{S: f.ids["s3"], P: f.ids["p3"], O: f.ids["o1"], G: f.ids["g1"]}
	mustApply(t, ds, kb.Delta{Remove: []kb.Quad{n}, Add: []kb.Quad{n}})
	sameQuads(t, "after remove-then-add", allQuads(t, ds), append(append([]kb.Quad(nil), f.quads...), n))
}

func testApplyAtomicUnknownID(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	id := f.ids
	newQuad := kb.Quad{S: id["s3"], P: id["p2"], O: id["o2"], G: id["g1"]}
	unknown := kb.ID(1 << 40)
	for _, d := range []kb.Delta{
		{Add: []kb.Quad{newQuad, {S: id["s1"], P: id["p1"], O: unknown, G: id["g1"]}}},
		{Remove: []kb.Quad{f.quads[0]}, Add: []kb.Quad{newQuad, {S: unknown, P: id["p1"], O: id["o1"], G: id["g1"]}}},
		{Remove: []kb.Quad{f.quads[1], {S: id["s1"], P: id["p1"], O: id["o1"], G: unknown}}, Add: []kb.Quad{newQuad}},
		{Add: []kb.Quad{newQuad, {S: id["s1"], P: unknown, O: id["o1"], G: id["g1"]}}},
	} {
		if err := ds.Apply(context.Background(), d); err == nil {
			t.Errorf("Apply(%+v) with an unknown ID succeeded; want an error", d)
		}
		sameQuads(t, "after a failed Apply", allQuads(t, ds), f.quads)
	}
	if gs := graphSet(t, ds); len(gs) != 3 {
		t.Errorf("after failed Applies, Graphs = %v; want the 3 fixture graphs", gs)
	}
}

func testApplyZeroID(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	id := f.ids
	bad := kb.Quad{S: id["s1"], P: id["p1"], O: id["o2"], G: 0}
	if err := ds.Apply(context.Background(), kb.Delta{Add: []kb.Quad{bad}}); err == nil {
		t.Errorf("Apply of a quad with graph 0 succeeded; want an error")
	}
	sameQuads(t, "after adding a quad with a zero ID", allQuads(t, ds), f.quads)
}

func testApplyCancelled(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	add := kb.Quad{S: f.ids["s3"], P: f.ids["p2"], O: f.ids["o2"], G: f.ids["g1"]}
	if err := ds.Apply(ctx, kb.Delta{Remove: f.quads[:2], Add: []kb.Quad{add}}); err == nil {
		t.Errorf("Apply with a cancelled context succeeded; want an error")
	}
	sameQuads(t, "after a cancelled Apply", allQuads(t, ds), f.quads)
}

func testCountMatchesMatch(t *testing.T, ds kb.Dataset) {
	f := newFixture(t, ds)
	for mask := 0; mask < 16; mask++ {
		for _, q := range f.quads {
			p := patternFrom(q, mask)
			exact := mustCount(t, ds, p, true)
			if want := int64(len(filter(f.quads, p))); exact != want {
				t.Errorf("Count(%+v, exact) = %d; want %d", p, exact, want)
			}
			est := mustCount(t, ds, p, false)
			if est < 0 {
				t.Errorf("Count(%+v, estimate) = %d; want >= 0", p, est)
			}
			if exact > 0 && est == 0 {
				t.Errorf("Count(%+v, estimate) = 0 but %d quads match; an estimate must not rule out matches", p, exact)
			}
		}
	}
}

func testStats(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	empty, err := ds.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats on an empty store: %v", err)
	}
	if empty.Quads != 0 || len(empty.ByPredicate) != 0 || len(empty.ByGraph) != 0 || len(empty.ByPredicateGraph) != 0 {
		t.Errorf("Stats on an empty store = %+v; want zero counts", empty)
	}
	f := newFixture(t, ds)
	check := func(when string, quads []kb.Quad) {
		t.Helper()
		st, err := ds.Stats(ctx)
		if err != nil {
			t.Fatalf("Stats %s: %v", when, err)
		}
		byP := make(map[kb.ID]int64)
		byG := make(map[kb.ID]int64)
		byPG := make(map[[2]kb.ID]int64)
		terms := make(map[kb.ID]bool)
		for _, q := range quads {
			byP[q.P]++
			byG[q.G]++
			byPG[[2]kb.ID{q.P, q.G}]++
			terms[q.S], terms[q.P], terms[q.O], terms[q.G] = true, true, true, true
		}
		if st.Approximate {
			// Approximate stats must still name every predicate and graph.
			for p := range byP {
				if st.ByPredicate[p] <= 0 {
					t.Errorf("Stats %s (approximate): predicate %d missing", when, p)
				}
			}
			for g := range byG {
				if st.ByGraph[g] <= 0 {
					t.Errorf("Stats %s (approximate): graph %d missing", when, g)
				}
			}
			return
		}
		if st.Quads != int64(len(quads)) {
			t.Errorf("Stats %s: Quads = %d; want %d", when, st.Quads, len(quads))
		}
		if st.Terms < int64(len(terms)) {
			t.Errorf("Stats %s: Terms = %d; want at least the %d distinct terms in quads", when, st.Terms, len(terms))
		}
		if !equalCounts(st.ByPredicate, byP) {
			t.Errorf("Stats %s: ByPredicate = %v; want %v", when, st.ByPredicate, byP)
		}
		if !equalCounts(st.ByGraph, byG) {
			t.Errorf("Stats %s: ByGraph = %v; want %v", when, st.ByGraph, byG)
		}
		if !equalCounts(st.ByPredicateGraph, byPG) {
			t.Errorf("Stats %s: ByPredicateGraph = %v; want %v", when, st.ByPredicateGraph, byPG)
		}
		// Stats agree with exact counts.
		for p, n := range byP {
			if c := mustCount(t, ds, kb.Pattern{P: p}, true); c != n {
				t.Errorf("Stats %s: Count(P=%d) = %d; ByPredicate says %d", when, p, c, n)
			}
		}
		for pg, n := range byPG {
			if c := mustCount(t, ds, kb.Pattern{P: pg[0], G: pg[1]}, true); c != n {
				t.Errorf("Stats %s: Count(P=%d, G=%d) = %d; ByPredicateGraph says %d", when, pg[0], pg[1], c, n)
			}
		}
	}
	check("after the fixture", f.quads)
	// Removals are reflected, and emptied predicates and graphs disappear.
	var rest []kb.Quad
	var gone []kb.Quad
	for _, q := range f.quads {
		if q.G == f.ids["g3"] || q.P == f.ids["p3"] {
			gone = append(gone, q)
		} else {
			rest = append(rest, q)
		}
	}
	mustApply(t, ds, kb.Delta{Remove: gone})
	check("after removals", rest)
}

func equalCounts[K comparable](got, want map[K]int64) bool {
	n := 0
	for k, v := range got {
		if v == 0 {
			continue // a zero entry is as good as none
		}
		if want[k] != v {
			return false
		}
		n++
	}
	return n == len(want)
}

// genQuads makes n distinct quads over a few predicates and graphs.
func genQuads(t *testing.T, ds kb.Dataset, prefix string, n int) []kb.Quad {
	t.Helper()
	terms := make([]kb.Term, 0, n+6)
	for i := 0; i < n; i++ {
		terms = append(terms, iri(fmt.Sprintf("%s-s%d", prefix, i)))
	}
	terms = append(terms, iri("p1"), iri("p2"), iri("p3"), iri(prefix+"-g1"), iri(prefix+"-g2"), kb.Literal("42", xsdInt))
	ids := mustIntern(t, ds, terms...)
	preds, graphs, obj := ids[n:n+3], ids[n+3:n+5], ids[n+5]
	quads := make([]kb.Quad, n)
	for i := range quads {
		o := obj
		if i > 0 {
			o = ids[i-1]
		}
		quads[i] = kb.Quad{S: ids[i], P: preds[i%3], O: o, G: graphs[i%2]}
	}
	return quads
}

func testBulkCommit(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	quads := genQuads(t, ds, "bulk", 2500)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	// Add in batches through one reused buffer: the writer must copy.
	buf := make([]kb.Quad, 0, 300)
	for i, q := range quads {
		buf = append(buf, q)
		if len(buf) == cap(buf) || i == len(quads)-1 {
			if err := bw.Add(ctx, buf); err != nil {
				t.Fatalf("bulk Add: %v", err)
			}
			for j := range buf {
				buf[j] = kb.Quad{S: 1 << 41, P: 1 << 41, O: 1 << 41, G: 1 << 41}
			}
			buf = buf[:0]
		}
		if i == len(quads)/2 {
			// Nothing is visible before Commit.
			if n := mustCount(t, ds, kb.Pattern{}, true); n != int64(len(f.quads)) {
				t.Errorf("before Commit, Count(all) = %d; want %d", n, len(f.quads))
			}
		}
	}
	if n := mustCount(t, ds, kb.Pattern{}, true); n != int64(len(f.quads)) {
		t.Errorf("before Commit, Count(all) = %d; want %d", n, len(f.quads))
	}
	if gs := graphSet(t, ds); len(gs) != 3 {
		t.Errorf("before Commit, Graphs = %v; want the 3 fixture graphs", gs)
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	want := append(append([]kb.Quad(nil), f.quads...), quads...)
	sameQuads(t, "after Commit", allQuads(t, ds), want)
	if gs := graphSet(t, ds); len(gs) != 5 {
		t.Errorf("after Commit, Graphs = %v; want 5 graphs", gs)
	}
	if err := bw.Abort(); err != nil {
		t.Errorf("Abort after Commit = %v; want nil (a no-op)", err)
	}
	sameQuads(t, "after Abort following Commit", allQuads(t, ds), want)
}

func testBulkAbort(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	quads := genQuads(t, ds, "aborted", 1000)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	for i := 0; i < len(quads); i += 250 {
		if err := bw.Add(ctx, quads[i:i+250]); err != nil {
			t.Fatalf("bulk Add: %v", err)
		}
	}
	if err := bw.Abort(); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	sameQuads(t, "after Abort", allQuads(t, ds), f.quads)
	if gs := graphSet(t, ds); len(gs) != 3 {
		t.Errorf("after Abort, Graphs = %v; want the 3 fixture graphs", gs)
	}
	if err := bw.Abort(); err != nil {
		t.Errorf("second Abort = %v; want nil", err)
	}
	// The store accepts writes after an aborted bulk.
	mustApply(t, ds, kb.Delta{Add: quads[:10]})
	sameQuads(t, "Apply after Abort", allQuads(t, ds), append(append([]kb.Quad(nil), f.quads...), quads[:10]...))
}

func testBulkUnknownID(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	quads := genQuads(t, ds, "bad", 500)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	failed := false
	if err := bw.Add(ctx, quads); err != nil {
		failed = true
	}
	if !failed {
		bad := []kb.Quad{{S: f.ids["s1"], P: f.ids["p1"], O: 1 << 40, G: f.ids["g1"]}}
		if err := bw.Add(ctx, bad); err != nil {
			failed = true
		}
	}
	if !failed {
		if err := bw.Commit(ctx); err == nil {
			t.Errorf("a bulk load with an unknown ID committed; want an error from Add or Commit")
		}
	} else {
		_ = bw.Abort()
	}
	sameQuads(t, "after a failed bulk load", allQuads(t, ds), f.quads)
}

func testBulkDuplicates(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	quads := genQuads(t, ds, "dup", 100)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	for _, batch := range [][]kb.Quad{quads, f.quads, quads[:50], {quads[0], quads[0]}} {
		if err := bw.Add(ctx, batch); err != nil {
			t.Fatalf("bulk Add: %v", err)
		}
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatalf("Commit of duplicates: %v", err)
	}
	sameQuads(t, "after a bulk load with duplicates", allQuads(t, ds), append(append([]kb.Quad(nil), f.quads...), quads...))
}

func testBulkAfterDone(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatalf("Commit of an empty bulk: %v", err)
	}
	extra := []kb.Quad{{S: f.ids["s3"], P: f.ids["p2"], O: f.ids["o2"], G: f.ids["g1"]}}
	if err := bw.Add(ctx, extra); err == nil {
		t.Errorf("Add after Commit succeeded; want an error")
	}
	if err := bw.Commit(ctx); err == nil {
		t.Errorf("second Commit succeeded; want an error")
	}
	sameQuads(t, "after using a finished bulk", allQuads(t, ds), f.quads)
}

// testConcurrent runs readers against a writer whose every Apply adds or
// removes a pair of quads together. Readers check that each Match snapshot
// holds whole pairs only, and that the terms resolve.
func testConcurrent(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	const pairs = 150
	terms := []kb.Term{iri("left"), iri("right"), iri("cg"), kb.String("v")}
	for i := 0; i < pairs; i++ {
		terms = append(terms, iri(fmt.Sprintf("c%d", i)))
	}
	ids := mustIntern(t, ds, terms...)
	left, right, g, v := ids[0], ids[1], ids[2], ids[3]
	subj := ids[4:]
	pair := func(i int) []kb.Quad {
		return []kb.Quad{{S: subj[i], P: left, O: v, G: g}, {S: subj[i], P: right, O: v, G: g}}
	}
	deadline := time.Now().Add(3 * time.Second)
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		for i := 0; i < pairs; i++ {
			if time.Now().After(deadline) {
				return
			}
			if err := ds.Apply(ctx, kb.Delta{Add: pair(i)}); err != nil {
				report(fmt.Errorf("writer Apply: %w", err))
				return
			}
			if i%3 == 2 {
				if err := ds.Apply(ctx, kb.Delta{Remove: pair(i - 1)}); err != nil {
					report(fmt.Errorf("writer Apply: %w", err))
					return
				}
			}
			if i%10 == 0 {
				// Interning while readers read.
				if _, err := ds.Intern(ctx, []kb.Term{kb.Literal(fmt.Sprint(i), xsdInt)}); err != nil {
					report(fmt.Errorf("writer Intern: %w", err))
					return
				}
			}
		}
	}()
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for !done.Load() {
				quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: g}))
				if err != nil {
					report(fmt.Errorf("reader Match: %w", err))
					return
				}
				seen := make(map[kb.ID]int)
				for _, q := range quads {
					seen[q.S]++
				}
				for s, n := range seen {
					if n != 2 {
						report(fmt.Errorf("reader saw %d of the 2 quads of subject %d: Apply is not atomic for readers", n, s))
						return
					}
				}
				switch r {
				case 0:
					if _, err := ds.Count(ctx, kb.Pattern{P: left}, true); err != nil {
						report(fmt.Errorf("reader Count: %w", err))
						return
					}
				case 1:
					if _, err := ds.Stats(ctx); err != nil {
						report(fmt.Errorf("reader Stats: %w", err))
						return
					}
				case 2:
					for s := range seen {
						if _, err := ds.Resolve(ctx, s); err != nil {
							report(fmt.Errorf("reader Resolve: %w", err))
							return
						}
					}
					if _, _, err := ds.Lookup(ctx, iri("c1")); err != nil {
						report(fmt.Errorf("reader Lookup: %w", err))
						return
					}
					if _, err := ds.Graphs(ctx); err != nil {
						report(fmt.Errorf("reader Graphs: %w", err))
						return
					}
				}
			}
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testClose(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	if err := ds.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, kb.ErrClosed) {
			t.Errorf("%s after Close: error %v; want kb.ErrClosed", op, err)
		}
	}
	_, err := ds.Intern(ctx, []kb.Term{iri("new")})
	check("Intern", err)
	_, _, err = ds.Lookup(ctx, iri("s1"))
	check("Lookup", err)
	_, err = ds.Resolve(ctx, f.ids["s1"])
	check("Resolve", err)
	_, err = kb.Collect(ds.Match(ctx, kb.Pattern{}))
	check("Match", err)
	_, err = ds.Count(ctx, kb.Pattern{}, true)
	check("Count", err)
	_, err = ds.Stats(ctx)
	check("Stats", err)
	_, err = ds.Graphs(ctx)
	check("Graphs", err)
	check("Apply", ds.Apply(ctx, kb.Delta{Add: f.quads[:1]}))
	if bw, err := ds.BeginBulk(ctx); err == nil {
		// Some stores only notice at Commit.
		check("bulk Commit", func() error {
			if err := bw.Add(ctx, f.quads[:1]); err != nil {
				return err
			}
			return bw.Commit(ctx)
		}())
	} else {
		check("BeginBulk", err)
	}
	// A second Close must not panic.
	_ = ds.Close()
}

// loadDoc is an N-Quads document with every term shape.
const loadDoc = `<http://example.org/perf#e1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/perf#Experiment> <http://example.org/perf#site1> .
<http://example.org/perf#e1> <http://example.org/perf#label> "Exp \"one\"\n"@EN-gb <http://example.org/perf#site1> .
<http://example.org/perf#e1> <http://example.org/perf#value> "007"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.org/perf#site1> .
<http://example.org/perf#e1> <http://example.org/perf#metric> _:m1 <http://example.org/perf#site2> .
_:m1 <http://example.org/perf#name> "AvgMessageLength" <http://example.org/perf#site2> .
_:m1 <http://example.org/perf#value> "65536.0"^^<http://www.w3.org/2001/XMLSchema#double> .
`

func exportNQuads(t *testing.T, ds kb.Dataset) string {
	t.Helper()
	var buf bytes.Buffer
	if err := rdfio.Export(context.Background(), ds, &buf, rdfio.ExportOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatalf("Export: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func testLoadRoundTrip(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	sum, err := rdfio.Load(ctx, ds, strings.NewReader(loadDoc), rdfio.LoadOptions{Format: rdfio.NQuads, BatchSize: 2})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if sum.Triples != 6 || sum.Graphs != 3 {
		t.Errorf("Load summary = %+v; want 6 triples in 3 graphs", sum)
	}
	out := exportNQuads(t, ds)
	for _, want := range []string{
		`<http://example.org/perf#e1> <http://example.org/perf#label> "Exp \"one\"\n"@en-gb <http://example.org/perf#site1> .`,
		`<http://example.org/perf#e1> <http://example.org/perf#value> "007"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.org/perf#site1> .`,
		`"65536.0"^^<http://www.w3.org/2001/XMLSchema#double> .`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("export lacks %s; got\n%s", want, out)
		}
	}
}

func testLoadSyntaxError(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(loadDoc), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatalf("Load: %v", err)
	}
	before := exportNQuads(t, ds)
	statsBefore, err := ds.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Many good lines (more than one batch) and then a bad one.
	var doc strings.Builder
	for i := 0; i < 250; i++ {
		fmt.Fprintf(&doc, "<http://example.org/perf#n%d> <http://example.org/perf#p> \"%d\" <http://example.org/perf#site3> .\n", i, i)
	}
	doc.WriteString("<http://example.org/perf#bad> <http://example.org/perf#p> \"unterminated .\n")
	_, err = rdfio.Load(ctx, ds, strings.NewReader(doc.String()), rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "bad.nq", BatchSize: 100})
	var se *textpos.Error
	if !errors.As(err, &se) || se.Pos.Line != 251 || se.Pos.Column != 59 {
		t.Fatalf("Load of a bad line 251 = %v; want a *textpos.Error at bad.nq:251:59", err)
	}
	if after := exportNQuads(t, ds); after != before {
		t.Errorf("a failed load changed the store:\nbefore\n%s\nafter\n%s", before, after)
	}
	statsAfter, err := ds.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if statsAfter.Quads != statsBefore.Quads || len(statsAfter.ByGraph) != len(statsBefore.ByGraph) {
		t.Errorf("a failed load changed Stats: %d quads in %d graphs, before %d in %d",
			statsAfter.Quads, len(statsAfter.ByGraph), statsBefore.Quads, len(statsBefore.ByGraph))
	}
	if id, ok, _ := ds.Lookup(ctx, kb.IRI(ex+"site3")); ok {
		if n := mustCount(t, ds, kb.Pattern{G: id}, true); n != 0 {
			t.Errorf("graph site3 of the failed load has %d quads", n)
		}
	}
}

func testLoadBlankNodes(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	const doc = "_:x <http://example.org/perf#p> _:y .\n_:y <http://example.org/perf#p> _:x .\n"
	for i := 0; i < 2; i++ {
		if _, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
			t.Fatalf("Load: %v", err)
		}
	}
	quads := allQuads(t, ds)
	if len(quads) != 4 {
		t.Fatalf("two loads of the same 2 triples with blank nodes stored %d quads; want 4", len(quads))
	}
	nodes := make(map[kb.ID]bool)
	for _, q := range quads {
		nodes[q.S], nodes[q.O] = true, true
	}
	if len(nodes) != 4 {
		t.Errorf("two loads share blank nodes: %d distinct nodes; want 4", len(nodes))
	}
}
