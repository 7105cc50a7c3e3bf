package native

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// TestKindCountAcrossDelta: an object-kind count of a store whose mapped
// base has a write delta over it (adds, removals, a triple gaining and
// losing graphs) equals a count over the same quads kept as a plain set
// of terms, for every kind, graph and hidden set, before and after a
// reopen replays the delta log.
func TestKindCountAcrossDelta(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	g1, g2, dg := kb.IRI("http://ex/g1"), kb.IRI("http://ex/g2"), kb.DefaultGraph
	p := kb.IRI("http://ex/p")
	subj := func(i int) kb.Term { return kb.IRI(fmt.Sprintf("http://ex/s%d", i)) }
	obj := func(i int) kb.Term {
		switch i % 3 {
		case 0:
			return kb.Literal(fmt.Sprint(i), ontology.XSDInteger)
		case 1:
			return kb.IRI(fmt.Sprintf("http://ex/o%d", i))
		}
		return kb.Blank(fmt.Sprintf("b%d", i))
	}
	model := map[kb.TermQuad]bool{}
	var base []kb.TermQuad
	for i := range 60 {
		q := kb.TermQuad{S: subj(i), P: p, O: obj(i), G: []kb.Term{dg, g1, g2}[i%3]}
		base = append(base, q)
		if i%4 == 0 { // the same triple in a second graph
			q.G = g1
			if i%3 == 1 {
				q.G = g2
			}
			base = append(base, q)
		}
	}
	for _, q := range base {
		model[q] = true
	}
	bulkTerms(t, s, base)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	ids := func(tq []kb.TermQuad) []kb.Quad { return internAll(t, s, tq) }
	g1ID := ids([]kb.TermQuad{{S: g1, P: p, O: g1, G: g1}})[0].S
	kinds := []kb.TermKind{kb.KindIRI, kb.KindLiteral, kb.KindBlank}
	graphs := []struct {
		g      kb.Term
		any    bool
		hidden bool
	}{{any: true}, {any: true, hidden: true}, {g: dg}, {g: g1}, {g: g2}}
	check := func(step string) {
		t.Helper()
		for _, kind := range kinds {
			for _, gc := range graphs {
				// The oracle: distinct triples of the model set.
				triples := map[[3]kb.Term]bool{}
				for q := range model {
					if !model[q] || q.O.Kind != kind {
						continue
					}
					if (!gc.any && q.G != gc.g) || (gc.hidden && q.G == g1) {
						continue
					}
					triples[[3]kb.Term{q.S, q.P, q.O}] = true
				}
				g, hidden := kb.Any, []kb.ID(nil)
				if !gc.any {
					g = ids([]kb.TermQuad{{S: gc.g, P: p, O: gc.g, G: gc.g}})[0].S
				}
				if gc.hidden {
					hidden = []kb.ID{g1ID}
				}
				n, ok, err := s.ObjectKindCount(kind, g, hidden)
				if err != nil || !ok || n != int64(len(triples)) {
					t.Fatalf("%s: ObjectKindCount(%v, %v, hidden %v) = %d, %v, %v; want %d",
						step, kind, gc.g, gc.hidden, n, ok, err, len(triples))
				}
			}
		}
	}
	check("base")
	var add, del []kb.TermQuad
	for i := 60; i < 75; i++ { // new triples
		add = append(add, kb.TermQuad{S: subj(i), P: p, O: obj(i), G: []kb.Term{dg, g1, g2}[i%3]})
	}
	for i := 1; i < 60; i += 5 { // base triples gain a graph
		add = append(add, kb.TermQuad{S: subj(i), P: p, O: obj(i), G: g2})
	}
	for i := 0; i < 60; i += 4 { // one copy of a triple held twice
		del = append(del, kb.TermQuad{S: subj(i), P: p, O: obj(i), G: []kb.Term{dg, g1, g2}[i%3]})
	}
	for i := 2; i < 60; i += 7 { // whole triples
		del = append(del, kb.TermQuad{S: subj(i), P: p, O: obj(i), G: []kb.Term{dg, g1, g2}[i%3]})
	}
	del = append(del, kb.TermQuad{S: subj(3), P: p, O: obj(3), G: g2}) // not held
	for _, q := range del {
		delete(model, q)
	}
	for _, q := range add {
		model[q] = true
	}
	if err := s.Apply(ctx, kb.Delta{Remove: ids(del), Add: ids(add)}); err != nil {
		t.Fatal(err)
	}
	check("after a write")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if !sideMapped(s) || len(s.readSide().adds[ospgOrder]) == 0 {
		t.Fatal("reopened store is not its mapped base under a write delta")
	}
	check("reopened")
}
