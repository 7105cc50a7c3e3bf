package reasoner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// retractRules (retractBaseRules, two skolem rules, a rule over variable
// predicates and aggregates) has recursion (link is asserted and
// transitive; path is reachability over edge), negation as failure over
// an asserted predicate (open needs no blocked), a rule over a negated
// rule's output, a rule with two head triples, two rules making the same
// skolem nodes (a node one rule derives a triple about may be kept by the
// other), lift, whose body and head predicates are variables (as in
// RDFS's sub-property rule: retraction's gates are memoised per predicate
// for such patterns), typed, the same with a kind test (as RDFS's range
// rule: over-deleting answers it from the marked triple, see
// overDeletePair), and SPARQL rules with aggregates: reach counts a
// node's paths (an aggregate over a recursive predicate), hub is a Jena
// rule over it, and opens aggregates over the negated rule's output and
// reach's (a second stratum).
const retractBaseRules = `@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>.
[trans: (?a ex:link ?b), (?b ex:link ?c) -> (?a ex:link ?c)]
[path0: (?a ex:edge ?b) -> (?a ex:path ?b)]
[path1: (?a ex:path ?b), (?b ex:edge ?c) -> (?a ex:path ?c)]
[open: (?a ex:path ?b), noValue(?a, ex:blocked, ?b) -> (?a ex:open ?b)]
[kind: (?a ex:open ?b), (?b ex:link ?a) -> (?a rdf:type ex:Loop), (?b rdf:type ex:Loop)]
`

const retractRules = retractBaseRules + `
[find: (?a ex:open ?b), makeSkolem(?f, ?a, ?b) -> (?a ex:finding ?f), (?f ex:about ?b)]
[note: (?a ex:link ?b), (?b ex:edge ?a), makeSkolem(?f, ?a, ?b) -> (?f ex:about ?b)]
[lift: (?p ex:liftsTo ?q), (?a ?p ?b) -> (?a ?q ?b)]
[typed: (?p ex:liftsTo ?q), (?a ?p ?b), notLiteral(?b) -> (?b ex:typedBy ?q)]
[reach: CONSTRUCT { ?a ex:reach ?n } WHERE { SELECT ?a (COUNT(DISTINCT ?b) AS ?n) WHERE { ?a ex:path ?b } GROUP BY ?a }]
[hub: (?a ex:reach ?n), greaterThan(?n, 2) -> (?a rdf:type ex:Hub)]
[opens: CONSTRUCT { ?a ex:opens ?n } WHERE { SELECT ?a (MAX(?c) AS ?n) WHERE { { SELECT ?a ?b (COUNT(?x) AS ?c) WHERE { ?a ex:open ?b . ?b ex:reach ?x } GROUP BY ?a ?b } } GROUP BY ?a HAVING (MAX(?c) > 1) }]
`

// A hand-computed retraction: deleting one edge of a chain withdraws the
// paths through it, keeps a path with another support, and a deleted
// block lets open through.
func TestRemoveWithdrawsWhatNoLongerFollows(t *testing.T) {
	for _, onDemand := range []bool{false, true} {
		t.Run(removeName("", onDemand), func(t *testing.T) {
			testRemoveWithdraws(t, onDemand)
		})
	}
}

func testRemoveWithdraws(t *testing.T, onDemand bool) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:a ex:edge ex:b . ex:b ex:edge ex:c . ex:a ex:edge ex:c . ex:c ex:edge ex:d .
		ex:a ex:blocked ex:d .`)
	prog := mustProgram(t, retractBaseRules)
	eng, err := NewEngine(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if onDemand {
		if eng, err = NewEngine(ctx, ds, prog, Options{LoadOnDemand: true}); err != nil {
			t.Fatal(err)
		}
	}
	del := turtleQuads(t, ds, `ex:b ex:edge ex:c . ex:a ex:blocked ex:d .`)
	sum, err := eng.Remove(ctx, del)
	if err != nil {
		t.Fatal(err)
	}
	// Before: path a-b a-c a-d b-c b-d c-d, open for all but a-d.
	// After: path a-b a-c a-d c-d (a-c by its own edge, a-d through c),
	// b-c and b-d gone with their opens; a-d now open.
	var want []string
	for _, pr := range [][2]string{{"a", "b"}, {"a", "c"}, {"a", "d"}, {"c", "d"}} {
		for _, p := range []string{"path", "open"} {
			want = append(want, fmt.Sprintf("<http://example.org/%s> <http://example.org/%s> <http://example.org/%s> .", pr[0], p, pr[1]))
		}
	}
	slices.Sort(want)
	if got := graphTriples(t, ds, kb.InferredGraph); !slices.Equal(got, want) {
		t.Errorf("inferred after remove:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sum.Retracted != 4 {
		t.Errorf("retracted %d, want 4 (path and open of b-c and b-d)", sum.Retracted)
	}
	if got := graphTriples(t, ds, kb.DefaultGraph); len(got) != 3 {
		t.Errorf("asserted after remove: %v, want the 3 edges left", got)
	}
	checkRecords(t, ds)
}

// TestRetractMatchesRecompute applies random inserts and deletes to a
// small store, maintained incrementally, and compares the inferred graph
// after each step with a run from scratch over the asserted quads, and
// checks the derivation records (every inferred triple has one, every
// record's triple and premises are in the store). PERFKB_RETRACT_STEPS sets the steps (default 200);
// PERFKB_RETRACT_SEED the seed.
func TestRetractMatchesRecompute(t *testing.T) {
	steps := 200
	if v := os.Getenv("PERFKB_RETRACT_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("PERFKB_RETRACT_STEPS: %v", err)
		}
		steps = n
	}
	seed := uint64(25)
	if v := os.Getenv("PERFKB_RETRACT_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("PERFKB_RETRACT_SEED: %v", err)
		}
		seed = n
	}
	stores := []struct {
		name string
		open func(t *testing.T) kb.Dataset
	}{
		{"memory", func(t *testing.T) kb.Dataset { return native.OpenMemory() }},
		{"native", func(t *testing.T) kb.Dataset {
			st, err := native.Open(context.Background(), filepath.Join(t.TempDir(), "db"), native.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
	}
	for _, st := range stores {
		// engine: Engine.Add and Engine.Remove; store: the store written,
		// then RunIncremental or RunRetract; live: a Live store, each
		// step one Apply of deletes and inserts together; ondemand: a new
		// engine for each step, as the CLI makes one, that reads the
		// store on demand (Options.LoadOnDemand): Remove reads only what
		// its lookups need, Add reads all of it first.
		for _, mode := range []string{"engine", "store", "live", "ondemand"} {
			t.Run(st.name+"/"+mode, func(t *testing.T) {
				runRetractSteps(t, st.open(t), mode, steps, seed)
			})
		}
	}
}

func runRetractSteps(t *testing.T, ds kb.Dataset, mode string, steps int, seed uint64) {
	ctx := context.Background()
	prog := mustProgram(t, retractRules)
	rng := rand.New(rand.NewPCG(seed, 7))
	nodes := []string{"a", "b", "c", "d", "e"}
	preds := []string{"edge", "link", "blocked"}
	graphs := []kb.Term{kb.IRI("http://example.org/g1"), kb.IRI("http://example.org/g2")}
	var eng *Engine
	var live *Live
	switch mode {
	case "engine":
		var err error
		if eng, err = NewEngine(ctx, ds, prog, Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Run(ctx); err != nil {
			t.Fatal(err)
		}
	case "live":
		var err error
		if live, _, err = NewLive(ctx, ds, prog, Options{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for step := range steps {
		if mode == "live" {
			liveStep(t, live, rng, step, prog)
			continue
		}
		// A batch of one to three quads, all inserts or all deletes; a
		// delete picks asserted quads mostly, sometimes a derived one.
		insert := rng.IntN(2) == 0
		var batch []kb.TermQuad
		for range 1 + rng.IntN(3) {
			if !insert && rng.IntN(8) == 0 {
				inf := graphTriples(t, ds, kb.InferredGraph)
				if len(inf) > 0 {
					tq := parseNT(t, inf[rng.IntN(len(inf))])
					tq.G = kb.InferredGraph
					batch = append(batch, tq)
					continue
				}
			}
			batch = append(batch, randomRetractQuad(rng, nodes, preds, graphs))
		}
		quads := internQuads(t, ds, batch)
		var err error
		switch {
		case mode == "ondemand":
			var fresh *Engine
			if fresh, err = NewEngine(ctx, ds, prog, Options{LoadOnDemand: true}); err == nil {
				if insert {
					_, err = fresh.Add(ctx, quads)
				} else {
					_, err = fresh.Remove(ctx, quads)
				}
			}
		case eng != nil && insert:
			_, err = eng.Add(ctx, quads)
		case eng != nil:
			_, err = eng.Remove(ctx, quads)
		case insert:
			if err = ds.Apply(ctx, kb.Delta{Add: quads}); err == nil {
				_, err = RunIncremental(ctx, ds, prog, quads, Options{})
			}
		default:
			if err = ds.Apply(ctx, kb.Delta{Remove: quads}); err == nil {
				_, err = RunRetract(ctx, ds, prog, quads, Options{})
			}
		}
		if err != nil {
			t.Fatalf("step %d (insert %v %v): %v", step, insert, batch, err)
		}
		got := storeClosure(t, ds)
		want := recompute(t, ds, prog)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d (insert %v %v): closure differs from a recompute\n got: %s\nwant: %s",
				step, insert, batch, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
		}
		checkRecords(t, ds)
		if t.Failed() {
			t.Fatalf("step %d (insert %v %v): derivation records are wrong", step, insert, batch)
		}
	}
}

// randomRetractQuad returns a quad of a random node, predicate, node and
// graph, or, one time in eight, a lift schema triple (edge, link or
// blocked lifts to edge or link; never to blocked, which a noValue test
// reads and so must stay asserted only).
func randomRetractQuad(rng *rand.Rand, nodes, preds []string, graphs []kb.Term) kb.TermQuad {
	g := graphs[rng.IntN(len(graphs))]
	if rng.IntN(8) == 0 {
		to := []string{"edge", "link"}
		return kb.TermQuad{S: ex(preds[rng.IntN(len(preds))]), P: ex("liftsTo"), O: ex(to[rng.IntN(len(to))]), G: g}
	}
	return kb.TermQuad{S: ex(nodes[rng.IntN(len(nodes))]), P: ex(preds[rng.IntN(len(preds))]),
		O: ex(nodes[rng.IntN(len(nodes))]), G: g}
}

// liveStep writes one random delta of deletes and inserts through a Live
// store (a delete is of a stored quad, asserted mostly, sometimes
// inferred; an insert may repeat a deleted quad) and compares the closure
// with a recompute.
func liveStep(t *testing.T, live *Live, rng *rand.Rand, step int, prog *Program) {
	t.Helper()
	ctx := context.Background()
	nodes := []string{"a", "b", "c", "d", "e"}
	preds := []string{"edge", "link", "blocked"}
	graphs := []kb.Term{kb.IRI("http://example.org/g1"), kb.IRI("http://example.org/g2")}
	stored, err := kb.Collect(live.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	var d kb.Delta
	for range rng.IntN(3) {
		if len(stored) == 0 {
			break
		}
		q := stored[rng.IntN(len(stored))]
		if g, err := live.Resolve(ctx, q.G); err != nil {
			t.Fatal(err)
		} else if g.Value == kb.DerivationsGraphIRI || g.Value == kb.InferredGraphIRI && rng.IntN(4) != 0 {
			continue
		}
		d.Remove = append(d.Remove, q)
	}
	var add []kb.TermQuad
	for range rng.IntN(3) {
		add = append(add, randomRetractQuad(rng, nodes, preds, graphs))
	}
	d.Add = internQuads(t, live, add)
	if len(d.Remove) > 0 && rng.IntN(6) == 0 {
		d.Add = append(d.Add, d.Remove[0]) // removed and added: stays
	}
	if err := live.Apply(ctx, d); err != nil {
		t.Fatalf("step %d (%v): %v", step, d, err)
	}
	got := storeClosure(t, live)
	want := recompute(t, live, prog)
	if !slices.Equal(got, want) {
		t.Fatalf("step %d (remove %v, add %v): closure differs from a recompute\n got: %s\nwant: %s",
			step, d.Remove, add, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
	checkRecords(t, live)
	if t.Failed() {
		t.Fatalf("step %d: derivation records are wrong", step)
	}
}

// storeClosure returns the distinct triples of every graph but the
// derivations graph, as sorted N-Triples lines: what is asserted and what
// is inferred (a triple derived before it was asserted stays in the
// inferred graph too, so the graphs alone may differ from a recompute's).
func storeClosure(t *testing.T, ds kb.Dataset) []string {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		if tq.G.Value == kb.DerivationsGraphIRI {
			continue
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

// recompute runs prog from scratch over the asserted quads of ds in a
// fresh store and returns its closure.
func recompute(t *testing.T, ds kb.Dataset, prog *Program) []string {
	ctx := context.Background()
	fresh := native.OpenMemory()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{kb.InferredGraphIRI: true, kb.DerivationsGraphIRI: true, kb.RulesInternalGraphIRI: true}
	var add []kb.TermQuad
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		if !skip[tq.G.Value] {
			add = append(add, tq)
		}
	}
	if err := fresh.Apply(ctx, kb.Delta{Add: internQuads(t, fresh, add)}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, fresh, prog, Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	return storeClosure(t, fresh)
}

func internQuads(t *testing.T, ds kb.Dataset, tqs []kb.TermQuad) []kb.Quad {
	t.Helper()
	var terms []kb.Term
	for _, q := range tqs {
		terms = append(terms, q.S, q.P, q.O, q.G)
	}
	ids, err := ds.Intern(context.Background(), terms)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]kb.Quad, len(tqs))
	for i := range tqs {
		out[i] = kb.Quad{S: ids[4*i], P: ids[4*i+1], O: ids[4*i+2], G: ids[4*i+3]}
	}
	return out
}

// parseNT reads one N-Triples line of IRIs (graphTriples' output here).
func parseNT(t *testing.T, line string) kb.TermQuad {
	f := strings.Fields(strings.TrimSuffix(line, " ."))
	if len(f) != 3 {
		t.Fatalf("not a triple of IRIs: %q", line)
	}
	iri := func(s string) kb.Term { return kb.IRI(strings.Trim(s, "<>")) }
	return kb.TermQuad{S: iri(f[0]), P: iri(f[1]), O: iri(f[2])}
}

// checkRecords reads every derivation batch of ds: each entry's triple is
// in the inferred graph and its premises are in the store, and each
// inferred triple has an entry.
func checkRecords(t *testing.T, ds kb.Dataset) {
	t.Helper()
	ctx := context.Background()
	x, err := newExplainer(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	if x == nil || !x.haveRecords {
		if inf := graphTriples(t, ds, kb.InferredGraph); len(inf) > 0 {
			t.Fatalf("no derivation records for %d inferred triples", len(inf))
		}
		return
	}
	if err := x.readRanges(); err != nil {
		t.Fatal(err)
	}
	has := func(tr [3]kb.ID, g kb.ID) bool {
		quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: tr[0], P: tr[1], O: tr[2], G: g}))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range quads {
			if q.G != x.derivG {
				return true
			}
		}
		return false
	}
	// Helper triples (kb.RulesInternalNamespace predicates) are derived
	// into the rules-internal graph.
	internal, ok, err := ds.Lookup(ctx, kb.IRI(kb.RulesInternalGraphIRI))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		internal = x.inferred
	}
	recorded := map[[3]kb.ID]bool{}
	for _, r := range x.ranges {
		term, err := ds.Resolve(ctx, r.batch)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := decodeBatch(term.Value)
		if err != nil {
			t.Fatal(err)
		}
		for tr, e := range entries {
			recorded[tr] = true
			if !has(tr, x.inferred) && !has(tr, internal) {
				t.Errorf("a derivation record names %v, which is not inferred", tr)
			}
			for _, p := range e.premises {
				if !has(p, kb.Any) {
					t.Errorf("the derivation record of %v names premise %v, which is not in the store", tr, p)
				}
			}
		}
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: x.inferred}))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range quads {
		if !recorded[[3]kb.ID{q.S, q.P, q.O}] {
			tq, _ := kb.ResolveQuad(ctx, ds, q)
			t.Errorf("inferred %v has no derivation record", tq)
		}
	}
}

// A bulk load through a Live store derives its consequences, and a
// delete of the loaded graph withdraws them (hand-computed: a chain of
// edges a-b-c gives paths a-b, b-c, a-c).
func TestLiveBulkLoadAndDrop(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	live, _, err := NewLive(ctx, ds, mustProgram(t, retractBaseRules), Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var changes []Summary
	live.SetOnChange(func(s Summary) { changes = append(changes, s) })
	g := kb.IRI("http://example.org/g1")
	quads := internQuads(t, live, []kb.TermQuad{{S: ex("a"), P: ex("edge"), O: ex("b"), G: g}, {S: ex("b"), P: ex("edge"), O: ex("c"), G: g}})
	w, err := live.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(ctx, quads); err != nil {
		t.Fatal(err)
	}
	if got := graphTriples(t, ds, kb.InferredGraph); len(got) != 0 {
		t.Fatalf("inferred before the bulk load's commit: %v", got)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, pr := range [][2]string{{"a", "b"}, {"a", "c"}, {"b", "c"}} {
		for _, p := range []string{"path", "open"} {
			want = append(want, fmt.Sprintf("<http://example.org/%s> <http://example.org/%s> <http://example.org/%s> .", pr[0], p, pr[1]))
		}
	}
	slices.Sort(want)
	if got := graphTriples(t, ds, kb.InferredGraph); !slices.Equal(got, want) {
		t.Errorf("inferred after the bulk load:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := live.Apply(ctx, kb.Delta{Remove: quads}); err != nil {
		t.Fatal(err)
	}
	if got := graphTriples(t, ds, kb.InferredGraph); len(got) != 0 {
		t.Errorf("inferred after the graph's quads were deleted: %v", got)
	}
	if len(changes) != 2 || changes[0].Derived != 6 || changes[1].Retracted != 6 {
		t.Errorf("change reports %+v, want 6 derived, then 6 retracted", changes)
	}
	checkRecords(t, ds)
}

// parseEntry reads the base-36 IDs of a derivation batch entry as
// strconv.ParseUint over the space-separated fields does, and rejects
// what is not an ID.
func TestParseEntry(t *testing.T) {
	for _, tc := range []struct {
		line string
		err  bool
	}{
		{line: "a 1 2 3"},
		{line: "zz 0 10 9ix 4 5 6"},
		{line: "3w5e11264sgsf 1 2 3"}, // 1<<64 - 1
		{line: "  7  8\t9 10 "},
		{line: ""},
		{line: "3w5e11264sgsg 1 2 3", err: true}, // 1<<64
		{line: "a 1 2 X", err: true},
		{line: "a 1 -2 3", err: true},
	} {
		got, err := parseEntry(tc.line, nil)
		if tc.err {
			if err == nil {
				t.Errorf("%q: no error, got %v", tc.line, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		var want []kb.ID
		for f := range strings.FieldsSeq(tc.line) {
			n, err := strconv.ParseUint(f, 36, 64)
			if err != nil {
				t.Fatalf("%q: oracle: %v", tc.line, err)
			}
			want = append(want, kb.ID(n))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", tc.line, got, want)
		}
	}
}

// pruneBatch keeps every entry whose subject was not marked as it is,
// drops the entries that derive a lost or unrecorded triple or use a lost
// one as a premise, and notes the kept entries it decoded (expected
// values worked out by hand from the four entries below; IDs in base 36).
func TestPruneBatch(t *testing.T) {
	lines := []string{
		"z 1 2 3 4 5 6", // (1 2 3) from (4 5 6)
		"z 5 2 7 8 9 a", // (5 2 7) from (8 9 10)
		"z 6 2 3 1 2 3", // (6 2 3) from (1 2 3)
		"z 9 2 3 5 2 7", // (9 2 3) from (5 2 7)
	}
	lex := strings.Join(lines, "\n")
	tr := func(s, p, o kb.ID) [3]kb.ID { return [3]kb.ID{s, p, o} }
	for _, tc := range []struct {
		name        string
		subjects    []kb.ID
		lost        map[[3]kb.ID]uint8
		kept        []int // indexes into lines
		first, last kb.ID
		dropped     [][3]kb.ID
		recorded    [][3]kb.ID
	}{
		{name: "nothing marked", kept: []int{0, 1, 2, 3}, first: 1, last: 9},
		{name: "lost triple and its consumer", subjects: []kb.ID{1, 6}, lost: map[[3]kb.ID]uint8{tr(1, 2, 3): 1},
			kept: []int{1, 3}, first: 5, last: 9, dropped: [][3]kb.ID{tr(1, 2, 3), tr(6, 2, 3)}},
		{name: "consumer's subject not marked", subjects: []kb.ID{1}, lost: map[[3]kb.ID]uint8{tr(1, 2, 3): 1},
			kept: []int{1, 2, 3}, first: 5, last: 9, dropped: [][3]kb.ID{tr(1, 2, 3)}},
		{name: "unrecorded stays a premise", subjects: []kb.ID{5, 9}, lost: map[[3]kb.ID]uint8{tr(5, 2, 7): 2},
			kept: []int{0, 2, 3}, first: 1, last: 9, dropped: [][3]kb.ID{tr(5, 2, 7)}, recorded: [][3]kb.ID{tr(9, 2, 3)}},
		{name: "last entry", subjects: []kb.ID{9}, lost: map[[3]kb.ID]uint8{tr(9, 2, 3): 1},
			kept: []int{0, 1, 2}, first: 1, last: 6, dropped: [][3]kb.ID{tr(9, 2, 3)}},
		{name: "every entry", subjects: []kb.ID{1, 5, 6, 9},
			lost:    map[[3]kb.ID]uint8{tr(1, 2, 3): 1, tr(5, 2, 7): 1, tr(6, 2, 3): 1, tr(9, 2, 3): 1},
			dropped: [][3]kb.ID{tr(1, 2, 3), tr(5, 2, 7), tr(6, 2, 3), tr(9, 2, 3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorded := map[[3]kb.ID]bool{}
			kept, first, last, dropped, err := pruneBatch(lex, tc.subjects, tc.lost, recorded)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, i := range tc.kept {
				want = append(want, lines[i])
			}
			if kept != strings.Join(want, "\n") {
				t.Errorf("kept %q, want %q", kept, strings.Join(want, "\n"))
			}
			if len(want) > 0 && (first != tc.first || last != tc.last) {
				t.Errorf("first, last = %d, %d; want %d, %d", first, last, tc.first, tc.last)
			}
			if !slices.Equal(dropped, tc.dropped) {
				t.Errorf("dropped %v, want %v", dropped, tc.dropped)
			}
			if len(recorded) != len(tc.recorded) {
				t.Errorf("recorded %v, want %v", recorded, tc.recorded)
			}
			for _, r := range tc.recorded {
				if !recorded[r] {
					t.Errorf("recorded %v, want %v", recorded, tc.recorded)
				}
			}
		})
	}
	if _, _, _, _, err := pruneBatch("z 1 2 3 4 5", []kb.ID{1}, nil, map[[3]kb.ID]bool{}); err == nil {
		t.Error("an entry of 6 IDs: no error")
	}
	if _, _, _, _, err := pruneBatch("z", nil, nil, map[[3]kb.ID]bool{}); err == nil {
		t.Error("an entry without a subject: no error")
	}
}

// A derivation whose premises are all deleted is withdrawn although
// over-deleting takes it to its final calls (makeSkolem) from one premise
// only: two edges deleted together, and a self-loop edge that matches
// both body patterns (hand-computed: each edge pair makes one finding
// node about its first node).
func TestRemoveSeveralPremisesOfOneDerivation(t *testing.T) {
	const rules = `[pair: (?a ex:edge ?b), (?b ex:edge ?a), makeSkolem(?f, ?a, ?b) -> (?f ex:about ?a)]`
	for _, tc := range []struct {
		name, del string
		left      []string // objects of the about triples left
	}{
		{name: "both edges of a pair", del: `ex:a ex:edge ex:b . ex:b ex:edge ex:a .`, left: []string{"c"}},
		{name: "one edge of a pair", del: `ex:b ex:edge ex:a .`, left: []string{"c"}},
		{name: "a self-loop", del: `ex:c ex:edge ex:c .`, left: []string{"a", "b"}},
		{name: "all", del: `ex:a ex:edge ex:b . ex:b ex:edge ex:a . ex:c ex:edge ex:c .`},
	} {
		for _, onDemand := range []bool{false, true} {
			t.Run(removeName(tc.name, onDemand), func(t *testing.T) {
				ds, prog, eng := closedEngine(t, `ex:a ex:edge ex:b . ex:b ex:edge ex:a . ex:c ex:edge ex:c .`, rules)
				if got := graphTriples(t, ds, kb.InferredGraph); len(got) != 3 {
					t.Fatalf("inferred before the delete: %v, want 3 about triples", got)
				}
				removeBy(t, ds, prog, eng, onDemand, turtleQuads(t, ds, tc.del))
				var left []string
				for _, tr := range graphTriples(t, ds, kb.InferredGraph) {
					f := strings.Fields(tr)
					left = append(left, strings.TrimSuffix(strings.TrimPrefix(f[2], "<http://example.org/"), ">"))
				}
				slices.Sort(left)
				if !slices.Equal(left, tc.left) {
					t.Errorf("about triples left for %v, want %v", left, tc.left)
				}
				checkRecords(t, ds)
			})
		}
	}
}
