package native

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"

	"github.com/perfkb/perfkb/ontology"
)

// internAll interns the terms of tq and returns their quads.
func internAll(t testing.TB, s kb.Dataset, tq []kb.TermQuad) []kb.Quad {
	t.Helper()
	ids, err := kb.InternQuads(context.Background(), s, tq)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestGroupCommitConcurrentAppliers runs many concurrent Apply calls (adds,
// removals of earlier adds, and refused deltas) and checks the contents and
// counts, before and after a reopen: every acknowledged write is stored,
// every refused one is not.
func TestGroupCommitConcurrentAppliers(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	for _, budget := range []int64{0, -1} { // read side on, then Pebble reads
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			dir := filepath.Join(dir, fmt.Sprint(budget))
			s, err := Open(ctx, dir, Options{MemoryBudget: budget})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { s.Close() }()
			const workers, rounds, per = 24, 12, 10
			var mu sync.Mutex
			want := map[kb.Quad]bool{}
			var wg sync.WaitGroup
			errs := make(chan error, workers*rounds)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						tq := make([]kb.TermQuad, per)
						for j := range tq {
							tq[j] = kb.TermQuad{
								S: kb.IRI(fmt.Sprintf("http://ex/w%d/r%d/s%d", w, r, j)),
								P: kb.IRI(fmt.Sprintf("http://ex/p%d", j%3)),
								O: kb.Literal(fmt.Sprint(w*1000+r*10+j), ontology.XSDInteger),
								G: kb.IRI(fmt.Sprintf("http://ex/g%d", w%2)),
							}
						}
						ids, err := kb.InternQuads(ctx, s, tq)
						if err != nil {
							errs <- err
							return
						}
						if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
							errs <- err
							return
						}
						mu.Lock()
						for _, q := range ids {
							want[q] = true
						}
						mu.Unlock()
						if r%3 == 2 {
							// Remove half of this round's quads again.
							if err := s.Apply(ctx, kb.Delta{Remove: ids[:per/2]}); err != nil {
								errs <- err
								return
							}
							mu.Lock()
							for _, q := range ids[:per/2] {
								delete(want, q)
							}
							mu.Unlock()
						}
						if r%4 == 1 {
							// Refused: an ID never issued. It must fail alone.
							bad := append(slices.Clone(ids[:1]), kb.Quad{S: 1 << 40, P: ids[0].P, O: ids[0].O, G: ids[0].G})
							if err := s.Apply(ctx, kb.Delta{Add: bad}); !errors.Is(err, kb.ErrUnknownID) {
								errs <- fmt.Errorf("bad delta: got %v, want ErrUnknownID", err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			check := func(s *Store, when string) {
				got := collect(t, s, kb.Pattern{})
				if len(got) != len(want) {
					t.Fatalf("%s: %d quads stored, want %d", when, len(got), len(want))
				}
				for _, q := range got {
					if !want[q] {
						t.Fatalf("%s: unexpected quad %v", when, q)
					}
				}
				st, err := s.Stats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				byP := map[kb.ID]int64{}
				for q := range want {
					byP[q.P]++
				}
				if st.Quads != int64(len(want)) {
					t.Fatalf("%s: Stats.Quads %d, want %d", when, st.Quads, len(want))
				}
				for p, n := range byP {
					if st.ByPredicate[p] != n {
						t.Fatalf("%s: predicate %d: %d quads counted, want %d", when, p, st.ByPredicate[p], n)
					}
					if c, err := s.Count(ctx, kb.Pattern{P: p}, true); err != nil || c != n {
						t.Fatalf("%s: Count(P=%d) = %d %v, want %d", when, p, c, err, n)
					}
				}
			}
			check(s, "open")
			t.Logf("%d Apply batches committed for %d acknowledged writes", s.commits.Load(), workers*rounds+workers*(rounds/3))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = Open(ctx, dir, Options{MemoryBudget: budget}); err != nil {
				t.Fatal(err)
			}
			check(s, "reopened")
		})
	}
}

// TestGroupCommitOneBatch queues Apply calls while a writer holds the
// store and checks that they commit as one batch, each delta seeing the
// ones before it (an add, then its removal, then a re-add), and that a
// refused delta in the group fails alone.
func TestGroupCommitOneBatch(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t)
	defer s.Close()
	quads := internAll(t, s, genTermQuads(0, 4))
	s.wmu.Lock() // as a bulk commit would
	deltas := []kb.Delta{
		{Add: quads[:2]},
		{Remove: quads[:1]},
		{Add: []kb.Quad{{S: 1 << 40, P: quads[0].P, O: quads[0].O, G: quads[0].G}}}, // refused
		{Add: quads[2:3]},
		{Remove: quads[2:3], Add: quads[3:]},
		{Add: quads[2:3]},
	}
	errs := make([]error, len(deltas))
	var wg sync.WaitGroup
	for i, d := range deltas {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.Apply(ctx, d) }()
		// Queue in order: wait until this one is queued (the first
		// caller leads and waits for wmu with its delta queued).
		for deadline := time.Now().Add(10 * time.Second); ; {
			s.gmu.Lock()
			n := len(s.queue)
			s.gmu.Unlock()
			if n == i+1 {
				break
			}
			if time.Now().After(deadline) {
				s.wmu.Unlock()
				t.Fatalf("delta %d never queued (%d queued)", i, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	before := s.commits.Load()
	s.wmu.Unlock()
	wg.Wait()
	for i, err := range errs {
		if i == 2 {
			if !errors.Is(err, kb.ErrUnknownID) {
				t.Fatalf("refused delta: %v, want ErrUnknownID", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("delta %d: %v", i, err)
		}
	}
	if n := s.commits.Load() - before; n != 1 {
		t.Fatalf("%d commits for one group, want 1", n)
	}
	got := collect(t, s, kb.Pattern{})
	want := []kb.Quad{quads[1], quads[2], quads[3]}
	slices.SortFunc(want, cmpQuad)
	if !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
}

// TestApplyQueuedHonoursContext queues Apply calls behind a held writer
// lock (as behind a long commit) and ends the contexts of some of them:
// each of those must return its context's error while the lock is still
// held, leave nothing stored, and not stop the others (nor a write queued
// after it) from committing once the lock is free.
func TestApplyQueuedHonoursContext(t *testing.T) {
	cases := []struct {
		name   string
		cancel []int // which of the three queued requests end their context
	}{
		{"leader", []int{0}},
		{"middle", []int{1}},
		{"last", []int{2}},
		{"leader and last", []int{0, 2}},
		{"all", []int{0, 1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := openDisk(t)
			defer s.Close()
			quads := internAll(t, s, genTermQuads(0, 4))
			s.wmu.Lock()
			held := true
			defer func() {
				if held {
					s.wmu.Unlock()
				}
			}()
			const n = 3
			cancels := make([]context.CancelFunc, n)
			results := make([]chan error, n)
			queued := func(want int) {
				t.Helper()
				for deadline := time.Now().Add(10 * time.Second); ; {
					s.gmu.Lock()
					got := len(s.queue)
					s.gmu.Unlock()
					if got == want {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("%d requests queued, want %d", got, want)
					}
					time.Sleep(time.Millisecond)
				}
			}
			for i := range n {
				ctx, cancel := context.WithCancel(context.Background())
				cancels[i] = cancel
				results[i] = make(chan error, 1)
				go func() { results[i] <- s.Apply(ctx, kb.Delta{Add: quads[i : i+1]}) }()
				queued(i + 1)
			}
			gone := map[int]bool{}
			for _, i := range tc.cancel {
				cancels[i]()
				gone[i] = true
				select {
				case err := <-results[i]:
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("request %d: %v, want context.Canceled", i, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("request %d still waiting 10 s after its context ended", i)
				}
			}
			queued(n - len(tc.cancel))
			last := make(chan error, 1)
			go func() { last <- s.Apply(context.Background(), kb.Delta{Add: quads[n:]}) }()
			queued(n - len(tc.cancel) + 1)
			held = false
			s.wmu.Unlock()
			var want []kb.Quad
			for i := range n {
				if gone[i] {
					continue
				}
				if err := <-results[i]; err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				want = append(want, quads[i])
			}
			if err := <-last; err != nil {
				t.Fatalf("request queued after the cancels: %v", err)
			}
			want = append(want, quads[n:]...)
			for _, c := range cancels {
				c()
			}
			slices.SortFunc(want, cmpQuad)
			if got := collect(t, s, kb.Pattern{}); !slices.Equal(got, want) {
				t.Fatalf("stored %v, want %v", got, want)
			}
			// The lead was handed on or given up: a later write commits.
			if err := s.Apply(context.Background(), kb.Delta{Remove: quads[n:]}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
