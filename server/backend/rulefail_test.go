package backend

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// allQuads counts the store's quads, with the inferred graph's apart.
func allQuads(t *testing.T, ds kb.Dataset) (all, inferred int64) {
	t.Helper()
	ctx := context.Background()
	all, err := ds.Count(ctx, kb.Pattern{}, true)
	if err != nil {
		t.Fatal(err)
	}
	id, ok, err := ds.Lookup(ctx, kb.InferredGraph)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		if inferred, err = ds.Count(ctx, kb.Pattern{G: id}, true); err != nil {
			t.Fatal(err)
		}
	}
	return all, inferred
}

// TestFailedRuleRunLeavesNothing reproduces the hardening issue's item 18
// (a /rules/run stopped by a limit with 422 kept the triples of the rounds
// it completed in urn:x-perfkb:inferred) and item 9 (a cross-product rule
// on a small store passed --rules-memory by GBs). Each failing run answers
// 422 and leaves the store with exactly the quads it had; the same chain
// rule under a limit it fits in derives the whole closure (the chain of 40
// nodes has 40·39/2 = 780 pairs, 741 of them new). The Pebble-backed store
// reports its changes to the undo log (kb.ChangeReporter); the in-memory
// one is asked about each quad.
func TestFailedRuleRunLeavesNothing(t *testing.T) {
	stores := []struct {
		name string
		open func() kb.Dataset
	}{
		{"memory", func() kb.Dataset { return native.OpenMemory() }},
		{"pebble", func() kb.Dataset { return native.OpenPebbleMemory() }},
	}
	var chain, cross strings.Builder
	for i := range 39 {
		fmt.Fprintf(&chain, "<http://e/n%d> <http://e/next> <http://e/n%d> <http://e/g> .\n", i, i+1)
	}
	for i := range 1500 {
		fmt.Fprintf(&cross, "<http://e/s%d> <http://e/v> \"%d\" <http://e/g> .\n", i, i)
	}
	closure := `[t: (?a <http://e/next> ?b) (?b <http://e/next> ?c) -> (?a <http://e/next> ?c)]`
	pairs := `[pair: (?a <http://e/v> ?x) (?b <http://e/v> ?y) -> (?a <http://e/pair> ?b)]`
	tests := []struct {
		name, data, rules string
		opts              reasoner.Options
		code              int
		wantInferred      int64
	}{
		{"max derived after rounds", chain.String(), closure, reasoner.Options{MaxDerived: 500}, 422, 0},
		{"max iterations", chain.String(), closure, reasoner.Options{MaxIterations: 3}, 422, 0},
		{"rules memory, cross product", cross.String(), pairs, reasoner.Options{MemoryBudget: 16 << 20, NoDerivations: true}, 422, 0},
		{"fits", chain.String(), closure, reasoner.Options{NoDerivations: true}, 200, 741},
	}
	for _, st := range stores {
		for _, tc := range tests {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) { failedRun(t, st.open(), tc.data, tc.rules, tc.opts, tc.code, tc.wantInferred) })
		}
	}
}

// failedRun runs rules over data on ds through /rules/run and checks the
// answer's code, the inferred graph's size and, for a failed run, that
// the store holds what it held before.
func failedRun(t *testing.T, ds kb.Dataset, data, rules string, opts reasoner.Options, code int, wantInferred int64) {
	defer ds.Close()
	store := graphstore.New(ds)
	srv := server.New(server.Options{Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds, Options: opts},
		Graphs: store, Sites: store, Store: store, Token: token})
	if rec := post(t, srv, "/data?default", "application/n-quads", data, "Authorization", "Bearer "+token); rec.Code/100 != 2 {
		t.Fatalf("load: %d %s", rec.Code, rec.Body)
	}
	before, _ := allQuads(t, ds)
	rec := post(t, srv, "/rules/run", "text/plain", rules, "Authorization", "Bearer "+token)
	if rec.Code != code {
		t.Fatalf("/rules/run: %d %.400s, want %d", rec.Code, rec.Body, code)
	}
	after, inferred := allQuads(t, ds)
	if inferred != wantInferred {
		t.Errorf("the inferred graph holds %d quads, want %d", inferred, wantInferred)
	}
	if code != 200 && after != before {
		t.Errorf("the store holds %d quads after the failed run, %d before", after, before)
	}
}
