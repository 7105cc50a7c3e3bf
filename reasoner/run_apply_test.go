package reasoner

import (
	"context"
	"testing"
)

// Run holds what its rounds derive and writes it with one Apply at the
// end, so a store that writes an Apply atomically (the native store: one
// batch or one ingest) has all of a run or none of it after a crash; with
// BatchSize set, the writes go out in parts of about that size.
func TestRunWritesItsRoundsInOneApply(t *testing.T) {
	ctx := context.Background()
	prog := mustProgram(t, "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>.\n"+chainRules)
	const data = `ex:i1 rdf:type ex:A . ex:i2 rdf:type ex:A .`
	for _, tc := range []struct {
		name      string
		batchSize int
	}{{"default", 0}, {"BatchSize 4", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &applyCounter{MemStore: loadTurtle(t, data)}
			sum, err := Run(ctx, ds, prog, Options{BatchSize: tc.batchSize})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Derived != 6 || sum.Rounds < 3 {
				t.Fatalf("summary %+v, want 6 derived over at least 3 rounds", sum)
			}
			// 6 derived + 6 derivation quads (a batch per round, its
			// first and last subject) + the 3 rule labels they name;
			// then, in an Apply of its own, the one fixpoint marker.
			if n := len(ds.adds); n == 0 || ds.adds[n-1] != 1 {
				t.Fatalf("applies %v: want the last to add only the fixpoint marker", ds.adds)
			}
			if _, ms, err := fixpointMarkers(ctx, ds); err != nil || len(ms) != 1 {
				t.Fatalf("fixpoint markers %v (%v), want 1", ms, err)
			}
			runAdds := ds.adds[:len(ds.adds)-1]
			total := 0
			for _, n := range runAdds {
				total += n
			}
			if total != 15 {
				t.Errorf("applies %v add %d quads, want 15", runAdds, total)
			}
			switch {
			case tc.batchSize == 0 && len(runAdds) != 1:
				t.Errorf("Run made %d applies (%v), want 1", len(runAdds), runAdds)
			case tc.batchSize > 0 && len(runAdds) < 2:
				t.Errorf("Run with BatchSize %d made %d applies (%v), want several", tc.batchSize, len(runAdds), runAdds)
			}
			if n := len(derivationQuads(t, ds)); n != 6 {
				t.Errorf("%d derivation records, want 6", n)
			}
		})
	}
}
