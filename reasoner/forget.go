package reasoner

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/kb"
)

// Size returns the number of triples in the working memory.
func (e *Engine) Size() int { return e.ts.size() }

// Adds returns the number of Add calls whose triples are in the working
// memory (those that added something new, less those Forget dropped).
func (e *Engine) Adds() int { return len(e.addGens) }

// Forget drops from the working memory every triple that entered it
// through an Add other than the last keep ones — asserted by that Add or
// derived during it — so that an engine fed a stream of independent data
// (sensor measurements) holds a bounded window instead of everything it
// was ever given. The store keeps the triples; only the rules stop seeing
// them: a rule joining a newer triple with a forgotten one does not fire,
// and a forgotten triple added again counts as new. What the engine read
// from the store when it was built, and what Run derived from that, is
// kept. It also empties the engine's term caches.
//
// Call it between Adds (the engine is not safe for concurrent use).
func (e *Engine) Forget(ctx context.Context, keep int) error {
	if err := e.needAll(); err != nil {
		return err
	}
	if keep < 0 {
		keep = 0
	}
	if len(e.addGens) <= keep {
		return nil
	}
	lo := e.addGens[0]
	hi := e.cur + 1 // forget everything Add brought in
	if keep > 0 {
		hi = e.addGens[len(e.addGens)-keep]
	}
	e.addGens = append(e.addGens[:0], e.addGens[len(e.addGens)-keep:]...)
	for _, t := range e.ts.order {
		t.forget(lo, hi)
	}
	// The caches of terms grow with every new term; start them again,
	// keeping the terms of the predicates (graphOf reads them) and the
	// engine's own IRIs.
	preds := make([]kb.ID, 0, len(e.ts.order))
	for _, t := range e.ts.order {
		preds = append(preds, t.p)
	}
	keepTerms := map[kb.ID]kb.Term{}
	for _, id := range append(preds, e.inferredG, e.derivG, e.derivP, e.internalG) {
		if t, ok := e.terms.get(id); ok {
			keepTerms[id] = t
		}
	}
	e.terms = newTermCache()
	e.ids = make(map[kb.Term]kb.ID, len(keepTerms))
	for id, t := range keepTerms {
		e.terms.set(id, t)
		e.ids[t] = id
	}
	for _, p := range preds {
		if _, err := e.term(ctx, p); err != nil {
			return fmt.Errorf("reasoner: forgetting: %w", err)
		}
	}
	// Plans hold IDs of the rules' constants; bind the rules again so the
	// caches know their terms.
	e.rules = e.rules[:0]
	return e.bind(ctx)
}

// forget drops the rows of generations lo ≤ g < hi and removed rows,
// keeping the order of the others (generation order).
func (t *table) forget(lo, hi uint32) {
	n := 0
	for r := range t.s {
		g := t.gen[r]
		if g == deletedGen || g >= lo && g < hi {
			continue
		}
		t.s[n], t.o[n], t.gen[n], t.asrt[n] = t.s[r], t.o[r], g, t.asrt[r]
		n++
	}
	if n == len(t.s) {
		return
	}
	if n < cap(t.s)/4 {
		// Give the memory back.
		t.s = append([]kb.ID(nil), t.s[:n]...)
		t.o = append([]kb.ID(nil), t.o[:n]...)
		t.gen = append([]uint32(nil), t.gen[:n]...)
		t.asrt = append([]uint16(nil), t.asrt[:n]...)
	} else {
		t.s, t.o, t.gen, t.asrt = t.s[:n], t.o[:n], t.gen[:n], t.asrt[:n]
	}
	t.set.reset(n)
	for r := range t.s {
		t.set.add(t.s[r], t.o[r], int32(r))
	}
	t.bySubj.Store(nil)
	t.byObj.Store(nil)
	t.live = n
	t.newest = n
	for r := n - 1; r >= 0 && t.gen[r] == t.newestGen; r-- {
		t.newest = r
	}
}
