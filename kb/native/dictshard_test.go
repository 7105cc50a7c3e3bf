package native

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestInternConcurrently interns overlapping batches on many goroutines
// (as rdfio's bulk load does) while others resolve what is already
// interned, then checks by hand that every distinct term got exactly one
// ID, that the IDs are 1..N with no gap, and that each ID resolves to its
// term and each term looks up to its ID — on the on-disk store (fresh and
// reopened, where Intern takes the path for stores with terms on disk)
// and the in-memory one.
func TestInternConcurrently(t *testing.T) {
	ctx := context.Background()
	const workers, batches, perBatch, distinct = 16, 40, 400, 5000
	// Batches laid out as rdfio lays out quads (S, P, O, G per quad, a
	// subject repeated four back), drawn from distinct terms so that the
	// workers add the same new terms at the same time.
	batch := func(w, b int) []kb.Term {
		out := make([]kb.Term, 0, perBatch)
		for i := 0; len(out) < perBatch; i++ {
			n := (w*7919 + b*104729 + i*31) % distinct
			var term kb.Term
			switch n % 3 {
			case 0:
				term = kb.IRI(fmt.Sprintf("http://ex/s%d", n))
			case 1:
				term = kb.Literal(fmt.Sprintf("v%d", n), "")
			default:
				term = kb.LangLiteral(fmt.Sprintf("w%d", n), "en")
			}
			out = append(out, term, kb.IRI("http://ex/p"), term, kb.IRI("http://ex/g"))
		}
		return out[:perBatch]
	}
	type store interface {
		Intern(context.Context, []kb.Term) ([]kb.ID, error)
		Resolve(context.Context, kb.ID) (kb.Term, error)
		Lookup(context.Context, kb.Term) (kb.ID, bool, error)
	}
	dir := filepath.Join(t.TempDir(), "db")
	disk, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A store that holds terms on disk: its Interns take the other path.
	ids, err := disk.Intern(ctx, []kb.Term{kb.IRI("http://ex/first")})
	if err != nil {
		t.Fatal(err)
	}
	if err := disk.Apply(ctx, kb.Delta{Add: []kb.Quad{{S: ids[0], P: ids[0], O: ids[0], G: ids[0]}}}); err != nil {
		t.Fatal(err)
	}
	if err := disk.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	fresh, err := Open(ctx, filepath.Join(t.TempDir(), "db2"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for _, tc := range []struct {
		name string
		s    store
	}{
		{"disk", fresh},
		{"reopened", reopened},
		{"memory", OpenMemory()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first ID the test's terms can get: one past the
			// store's own.
			probe, err := tc.s.Intern(ctx, []kb.Term{kb.IRI("http://ex/probe")})
			if err != nil {
				t.Fatal(err)
			}
			first := probe[0] + 1
			got := make([][]kb.ID, workers*batches)
			var wg sync.WaitGroup
			errs := make(chan error, 2*workers)
			stop := make(chan struct{})
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for b := 0; b < batches; b++ {
						ids, err := tc.s.Intern(ctx, batch(w, b))
						if err != nil {
							errs <- err
							return
						}
						got[w*batches+b] = ids
					}
				}()
			}
			var readers sync.WaitGroup
			for r := 0; r < 4; r++ {
				readers.Add(1)
				go func() {
					defer readers.Done()
					for id := first; ; id++ {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := tc.s.Resolve(ctx, id); err != nil && err != kb.ErrUnknownID {
							errs <- err
							return
						}
						if id > first+distinct {
							id = first
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			readers.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			idOf := map[kb.Term]kb.ID{}
			termOf := map[kb.ID]kb.Term{}
			for w := 0; w < workers; w++ {
				for b := 0; b < batches; b++ {
					terms, ids := batch(w, b), got[w*batches+b]
					for i, term := range terms {
						id := ids[i]
						if prev, ok := idOf[term]; ok && prev != id {
							t.Fatalf("%v got IDs %d and %d", term, prev, id)
						}
						if prev, ok := termOf[id]; ok && prev != term {
							t.Fatalf("ID %d given to %v and %v", id, prev, term)
						}
						idOf[term], termOf[id] = id, term
					}
				}
			}
			// distinct values plus the shared predicate and graph.
			if len(idOf) != distinct+2 {
				t.Fatalf("%d distinct terms interned, want %d", len(idOf), distinct+2)
			}
			for id := first; id < first+kb.ID(len(idOf)); id++ {
				term, ok := termOf[id]
				if !ok {
					t.Fatalf("ID %d not given (IDs must be dense from %d)", id, first)
				}
				back, err := tc.s.Resolve(ctx, id)
				if err != nil || back != term {
					t.Fatalf("Resolve(%d) = %v, %v; want %v", id, back, err, term)
				}
				look, ok, err := tc.s.Lookup(ctx, term)
				if err != nil || !ok || look != id {
					t.Fatalf("Lookup(%v) = %d, %v, %v; want %d", term, look, ok, err, id)
				}
			}
		})
	}
}
