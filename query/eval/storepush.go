package eval

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// Requests to stores whose lookups are round trips to a server
// (kb.RoundTripLookups, kb.ClosureMatcher: kb/pg).

// roundTrips reports whether each lookup the evaluator sends the store is
// a request to a server.
func (ex *executor) roundTrips() bool {
	if ex.source != nil {
		return false
	}
	rt, ok := ex.ds.(kb.RoundTripLookups)
	return ok && rt.RoundTripLookups()
}

// roundTripThreshold is hashThreshold for a store whose lookup is a round
// trip: one costs about what receiving and hashing a thousand rows of a
// single statement does, so the pattern is hashed after a few rows unless
// its alone form is very large.
func roundTripThreshold(est float64) int64 {
	if est < 0 {
		est = 0
	}
	return 8 + int64(est/1024)
}

// storeClosure walks p+ (p* with withZero) from start with one request to
// a kb.ClosureMatcher when p is an IRI or its inverse, visiting the nodes
// alp would visit. It reports false when the store cannot take the walk.
func (pc *pathCtx) storeClosure(p algebra.PathExpr, start kb.ID, withZero, inverse bool, visit func(kb.ID) error) (bool, error) {
	cm, ok := pc.ex.ds.(kb.ClosureMatcher)
	if !ok || pc.ex.source != nil {
		return false, nil
	}
	if x, ok := p.(*algebra.PathInverse); ok {
		p, inverse = x.Path, !inverse
	}
	link, ok := p.(*algebra.PathLink)
	if !ok {
		return false, nil
	}
	q := kb.Closure{Start: start, Inverse: inverse}
	for _, g := range pc.graphs {
		if !isTemp(g) {
			q.Graphs = append(q.Graphs, g)
		}
	}
	for g := range pc.hidden {
		q.Except = append(q.Except, g)
	}
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
		if err := visit(start); err != nil {
			return true, err
		}
	}
	pred, found, err := pc.ex.dict.lookup(link.IRI)
	if err != nil || !found || isTemp(start) || len(q.Graphs) == 0 {
		return true, err
	}
	q.Pred = pred
	var inner error
	err = cm.MatchClosure(pc.ex.ctx, q, func(n kb.ID) bool {
		if withZero && n == start {
			return true
		}
		if inner = pc.ex.check(); inner != nil {
			return false
		}
		if inner = acct.charge(visitBytes); inner != nil {
			return false
		}
		inner = visit(n)
		return inner == nil
	})
	if inner != nil {
		return true, inner
	}
	return true, err
}
