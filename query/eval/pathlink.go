package eval

import (
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// A closure over one IRI (q+, q*, (^q)+ …) is walked one frontier node
// at a time, each a store lookup. Through pathCtx.eval every step built
// its own callbacks (the step, the link's, the scan's) and looked the
// predicate up again: two thirds of a path count's allocations. alpLink
// walks it with one callback for the whole walk. It visits the same nodes
// in the same order: the per-lookup triple deduplication of
// pathCtx.match only ever dropped a triple whose far end the walk had
// visited already.

// linkStep returns the IRI of p when p is one link, forward or inverse
// (^q), with whether it steps backwards.
func linkStep(p algebra.PathExpr) (kb.Term, bool, bool) {
	backward := false
	if x, ok := p.(*algebra.PathInverse); ok {
		p, backward = x.Path, true
	}
	link, ok := p.(*algebra.PathLink)
	if !ok {
		return kb.Term{}, false, false
	}
	return link.IRI, backward, true
}

// alpLink is alp for a path of one link through the store's QuadScanner;
// done is false when it does not apply (no scanner, or rows from a
// kb.QuadSource, whose matches the scan filters).
func (pc *pathCtx) alpLink(p algebra.PathExpr, start kb.ID, withZero, inverse bool, visit func(kb.ID) error) (done bool, err error) {
	iri, backward, ok := linkStep(p)
	if !ok || !alpLinkOn || pc.ex.scanner == nil || pc.ex.source != nil {
		return false, nil
	}
	inverse = inverse != backward
	alpLinkRuns.Add(1)
	visited := visitedMaps.Get().(map[kb.ID]bool)
	defer func() {
		if len(visited) <= maxPooledVisited {
			clear(visited)
			visitedMaps.Put(visited)
		}
	}()
	acct := pc.ex.account("property path * or + (visited nodes)")
	defer acct.done()
	const visitBytes = 8 + 1 + mapEntryExtra + 8
	if withZero {
		if ok, err := pc.inGraph(start); err != nil || !ok {
			return true, err
		}
		if err := acct.charge(visitBytes); err != nil {
			return true, err
		}
		visited[start] = true
		if err := visit(start); err != nil {
			return true, err
		}
	}
	pred, ok, err := pc.ex.dict.lookup(iri)
	if err != nil || !ok || isTemp(pred) {
		return true, err
	}
	var frontier, next []kb.ID
	var inner error
	step := func(q kb.Quad) bool {
		if inner = pc.ex.check(); inner != nil {
			return false
		}
		if pc.hidden[q.G] {
			return true // perfkb's bookkeeping is not part of the union default graph
		}
		y := q.O
		if inverse {
			y = q.S
		}
		if visited[y] {
			return true
		}
		if inner = acct.charge(visitBytes); inner != nil {
			return false
		}
		visited[y] = true
		next = append(next, y)
		inner = visit(y)
		return inner == nil
	}
	frontier = append(frontier, start)
	for len(frontier) > 0 {
		next = next[:0]
		for _, n := range frontier {
			if isTemp(n) {
				continue // a computed term the store does not hold
			}
			pat := kb.Pattern{S: n, P: pred}
			if inverse {
				pat = kb.Pattern{P: pred, O: n}
			}
			for _, g := range pc.graphs {
				if isTemp(g) {
					continue
				}
				pat.G = g
				err := pc.ex.scanner.ScanQuads(pc.ex.ctx, pat, step)
				if inner != nil {
					return true, inner
				}
				if err != nil {
					return true, err
				}
			}
		}
		frontier, next = next, frontier
	}
	return true, nil
}

// visitedMaps keeps the walks' visited sets: a count over many starts
// grew a fresh map per start (a fifth of a path count's CPU). Only sets
// of at most maxPooledVisited nodes go back, so that clearing one stays
// cheap.
var visitedMaps = sync.Pool{New: func() any { return map[kb.ID]bool{} }}

const maxPooledVisited = 4096

// alpLinkOn turns alpLink off (tests compare it with the general walk);
// alpLinkRuns counts its walks (tests).
var (
	alpLinkOn   = true
	alpLinkRuns atomic.Int64
)
