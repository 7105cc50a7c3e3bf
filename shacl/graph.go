package shacl

import (
	"context"
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// virtualBase starts the IDs given to terms a dataset has never seen
// (a shape's sh:targetNode or sh:hasValue that no stored quad mentions):
// such a term matches nothing, so it needs no dictionary entry and
// validation never writes to the store.
const virtualBase kb.ID = 1 << 62

// view reads the quads of some graphs of a Dataset by term ID. Store
// errors are kept in err (the first one) so that the readers can stay
// simple; callers check err when they finish. A view is used by one
// goroutine; views made by fork share the virtual IDs.
type view struct {
	ctx    context.Context
	ds     kb.Dataset
	graphs []kb.ID // nil: every graph
	// scan and table are ds's allocation-free fast paths, when it has
	// them: validation makes a lookup or two per value, and an iterator
	// and a cached copy of each term cost more than the lookup.
	scan  kb.QuadScanner
	table kb.TermTable
	terms map[kb.ID]kb.Term
	ids   map[kb.Term]kb.ID
	virt  *virtuals
	err   error
}

// virtuals are the IDs given to terms the dataset does not hold, shared by
// the views of one validation.
type virtuals struct {
	mu    sync.Mutex
	ids   map[kb.Term]kb.ID
	terms map[kb.ID]kb.Term
	next  kb.ID
}

func newView(ctx context.Context, ds kb.Dataset, graphs []kb.Term) (*view, error) {
	v := &view{ctx: ctx, ds: ds, terms: map[kb.ID]kb.Term{}, ids: map[kb.Term]kb.ID{},
		virt: &virtuals{ids: map[kb.Term]kb.ID{}, terms: map[kb.ID]kb.Term{}, next: virtualBase}}
	v.scan, _ = ds.(kb.QuadScanner)
	v.table, _ = ds.(kb.TermTable)
	if len(graphs) == 0 {
		return v, nil
	}
	v.graphs = []kb.ID{}
	for _, g := range graphs {
		id, ok, err := ds.Lookup(ctx, g)
		if err != nil {
			return nil, err
		}
		if ok {
			v.graphs = append(v.graphs, id)
		}
	}
	return v, nil
}

// fork returns a view of the same graphs for another goroutine.
func (v *view) fork() *view {
	return &view{ctx: v.ctx, ds: v.ds, graphs: v.graphs, scan: v.scan, table: v.table,
		terms: map[kb.ID]kb.Term{}, ids: map[kb.Term]kb.ID{}, virt: v.virt}
}

func (v *view) fail(err error) {
	if v.err == nil && err != nil {
		v.err = err
	}
}

// each calls fn for every quad matching p in the view's graphs until fn
// returns false.
func (v *view) each(p kb.Pattern, fn func(kb.Quad) bool) {
	if p.S >= virtualBase || p.P >= virtualBase || p.O >= virtualBase {
		return
	}
	run := func(p kb.Pattern) bool {
		if v.scan != nil {
			more := true
			v.fail(v.scan.ScanQuads(v.ctx, p, func(q kb.Quad) bool {
				more = fn(q)
				return more
			}))
			return more
		}
		it := v.ds.Match(v.ctx, p)
		defer it.Close()
		for it.Next() {
			if !fn(it.Quad()) {
				return false
			}
		}
		v.fail(it.Err())
		return true
	}
	if v.graphs == nil {
		p.G = kb.Any
		run(p)
		return
	}
	for _, g := range v.graphs {
		p.G = g
		if !run(p) {
			return
		}
	}
}

// single reports whether the view reads at most one graph, where no
// statement can come twice.
func (v *view) single() bool { return v.graphs != nil && len(v.graphs) <= 1 }

// collect gathers one position of the quads matching p, each ID once.
func (v *view) collect(p kb.Pattern, pick func(kb.Quad) kb.ID) []kb.ID {
	var out []kb.ID
	var seen map[kb.ID]bool
	dedupe := !v.single()
	v.each(p, func(q kb.Quad) bool {
		id := pick(q)
		if dedupe {
			// a short list is scanned; a long one gets a set
			if seen == nil && len(out) < 16 {
				if contains(out, id) {
					return true
				}
			} else {
				if seen == nil {
					seen = make(map[kb.ID]bool, 2*len(out))
					for _, o := range out {
						seen[o] = true
					}
				}
				if seen[id] {
					return true
				}
				seen[id] = true
			}
		}
		out = append(out, id)
		return true
	})
	return out
}

func (v *view) objects(s, p kb.ID) []kb.ID {
	return v.collect(kb.Pattern{S: s, P: p}, func(q kb.Quad) kb.ID { return q.O })
}

func (v *view) subjects(p, o kb.ID) []kb.ID {
	return v.collect(kb.Pattern{P: p, O: o}, func(q kb.Quad) kb.ID { return q.S })
}

func (v *view) object(s, p kb.ID) (kb.ID, bool) {
	var out kb.ID
	v.each(kb.Pattern{S: s, P: p}, func(q kb.Quad) bool { out = q.O; return false })
	return out, out != 0
}

func (v *view) has(s, p, o kb.ID) bool {
	found := false
	v.each(kb.Pattern{S: s, P: p, O: o}, func(kb.Quad) bool { found = true; return false })
	return found
}

// term returns the term of an ID.
func (v *view) term(id kb.ID) kb.Term {
	if v.table != nil {
		if t, ok := v.table.TermOf(id); ok {
			return t
		}
	}
	if t, ok := v.terms[id]; ok {
		return t
	}
	if id >= virtualBase {
		v.virt.mu.Lock()
		t := v.virt.terms[id]
		v.virt.mu.Unlock()
		return t
	}
	t, err := v.ds.Resolve(v.ctx, id)
	if err != nil {
		v.fail(err)
		return kb.Term{}
	}
	v.terms[id] = t
	return t
}

// id returns the ID of a term: the store's, or a virtual one for a term
// the store has never seen.
func (v *view) id(t kb.Term) kb.ID {
	if id, ok := v.ids[t]; ok {
		return id
	}
	id, found, err := v.ds.Lookup(v.ctx, t)
	v.fail(err)
	if found {
		v.terms[id] = t
	} else {
		v.virt.mu.Lock()
		vid, ok := v.virt.ids[t]
		if !ok {
			v.virt.next++
			vid = v.virt.next
			v.virt.ids[t] = vid
			v.virt.terms[vid] = t
		}
		v.virt.mu.Unlock()
		id = vid
	}
	v.ids[t] = id
	return id
}

// iri is id for an IRI.
func (v *view) iri(s string) kb.ID { return v.id(kb.IRI(s)) }

// list reads an RDF list from its head, stopping at rdf:nil, a node that
// is not a well-formed cell, or a cycle.
func (v *view) list(head kb.ID) []kb.ID {
	first, rest, nilID := v.iri(rdfFirst), v.iri(rdfRest), v.iri(rdfNil)
	var out []kb.ID
	seen := map[kb.ID]bool{}
	for head != nilID && head != 0 && !seen[head] {
		seen[head] = true
		f, ok := v.object(head, first)
		if !ok {
			break
		}
		out = append(out, f)
		head, _ = v.object(head, rest)
	}
	return out
}
