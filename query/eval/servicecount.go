package eval

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// serviceCountNode answers COUNT(*) without GROUP BY over a SERVICE block
// alone, the commonest first question to a site ("how much is there?"):
// the answer is the number of the site's solutions, so the call asks for
// that only (ServiceRequest.CountOnly) and the site's rows are checked but
// never made terms, dictionary entries or rows here. A federated count
// over a 60 MB answer was decoded into some 1.2 million terms, each given
// a dictionary ID, only to be counted.
type serviceCountNode struct {
	nodeInfo
	svc   *serviceNode
	slots []int // the COUNT aggregates' slots
}

// compileServiceCount returns a serviceCountNode for o when o is COUNT(*)
// (not DISTINCT, any number of them) with no GROUP BY over one SERVICE
// block with a constant endpoint, or ok false.
func (ex *executor) compileServiceCount(o *algebra.Group, sc scope) (node, bool) {
	svc, ok := o.Input.(*algebra.Service)
	if !ok || len(o.Keys) > 0 || len(o.Aggregates) == 0 || svc.Endpoint.IsVar() || svc.Partial ||
		len(sc.seed) > 0 || sc.substitute || (ex.plan != nil && ex.plan.NoOptimize) {
		return nil, false
	}
	for _, a := range o.Aggregates {
		if a.Aggregate.Func != algebra.AggCount || a.Aggregate.Distinct || !a.Aggregate.Star {
			return nil, false
		}
	}
	sn, ok := ex.compileService(svc).(*serviceNode)
	if !ok {
		return nil, false
	}
	sn.countOnly = true
	n := &serviceCountNode{svc: sn}
	for _, a := range o.Aggregates {
		n.slots = append(n.slots, ex.vars.slot(a.Var))
	}
	n.est = 1
	return n, true
}

func (n *serviceCountNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	sols, endpoint, err := n.svc.solutions(ex, seed)
	var total int64
	switch {
	case err != nil && endpoint.IsZero():
		return err
	case err != nil:
		// SILENT: one empty solution; a fan-out branch: none.
		if err := ex.serviceFailure(n.svc.op, endpoint, err, func(row) bool { total++; return true }, []row{seed}); err != nil {
			return err
		}
	default:
		total = int64(sols.Len())
	}
	// The call's solutions, as explain shows a SERVICE node's rows.
	n.svc.runs++
	n.svc.actual += total
	return emitCount(ex, seed, total, emit, func(out row, id kb.ID) {
		for _, s := range n.slots {
			out[s] = id
		}
	})
}

func (n *serviceCountNode) children() []node { return []node{n.svc} }
func (n *serviceCountNode) describe() string {
	return "ServiceCount " + n.svc.op.Endpoint.String()
}
