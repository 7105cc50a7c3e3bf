package native

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"

	"github.com/perfkb/perfkb/ontology"
)

// TestPredicateDistinct counts distinct subjects and objects per
// predicate on both stores, through the base and the added delta, and
// recomputes them once the store has grown.
func TestPredicateDistinct(t *testing.T) {
	ctx := context.Background()
	for _, open := range []struct {
		name string
		ds   func(t *testing.T) interface {
			kb.Dataset
			PredicateDistinct(kb.ID) (int64, int64, bool)
		}
	}{
		{"memory", func(t *testing.T) interface {
			kb.Dataset
			PredicateDistinct(kb.ID) (int64, int64, bool)
		} {
			return OpenMemory()
		}},
		{"disk", func(t *testing.T) interface {
			kb.Dataset
			PredicateDistinct(kb.ID) (int64, int64, bool)
		} {
			return openDisk(t)
		}},
	} {
		t.Run(open.name, func(t *testing.T) {
			s := open.ds(t)
			defer s.Close()
			// 40 subjects × 3 values of p1 (in two graphs: the pairs
			// count once), every subject with one p2 object "x".
			var tq []kb.TermQuad
			for i := range 40 {
				subj := kb.IRI(fmt.Sprintf("http://ex/s%d", i))
				for j := range 3 {
					for _, g := range []string{"http://ex/g1", "http://ex/g2"} {
						tq = append(tq, kb.TermQuad{S: subj, P: kb.IRI("http://ex/p1"), O: kb.Literal(fmt.Sprint(i*3+j), ontology.XSDInteger), G: kb.IRI(g)})
					}
				}
				tq = append(tq, kb.TermQuad{S: subj, P: kb.IRI("http://ex/p2"), O: kb.Literal("x", ontology.XSDString), G: kb.IRI("http://ex/g1")})
			}
			if _, err := rdfio.LoadQuads(ctx, s, sliceNext(tq), rdfio.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
			ids, err := s.Intern(ctx, []kb.Term{kb.IRI("http://ex/p1"), kb.IRI("http://ex/p2"), kb.IRI("http://ex/p3")})
			if err != nil {
				t.Fatal(err)
			}
			check := func(p kb.ID, subjects, objects int64, ok bool) {
				t.Helper()
				gs, gobj, gok := s.PredicateDistinct(p)
				if gs != subjects || gobj != objects || gok != ok {
					t.Fatalf("PredicateDistinct(%d) = %d, %d, %v; want %d, %d, %v", p, gs, gobj, gok, subjects, objects, ok)
				}
			}
			check(ids[0], 40, 120, true)
			check(ids[1], 40, 1, true)
			check(ids[2], 0, 0, false)
			// Grow the store past a tenth (and the slack) through Apply.
			more := internAll(t, s, genTermQuads(0, 2000))
			if err := s.Apply(ctx, kb.Delta{Add: more}); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := s.PredicateDistinct(more[0].P); !ok {
				t.Fatal("statistics were not recomputed after the store grew")
			}
			check(ids[0], 40, 120, true)
		})
	}
}

// TestPredicateDistinctBackground: with a background runner (a server),
// a query that finds the statistics stale gets the last ones at once and
// the recomputation runs through the runner, once however many queries
// ask meanwhile; after it the counts describe the grown store.
func TestPredicateDistinctBackground(t *testing.T) {
	ctx := context.Background()
	handed := make(chan func(), 8)
	SetBackgroundRunner(func(fn func()) { handed <- fn })
	defer SetBackgroundRunner(nil)
	for _, name := range []string{"memory", "disk"} {
		t.Run(name, func(t *testing.T) {
			var s interface {
				kb.Dataset
				PredicateDistinct(kb.ID) (int64, int64, bool)
			}
			if name == "memory" {
				s = OpenMemory()
			} else {
				s = openDisk(t)
			}
			defer s.Close()
			// 40 subjects with one p1 object each.
			var tq []kb.TermQuad
			for i := range 40 {
				tq = append(tq, kb.TermQuad{S: kb.IRI(fmt.Sprintf("http://ex/s%d", i)), P: kb.IRI("http://ex/p1"), O: kb.Literal(fmt.Sprint(i), ontology.XSDInteger), G: kb.IRI("http://ex/g1")})
			}
			if _, err := rdfio.LoadQuads(ctx, s, sliceNext(tq), rdfio.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
			ids, err := s.Intern(ctx, []kb.Term{kb.IRI("http://ex/p1")})
			if err != nil {
				t.Fatal(err)
			}
			// No statistics yet: computed on the caller's path.
			if subj, obj, ok := s.PredicateDistinct(ids[0]); subj != 40 || obj != 40 || !ok {
				t.Fatalf("PredicateDistinct(p1) = %d, %d, %v; want 40, 40, true", subj, obj, ok)
			}
			if len(handed) != 0 {
				t.Fatal("the first statistics were handed to the runner")
			}
			// Grow the store past a tenth: 2,000 quads of other predicates.
			more := internAll(t, s, genTermQuads(0, 2000))
			if err := s.Apply(ctx, kb.Delta{Add: more}); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, _, ok := s.PredicateDistinct(more[0].P); ok {
					t.Fatal("stale statistics know a predicate added since; they were recomputed on the caller's path")
				}
			}
			var fn func()
			select {
			case fn = <-handed:
			case <-time.After(10 * time.Second):
				t.Fatal("no recomputation handed to the runner")
			}
			time.Sleep(50 * time.Millisecond)
			if n := len(handed); n != 0 {
				t.Fatalf("%d more recomputations handed over while one was pending", n)
			}
			fn()
			if _, _, ok := s.PredicateDistinct(more[0].P); !ok {
				t.Fatal("statistics were not recomputed by the handed work")
			}
			if subj, obj, ok := s.PredicateDistinct(ids[0]); subj != 40 || obj != 40 || !ok {
				t.Fatalf("after the recomputation PredicateDistinct(p1) = %d, %d, %v; want 40, 40, true", subj, obj, ok)
			}
		})
	}
}
