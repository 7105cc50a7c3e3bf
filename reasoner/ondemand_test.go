package reasoner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// onDemandData has two components that share no node and no predicate
// instance: a chain a-b-c-d with a block, and a chain x-y-z. Removing an
// edge of the first touches nothing of the second.
const onDemandData = `ex:a ex:edge ex:b . ex:b ex:edge ex:c . ex:c ex:edge ex:d . ex:a ex:blocked ex:d .
ex:x ex:edge ex:y . ex:y ex:edge ex:z .`

// TestRemoveOnDemandReadsTheNeighbourhood removes one edge through an
// engine that reads the store on demand and checks, by hand, the closure
// it leaves and that it read nothing of the other component.
func TestRemoveOnDemandReadsTheNeighbourhood(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, onDemandData)
	prog := mustProgram(t, retractBaseRules)
	if _, err := Run(ctx, ds, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(ctx, ds, prog, Options{LoadOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Remove(ctx, turtleQuads(t, ds, `ex:c ex:edge ex:d .`)); err != nil {
		t.Fatal(err)
	}
	// Left: path a-b a-c b-c, x-y x-z y-z, each open (the block is of
	// a-d, which no longer has a path).
	var want []string
	for _, pr := range [][2]string{{"a", "b"}, {"a", "c"}, {"b", "c"}, {"x", "y"}, {"x", "z"}, {"y", "z"}} {
		for _, p := range []string{"path", "open"} {
			want = append(want, kb.TermQuad{S: ex(pr[0]), P: ex(p), O: ex(pr[1])}.String())
		}
	}
	slices.Sort(want)
	if got := graphTriples(t, ds, kb.InferredGraph); !slices.Equal(got, want) {
		t.Errorf("inferred after remove:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkRecords(t, ds)
	reads, _, full, ok := eng.demandStats()
	if !ok || full || reads == 0 {
		t.Fatalf("demandStats: %d reads, full %v, on demand %v; want some reads of part of the store", reads, full, ok)
	}
	other := map[kb.ID]bool{}
	for _, n := range []string{"x", "y", "z"} {
		id, found, err := ds.Lookup(ctx, ex(n))
		if err != nil || !found {
			t.Fatalf("lookup %s: %v %v", n, found, err)
		}
		other[id] = true
	}
	for _, tb := range eng.ts.order {
		for r := range tb.s {
			if other[tb.s[r]] || other[tb.o[r]] {
				t.Errorf("the working memory holds a triple of the other component: %d %d %d", tb.s[r], tb.p, tb.o[r])
			}
		}
	}
}

// failingReads fails the store reads that a working memory loaded on
// demand makes (a subject or object bound, the graph not), once fail is
// set; it hides the store's QuadScanner, so that they go through Match.
type failingReads struct {
	kb.Dataset
	fail bool
}

var errInjected = errors.New("injected read failure")

func (f *failingReads) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	if f.fail && p.G == kb.Any && (p.S != kb.Any || p.O != kb.Any) {
		return failedIterator{}
	}
	return f.Dataset.Match(ctx, p)
}

type failedIterator struct{}

func (failedIterator) Next() bool    { return false }
func (failedIterator) Quad() kb.Quad { return kb.Quad{} }
func (failedIterator) Err() error    { return errInjected }
func (failedIterator) Close() error  { return nil }

// TestRemoveOnDemandFailedReadLeavesTheStore: when a read on demand
// fails, Remove returns the error and writes nothing (neither the
// removal nor any withdrawal).
func TestRemoveOnDemandFailedReadLeavesTheStore(t *testing.T) {
	ctx := context.Background()
	inner := loadTurtle(t, onDemandData)
	prog := mustProgram(t, retractBaseRules)
	if _, err := Run(ctx, inner, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	before := storeClosure(t, inner)
	beforeQuads, err := kb.Collect(inner.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	ds := &failingReads{Dataset: inner}
	eng, err := NewEngine(ctx, ds, prog, Options{LoadOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	ds.fail = true
	if _, err := eng.Remove(ctx, turtleQuads(t, inner, `ex:c ex:edge ex:d .`)); !errors.Is(err, errInjected) {
		t.Fatalf("Remove with failing reads: %v, want the read's error", err)
	}
	afterQuads, err := kb.Collect(inner.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(afterQuads) != len(beforeQuads) || !slices.Equal(storeClosure(t, inner), before) {
		t.Errorf("the store changed: %d quads before, %d after", len(beforeQuads), len(afterQuads))
	}
}
