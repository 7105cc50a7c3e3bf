package opt

import (
	"context"

	"github.com/perfkb/perfkb/query/algebra"
)

// RangeStats is implemented by Stats that can count the quads of a
// pattern `?s p ?o` whose object passes FILTER conjuncts over ?o alone
// (`?o >= 3E8`), from an order of p's objects by value. The evaluator
// then reads such a pattern, where its object is not bound, as the quads
// of the passing objects only (BGPPlan.Ranged), so a selective numeric
// filter can start the join instead of ending it.
type RangeStats interface {
	// RangeCount returns the estimated quads of tp (p constant, o a
	// variable) in graph whose object passes filters and the number of
	// distinct objects that pass, or false when the store keeps no value
	// order for p or no conjunct can use one.
	RangeCount(ctx context.Context, tp algebra.TriplePattern, graph algebra.Node, filters []algebra.Expr) (quads, objects float64, ok bool, err error)
}

// rangeCounts lowers the counts of the patterns a value order can read
// restricted to the objects that pass the BGP's filters, and reports per
// pattern (as written) whether it can. A pattern qualifies when its
// predicate is a constant and its object a variable that is not bound on
// entry and not another position of the same pattern; the filters used
// are the conjuncts whose only variable is that object.
func (w *optimizer) rangeCounts(triples []algebra.TriplePattern, pats []pattern, filters []algebra.Expr, sc scope) ([]bool, error) {
	rs, ok := w.st.(RangeStats)
	if !ok || len(filters) == 0 || !w.rewrite {
		return nil, nil
	}
	var ranged []bool
	for i, tp := range triples {
		if tp.P.IsVar() || !tp.O.IsVar() || sc.seed[tp.O.Var] || pats[i].base == 0 {
			continue
		}
		if tp.S.IsVar() && tp.S.Var == tp.O.Var {
			continue
		}
		var mine []algebra.Expr
		for _, e := range filters {
			vs := exprsVars([]algebra.Expr{e})
			if len(vs) == 1 && vs[tp.O.Var] && !hasExists(e) {
				mine = append(mine, e)
			}
		}
		if len(mine) == 0 {
			continue
		}
		c, objs, ok, err := rs.RangeCount(w.ctx, tp, sc.graph, mine)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if ranged == nil {
			ranged = make([]bool, len(triples))
		}
		ranged[i] = true
		pats[i].base = min(pats[i].base, c)
		pats[i].seeks = objs
	}
	return ranged, nil
}
