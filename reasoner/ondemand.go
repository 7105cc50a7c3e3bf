package reasoner

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/kb"
)

// A working memory loaded on demand (Options.LoadOnDemand) starts empty
// and reads from the store, before each lookup that a join, a gate, a
// noValue test or a head check makes, every quad of the key looked up:
// a predicate and subject, a predicate and object, a whole predicate, or,
// for a pattern whose predicate is a variable, a subject or an object
// over all predicates. A key read once is not read again (demand), and a
// triple read once is never read again (table.stored), so that what the
// engine removed from the working memory, or changed the asserted count
// of, stays as the engine left it while the store still holds the quads
// it has not written yet. A triple is read with all its quads at once
// (the key covers all graphs), so its count of asserted graphs is
// complete, as the full load makes it.
//
// A retraction that reads this way touches the neighbourhood of the
// deleted triples and what they supported, through the store's sorted
// permutations, instead of every graph: the CLI's drop-graph --retract
// on a 300k-quad store reads a few thousand triples. It runs on one
// worker, since a read adds rows to the tables the joins read. Run, Add,
// Change, Forget and RunRetract read the rest of the store first and
// then work as over a full load.

// demand records which keys of the store the working memory holds all
// quads of.
type demand struct {
	ctx  context.Context
	full bool
	// byP: whole predicates; ps, po: a predicate's subject, object; s, o:
	// a subject or object under every predicate.
	byP    map[kb.ID]bool
	ps, po map[[2]kb.ID]bool
	s, o   map[kb.ID]bool
	// err is the first failed read: the working memory is then
	// incomplete, and what the engine does with it is not written.
	err error
	// reads counts the store reads, for tests and benchmarks.
	reads int
}

func newDemand(ctx context.Context) *demand {
	return &demand{ctx: context.WithoutCancel(ctx), byP: map[kb.ID]bool{}, ps: map[[2]kb.ID]bool{},
		po: map[[2]kb.ID]bool{}, s: map[kb.ID]bool{}, o: map[kb.ID]bool{}}
}

// covered reports whether every quad matching (s, p, o) (kb.Any: any
// value) is in the working memory or was read into it.
func (d *demand) covered(p, s, o kb.ID) bool {
	// The most specific key first; the maps that are empty (most of
	// them, most of the time) are not probed.
	switch {
	case d.full:
		return true
	case p != kb.Any && s != kb.Any && d.ps[[2]kb.ID{p, s}]:
		return true
	case p != kb.Any && o != kb.Any && len(d.po) > 0 && d.po[[2]kb.ID{p, o}]:
		return true
	case s != kb.Any && len(d.s) > 0 && d.s[s], o != kb.Any && len(d.o) > 0 && d.o[o]:
		return true
	}
	return p != kb.Any && len(d.byP) > 0 && d.byP[p]
}

// need reads into the working memory the store's quads of the key that
// covers (s, p, o), when a working memory loaded on demand does not hold
// them yet. IDs the engine made (local ones, transientID) are in no
// store quad and read nothing.
func (e *Engine) need(p, s, o kb.ID) {
	d := e.demand
	if d == nil || d.err != nil || d.covered(p, s, o) {
		return
	}
	for _, id := range [3]kb.ID{p, s, o} {
		if id != kb.Any && (id == transientID || isLocal(id)) {
			return
		}
	}
	var pat kb.Pattern
	switch {
	case p != kb.Any && s != kb.Any:
		pat = kb.Pattern{S: s, P: p}
		d.ps[[2]kb.ID{p, s}] = true
	case p != kb.Any && o != kb.Any:
		pat = kb.Pattern{P: p, O: o}
		d.po[[2]kb.ID{p, o}] = true
	case p != kb.Any:
		pat = kb.Pattern{P: p}
		d.byP[p] = true
	case s != kb.Any:
		pat = kb.Pattern{S: s}
		d.s[s] = true
	case o != kb.Any:
		pat = kb.Pattern{O: o}
		d.o[o] = true
	default:
		d.full = true
	}
	if err := e.readKey(pat); err != nil {
		d.err = fmt.Errorf("reasoner: reading the store: %w", err)
	}
}

// needAll reads the rest of the store into a working memory loaded on
// demand, for the operations that join over all of it.
func (e *Engine) needAll() error {
	if e.demand == nil {
		return nil
	}
	e.need(kb.Any, kb.Any, kb.Any)
	return e.demand.err
}

// readKey adds to the working memory the triples of the quads matching
// pat that it has not read before, each with its number of asserted
// graphs.
func (e *Engine) readKey(pat kb.Pattern) error {
	d := e.demand
	d.reads++
	var cur [3]kb.ID
	var asrt uint16
	have := false
	flush := func() {
		if have {
			e.readTriple(cur, asrt)
		}
	}
	visit := func(q kb.Quad) bool {
		if !e.reads(q.G) {
			return true
		}
		tr := [3]kb.ID{q.S, q.P, q.O}
		if !have || tr != cur {
			flush()
			cur, asrt, have = tr, 0, true
		}
		if !e.isDerivedGraph(q.G) && asrt < ^uint16(0) {
			asrt++
		}
		return true
	}
	if gl, ok := e.ds.(kb.GraphLast); !ok || !gl.GraphLast() {
		// The quads of a triple may come apart: gathered first.
		var order [][3]kb.ID
		got := map[[3]kb.ID]uint16{}
		visit = func(q kb.Quad) bool {
			if !e.reads(q.G) {
				return true
			}
			tr := [3]kb.ID{q.S, q.P, q.O}
			n, ok := got[tr]
			if !ok {
				order = append(order, tr)
			}
			if !e.isDerivedGraph(q.G) && n < ^uint16(0) {
				n++
			}
			got[tr] = n
			return true
		}
		defer func() {
			for _, tr := range order {
				e.readTriple(tr, got[tr])
			}
		}()
	}
	if qs, ok := e.ds.(kb.QuadScanner); ok {
		if err := qs.ScanQuads(d.ctx, pat, visit); err != nil {
			return err
		}
	} else {
		it := e.ds.Match(d.ctx, pat)
		for it.Next() {
			visit(it.Quad())
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return err
		}
	}
	flush()
	return nil
}

// readTriple adds triple tr, held by asrt asserted graphs of the store,
// to the working memory unless it was read before.
func (e *Engine) readTriple(tr [3]kb.ID, asrt uint16) {
	t := e.ts.table(tr[1], true)
	if t.stored == nil {
		t.stored = map[[2]kb.ID]struct{}{}
	}
	k := [2]kb.ID{tr[0], tr[2]}
	if _, ok := t.stored[k]; ok {
		return
	}
	t.stored[k] = struct{}{}
	r, fresh := t.insertRow(tr[0], tr[2], 0)
	if fresh {
		e.summary.Loaded++
	}
	t.asrt[r] = uint16(min(int(t.asrt[r])+int(asrt), int(^uint16(0))))
}

// estimateStored is estimate for a working memory loaded on demand,
// from the store's counts (cheap estimates: counters or one seek) instead
// of the tables, which hold only what was read so far.
func (e *Engine) estimateStored(ps [3]position, bound map[int]bool) float64 {
	isConst := func(p position) bool { return p.mode == modeConst }
	isBound := func(p position) bool { return p.mode != modeConst && bound[p.v] }
	id := func(p position) kb.ID {
		if isConst(p) {
			return p.id
		}
		return kb.Any
	}
	s, p, o := ps[0], ps[1], ps[2]
	ctx := e.demand.ctx
	if !isConst(p) {
		n, err := e.ds.Count(ctx, kb.Pattern{}, false)
		if err != nil {
			return 1
		}
		f := float64(n)
		if isConst(s) || isBound(s) || isConst(o) || isBound(o) {
			f /= 100
		}
		if isBound(p) {
			f /= 10
		}
		return f + 1
	}
	n, err := e.ds.Count(ctx, kb.Pattern{S: id(s), P: p.id, O: id(o)}, false)
	if err != nil || n == 0 {
		return 0
	}
	f := float64(n)
	sKnown, oKnown := isConst(s) || isBound(s), isConst(o) || isBound(o)
	switch {
	case sKnown && oKnown:
		return 0.5
	case isConst(s), isConst(o), !sKnown && !oKnown:
		return f
	}
	if st, ok := e.ds.(kb.PredicateStats); ok {
		if subjects, objects, ok := st.PredicateDistinct(p.id); ok {
			if isBound(s) {
				return f / float64(max(1, subjects))
			}
			return f / float64(max(1, objects))
		}
	}
	return f / 100
}

// demandStats reports, for a working memory loaded on demand, how many
// store reads the engine made and how many triples it holds; ok is false
// for an engine that loaded the whole store.
func (e *Engine) demandStats() (reads int, triples int, full, ok bool) {
	if e.demand == nil {
		return 0, 0, false, false
	}
	return e.demand.reads, e.ts.size(), e.demand.full, true
}
