package eval

import (
	"math/big"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// A GROUP BY over a BGP, and a COUNT over a BGP joined with a property
// path p+ or p*, handed whole to a store that answers each in one request
// (kb.BGPAggregator, kb.ClosureCounter: kb/pg makes each one SQL
// statement), so that only the groups or the count come back instead of
// every solution, or one closure request per solution. The BGP's filters
// must all be FILTER NOT EXISTS over triple patterns, which the store
// applies exactly; any other filter, a DISTINCT aggregate, an aggregate
// the store cannot give exactly for some group, or a path of another
// shape leaves the GROUP BY to the general evaluation.

// runStorePushdown answers n with one store request where it can; done
// false leaves n to the general evaluation.
func (n *groupNode) runStorePushdown(ex *executor, seed row, emit func(row) bool) (done bool, err error) {
	if ex.source != nil {
		return false, nil
	}
	if done, err := n.runStorePathCount(ex, seed, emit); done {
		return true, err
	}
	return n.runStoreAggregate(ex, seed, emit)
}

// storeBGP is the store request for n's patterns under r, with n's
// filters as NOT EXISTS requests, and the slot of each of its variables;
// ok is false when a filter is not a NOT EXISTS over triple patterns, a
// pattern holds a computed term or a constant the store does not know,
// or n is inside GRAPH ?g.
func (n *bgpNode) storeBGP(ex *executor, r row) (q kb.BGP, nx []kb.BGPNotExists, slots []int, ok bool, err error) {
	if n.missing != "" || n.graph.kind == gSlot || len(n.pats) == 0 {
		return q, nil, nil, false, nil
	}
	q, varOf, slots, ok := n.bgpRequest(ex, r)
	if !ok {
		return q, nil, nil, false, nil
	}
	for _, exprs := range n.fsrc {
		for _, e := range exprs {
			x, always, ok, err := ex.storeNotExists(e, r, varOf, q.Vars)
			if err != nil || !ok {
				return q, nil, nil, false, err
			}
			if !always {
				nx = append(nx, x)
			}
		}
	}
	return q, nx, slots, true, nil
}

// storeNotExists turns the filter e into a NOT EXISTS request when it is
// FILTER NOT EXISTS over triple patterns (always true when one of them
// names a term the store does not hold: it can match nothing).
func (ex *executor) storeNotExists(e algebra.Expr, r row, varOf map[int]int, vars int) (x kb.BGPNotExists, always, ok bool, err error) {
	ee, isExists := e.(*algebra.ExistsExpr)
	if !isExists || !ee.Not {
		return x, false, false, nil
	}
	b, isBGP := ee.Pattern.(*algebra.BGP)
	if !isBGP {
		return x, false, false, nil
	}
	local := map[algebra.Var]int{}
	for _, tp := range b.Triples {
		var t [3]kb.BGPTerm
		for k, nd := range [3]algebra.Node{tp.S, tp.P, tp.O} {
			if !nd.IsVar() {
				id, found, err := ex.dict.lookup(nd.Term)
				if err != nil {
					return x, false, false, err
				}
				if !found {
					return x, true, true, nil
				}
				t[k].ID = id
				continue
			}
			if slot, has := ex.vars.slots[nd.Var]; has && slot < len(r) {
				if id := r[slot]; id != 0 {
					if isTemp(id) {
						return x, false, false, nil
					}
					t[k].ID = id
					continue
				}
				if v, bound := varOf[slot]; bound {
					t[k].Var = v
					continue
				}
			}
			v, seen := local[nd.Var]
			if !seen {
				v = vars + len(local)
				local[nd.Var] = v
			}
			t[k].Var = v
		}
		x.Patterns = append(x.Patterns, t)
	}
	return x, false, true, nil
}

// runStorePathCount answers a GROUP BY without keys whose aggregates are
// all COUNT(*) or COUNT of a path end over the join of a BGP with a path
// p+ or p* (^p+, ^p*) from a variable the BGP binds to one it does not,
// with one kb.ClosureCounter request.
func (n *groupNode) runStorePathCount(ex *executor, seed row, emit func(row) bool) (bool, error) {
	cc, ok := ex.ds.(kb.ClosureCounter)
	if !ok || len(n.keys) != 0 || len(n.aggs) == 0 {
		return false, nil
	}
	j, ok := n.input.(*joinNode)
	if !ok {
		return false, nil
	}
	left, ok := j.left.(*bgpNode)
	p, ok2 := j.right.(*pathNode)
	if !ok || !ok2 || p.subj.slot < 0 || p.obj.slot < 0 || p.subj.slot == p.obj.slot || p.graph != left.graph {
		return false, nil
	}
	for _, a := range n.aggs {
		if a.agg.Func != algebra.AggCount || a.agg.Distinct || (!a.agg.Star && a.varSlot != p.subj.slot && a.varSlot != p.obj.slot) {
			return false, nil
		}
	}
	var withZero, inverse bool
	path := p.path
	if x, ok := path.(*algebra.PathInverse); ok {
		path, inverse = x.Path, true // ^(p+) is (^p)+
	}
	switch x := path.(type) {
	case *algebra.PathOneOrMore:
		path = x.Path
	case *algebra.PathZeroOrMore:
		path, withZero = x.Path, true
	default:
		return false, nil
	}
	if x, ok := path.(*algebra.PathInverse); ok {
		path, inverse = x.Path, !inverse
	}
	link, ok := path.(*algebra.PathLink)
	if !ok || seed[p.subj.slot] != 0 || seed[p.obj.slot] != 0 {
		return false, nil
	}
	q, nx, slots, ok, err := left.storeBGP(ex, seed)
	if err != nil || !ok {
		return ok, err
	}
	start := -1
	for v, slot := range slots {
		switch slot {
		case p.subj.slot:
			start = v
		case p.obj.slot:
			return false, nil // the BGP binds the far end as well
		}
	}
	pred, found, err := ex.dict.lookup(link.IRI)
	if err != nil || !found || start < 0 {
		return false, err
	}
	req := kb.ClosureCount{Left: q, NotExists: nx, StartVar: start, WithZero: withZero}
	req.Pred, req.Inverse = pred, inverse
	req.Graphs, req.Except = q.Graphs, q.Exclude
	total, err := cc.CountClosure(ex.ctx, req)
	if err != nil {
		return true, err
	}
	if pe, ok := ex.ds.(kb.PushdownExplainer); ok {
		n.storeReq = pe.ExplainClosureCount(req)
	}
	return true, emitCount(ex, seed, total, emit, func(out row, id kb.ID) {
		for _, a := range n.aggs {
			out[a.slot] = id
		}
	})
}

// runStoreAggregate answers a GROUP BY of plain variables with COUNT,
// SUM, AVG, MIN and MAX of plain variables (none DISTINCT) over a BGP
// with one kb.BGPAggregator request, when the store gives every value of
// every group exactly.
func (n *groupNode) runStoreAggregate(ex *executor, seed row, emit func(row) bool) (bool, error) {
	ag, ok := ex.ds.(kb.BGPAggregator)
	b, ok2 := n.input.(*bgpNode)
	if !ok || !ok2 || len(n.aggs) == 0 {
		return false, nil
	}
	q, nx, slots, ok, err := b.storeBGP(ex, seed)
	if err != nil || !ok {
		return false, err
	}
	varOf := make(map[int]int, len(slots))
	for v, slot := range slots {
		varOf[slot] = v
	}
	req := kb.BGPAggregate{BGP: q, NotExists: nx}
	for _, k := range n.keys {
		v, bound := varOf[k.varSlot]
		if k.varSlot < 0 || !bound {
			return false, nil
		}
		req.Keys = append(req.Keys, v)
	}
	for _, a := range n.aggs {
		fn := a.agg.Func
		if a.agg.Distinct {
			return false, nil
		}
		if a.agg.Star {
			req.Aggs = append(req.Aggs, kb.BGPAgg{Func: "COUNT", Var: -1})
			continue
		}
		v, bound := varOf[a.varSlot]
		if a.varSlot < 0 || !bound {
			return false, nil
		}
		switch fn {
		case algebra.AggCount, algebra.AggSum, algebra.AggAvg, algebra.AggMin, algebra.AggMax:
		default:
			return false, nil
		}
		req.Aggs = append(req.Aggs, kb.BGPAgg{Func: string(fn), Var: v})
	}
	type group struct {
		keys []kb.ID
		vals []kb.BGPAggValue
	}
	var groups []group
	exact := true
	acct := ex.account("GROUP BY")
	defer acct.done()
	var inner error
	err = ag.AggregateBGP(ex.ctx, req, func(keys []kb.ID, vals []kb.BGPAggValue) bool {
		for _, v := range vals {
			exact = exact && v.Exact
		}
		if !exact {
			return false
		}
		if inner = acct.charge(int64(len(keys)+3*len(vals))*8 + 2*allocExtra); inner != nil {
			return false
		}
		groups = append(groups, group{append([]kb.ID(nil), keys...), append([]kb.BGPAggValue(nil), vals...)})
		return true
	})
	if inner != nil {
		return true, inner
	}
	if err != nil || !exact {
		return err != nil, err
	}
	if len(n.keys) == 0 && len(groups) == 0 {
		return false, nil // the empty group: the general evaluation gives its values
	}
	if pe, ok := ex.ds.(kb.PushdownExplainer); ok {
		n.storeReq = pe.ExplainAggregate(req)
	}
	for _, g := range groups {
		out, _ := hiddenSeed(ex, seed)
		for i, k := range n.keys {
			out[k.slot] = g.keys[i]
		}
		for i, a := range n.aggs {
			v := g.vals[i]
			var t kb.Term
			switch a.agg.Func {
			case algebra.AggCount:
				t = integerTerm(v.Count)
			case algebra.AggSum:
				t = function.Numeric{Kind: function.NumDouble, F: v.Sum}.Term()
			case algebra.AggAvg:
				avg, err := arithNumeric('/', function.Numeric{Kind: function.NumDouble, F: v.Sum},
					function.Numeric{Kind: function.NumInteger, R: big.NewRat(v.Count, 1)})
				if err != nil {
					return true, err
				}
				t = avg.Term()
			default:
				out[a.slot] = v.Term
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return true, err
			}
			out[a.slot] = id
		}
		if !emit(out) {
			return true, errStop
		}
	}
	return true, nil
}
