package reasoner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// TestWorkersDeriveWhatOneDoes runs the shipped rule sets over sample data
// and the PERFONTO ontology on one worker and on several (rounds cut into
// many tasks, as the minimum rows per task is far below the data), and
// requires the same inferred graph and the same derivation of every
// derived triple, as the merge in task order promises. Run it with -race:
// the workers share the working memory and the term caches.
func TestWorkersDeriveWhatOneDoes(t *testing.T) {
	prog, err := LoadProgram(rules.Default, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// One store for both runs (the second resets the first's output), so
	// that both see the same IDs: loading interns on every core.
	ds, _ := loadSample(t, 20000)
	ctx := context.Background()
	if _, err := rdfio.Load(ctx, ds, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: kb.IRI(ontology.OntologyIRI)}); err != nil {
		t.Fatal(err)
	}
	var inferred, records [2][]string
	for i, workers := range []int{1, 5} {
		eng, err := NewEngine(ctx, ds, prog, Options{Workers: workers, Reset: true})
		if err != nil {
			t.Fatal(err)
		}
		if eng.workers != workers {
			t.Fatalf("engine uses %d workers, want %d", eng.workers, workers)
		}
		sum, err := eng.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Derived < 1000 {
			t.Fatalf("%d workers derived only %d triples", workers, sum.Derived)
		}
		inferred[i] = graphTriples(t, ds, kb.InferredGraph)
		records[i] = derivationLines(t, ds)
		if len(records[i]) != int(sum.Derived) {
			t.Errorf("%d workers: %d derivation entries for %d derived triples", workers, len(records[i]), sum.Derived)
		}
	}
	if !slices.Equal(inferred[0], inferred[1]) {
		t.Errorf("inferred graphs differ: %d triples on one worker, %d on five", len(inferred[0]), len(inferred[1]))
	}
	if !slices.Equal(records[0], records[1]) {
		for j := range min(len(records[0]), len(records[1])) {
			if records[0][j] != records[1][j] {
				t.Errorf("first differing derivation:\n one: %s\nfive: %s", records[0][j], records[1][j])
				break
			}
		}
	}
}

// TestSplitCoversRows checks that a join's row ranges cover its first
// step's input once.
func TestSplitCoversRows(t *testing.T) {
	var src strings.Builder
	for i := range 5*minTaskRows + 17 {
		fmt.Fprintf(&src, "ex:i%d rdf:type ex:A .\n", i)
	}
	ds := loadTurtle(t, src.String())
	prog := mustProgram(t, `[r: (?x rdf:type ex:A) -> (?x rdf:type ex:B)]`)
	eng, err := NewEngine(context.Background(), ds, prog, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	ts := eng.tasks(true)
	if len(ts) != 5 {
		t.Fatalf("%d tasks, want 5 (rows / minTaskRows)", len(ts))
	}
	next := int32(0)
	for _, tk := range ts {
		if tk.lo != next || tk.hi <= tk.lo {
			t.Fatalf("tasks %+v leave a gap or overlap at row %d", ts, next)
		}
		next = tk.hi
	}
	if next != int32(5*minTaskRows+17) {
		t.Errorf("tasks end at row %d, want %d", next, 5*minTaskRows+17)
	}
}

// derivationLines decodes every derivation entry of ds into a line of
// terms: derived triple, rule, premises.
func derivationLines(t *testing.T, ds kb.Dataset) []string {
	t.Helper()
	ctx := context.Background()
	derivG, ok, err := ds.Lookup(ctx, DerivationsGraph)
	if err != nil || !ok {
		t.Fatalf("no derivations graph: %v", err)
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: derivG}))
	if err != nil {
		t.Fatal(err)
	}
	str := func(id kb.ID) string {
		term, err := ds.Resolve(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return term.String()
	}
	seen := map[kb.ID]bool{}
	var out []string
	derivP, _, err := ds.Lookup(ctx, kb.IRI(DerivationFirstPredicateIRI))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range quads {
		if q.P != derivP || seen[q.O] {
			continue
		}
		seen[q.O] = true
		lit, err := ds.Resolve(ctx, q.O)
		if err != nil {
			t.Fatal(err)
		}
		batch, err := decodeBatch(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		for tr, e := range batch {
			line := str(tr[0]) + " " + str(tr[1]) + " " + str(tr[2]) + " <- " + str(e.label)
			for _, p := range e.premises {
				line += " | " + str(p[0]) + " " + str(p[1]) + " " + str(p[2])
			}
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}
