package reasoner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// applyCounter counts the writes an engine makes.
type applyCounter struct {
	*native.MemStore
	applies int
	adds    []int
}

func (c *applyCounter) Apply(ctx context.Context, d kb.Delta) error {
	c.applies++
	c.adds = append(c.adds, len(d.Add))
	return c.MemStore.Apply(ctx, d)
}

const chainRules = `[ab: (?x rdf:type ex:A) -> (?x rdf:type ex:B)]
	[bc: (?x rdf:type ex:B) -> (?x rdf:type ex:C)]
	[cd: (?x rdf:type ex:C) -> (?x ex:done ex:yes)]`

// Engine.Add writes a batch and the triples of all its rounds in one
// Apply, so a reader sees the batch with its consequences or not at all.
func TestAddWritesABatchAndItsRoundsInOneApply(t *testing.T) {
	ctx := context.Background()
	ds := &applyCounter{MemStore: loadTurtle(t, `ex:seed rdf:type ex:Z .`)}
	prog := mustProgram(t, "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>.\n"+chainRules)
	eng, err := NewEngine(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds.applies, ds.adds = 0, nil
	quads := turtleQuads(t, ds, `ex:i1 rdf:type ex:A . ex:i2 rdf:type ex:A .`)
	sum, err := eng.Add(ctx, quads)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Derived != 6 || sum.Rounds < 3 {
		t.Errorf("summary %+v, want 6 derived over at least 3 rounds", sum)
	}
	// 2 asserted + 6 derived + 6 derivation quads (a batch per round,
	// its first and last subject) + the 3 rule labels they name.
	if ds.applies != 1 || ds.adds[0] != 17 {
		t.Errorf("Add made %d applies with %v quads, want 1 with 17", ds.applies, ds.adds)
	}
	got := strings.Join(graphTriples(t, ds, kb.InferredGraph), "\n")
	for _, want := range []string{
		"<http://example.org/i1> <http://example.org/done> <http://example.org/yes> .",
		"<http://example.org/i2> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/C> .",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("inferred graph lacks %s:\n%s", want, got)
		}
	}
	if n := len(derivationQuads(t, ds)); n != 6 {
		t.Errorf("%d derivation records, want 6", n)
	}

	// Beyond BatchSize quads the held writes go out in parts.
	ds2 := &applyCounter{MemStore: loadTurtle(t, `ex:seed rdf:type ex:Z .`)}
	eng2, err := NewEngine(ctx, ds2, prog, Options{BatchSize: 4, NoDerivations: true})
	if err != nil {
		t.Fatal(err)
	}
	ds2.applies, ds2.adds = 0, nil
	if _, err := eng2.Add(ctx, turtleQuads(t, ds2, `ex:i1 rdf:type ex:A . ex:i2 rdf:type ex:A .`)); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range ds2.adds {
		if n > 4+3 { // a round's delta is cut at BatchSize; held writes go out from BatchSize on
			t.Errorf("an apply of %d quads with BatchSize 4: %v", n, ds2.adds)
		}
		total += n
	}
	if ds2.applies < 2 || total != 8 {
		t.Errorf("applies %v (total %d), want several adding up to 8", ds2.adds, total)
	}
}

// A rule removing a triple that the same Add asserted finds it in the
// store: held writes go out before the removal.
func TestAddRemovesWhatTheSameBatchAdded(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:other ex:state ex:idle .`)
	prog := mustProgram(t, `[advance: (?j ex:state ex:pending), (?j ex:ready "yes") -> remove(0), (?j ex:state ex:running)]
		[log: (?j ex:state ex:running) -> (?j ex:seen ex:running)]`)
	eng, err := NewEngine(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := eng.Add(ctx, turtleQuads(t, ds, `ex:job ex:state ex:pending . ex:job ex:ready "yes" .`))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Removed != 1 || sum.Derived != 2 {
		t.Errorf("summary %+v, want 1 removed, 2 derived", sum)
	}
	for _, l := range graphTriples(t, ds, kb.DefaultGraph) {
		if strings.Contains(l, "pending") {
			t.Errorf("the pending state was not removed: %s", l)
		}
	}
	if got := strings.Join(graphTriples(t, ds, kb.InferredGraph), "\n"); !strings.Contains(got, "<http://example.org/seen>") {
		t.Errorf("the second round's triple is missing:\n%s", got)
	}
}

// When a limit stops an Add, the batch and what was derived before the
// limit are in the store, as the working memory says.
func TestAddWritesWhatWasDerivedBeforeALimit(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `ex:seed ex:next ex:x .`)
	eng, err := NewEngine(ctx, ds, mustProgram(t, `[grow: (?x ex:next ?y) makeTemp(?z) -> (?y ex:next ?z)]`), Options{MaxIterations: 5, NoDerivations: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(ctx); !errors.Is(err, ErrMaxIterations) {
		t.Fatalf("Run: %v, want ErrMaxIterations", err)
	}
	sum, err := eng.Add(ctx, turtleQuads(t, ds, `ex:a ex:next ex:b .`))
	if !errors.Is(err, ErrMaxIterations) {
		t.Fatalf("Add: %v, want ErrMaxIterations", err)
	}
	if got := graphTriples(t, ds, kb.DefaultGraph); !strings.Contains(strings.Join(got, "\n"), "<http://example.org/a> <http://example.org/next> <http://example.org/b>") {
		t.Errorf("the added triple is not stored:\n%s", strings.Join(got, "\n"))
	}
	if n := int64(len(graphTriples(t, ds, kb.InferredGraph))); n != sum.Derived {
		t.Errorf("%d inferred triples stored, the engine derived %d", n, sum.Derived)
	}
}
