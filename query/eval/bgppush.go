package eval

import "github.com/perfkb/perfkb/kb"

// runPushed answers the BGP with one request to a store that matches
// whole BGPs (kb.BGPMatcher; kb/pg makes it one SQL join), instead of one
// lookup per pattern and partial row, and applies the BGP's filters to
// each solution. The filters placed after pattern i only read variables
// bound by then, which keep their values in the full solution, so testing
// them all at the end gives the same rows.
func (n *bgpNode) runPushed(ex *executor, bm kb.BGPMatcher, r row, emit func(row) bool) error {
	var q kb.BGP
	varOf := map[int]int{}
	var slots []int
	for _, p := range n.pats {
		var t [3]kb.BGPTerm
		for k, pos := range p.pos {
			switch {
			case pos.slot < 0:
				t[k].ID = pos.id
			case r[pos.slot] != 0:
				if isTemp(r[pos.slot]) {
					return nil // a computed term the store does not hold
				}
				t[k].ID = r[pos.slot]
			default:
				v, ok := varOf[pos.slot]
				if !ok {
					v = len(slots)
					varOf[pos.slot] = v
					slots = append(slots, pos.slot)
				}
				t[k].Var = v
			}
		}
		q.Patterns = append(q.Patterns, t)
	}
	q.Vars = len(slots)
	graphs, dedupe := n.graphsFor(ex, r)
	for _, g := range graphs {
		if !isTemp(g) {
			q.Graphs = append(q.Graphs, g)
		}
	}
	if len(q.Graphs) == 0 {
		return nil
	}
	q.Distinct = dedupe
	if n.graph.kind == gDefault {
		for g := range ex.hidden {
			q.Exclude = append(q.Exclude, g)
		}
	}
	n.pushed++
	var inner error
	stopped := false
	last := len(n.pats) - 1
	err := bm.MatchBGP(ex.ctx, q, func(vals []kb.ID) bool {
		if inner = ex.check(); inner != nil {
			return false
		}
		out := r.clone(len(r))
		for v, slot := range slots {
			out[slot] = vals[v]
		}
		for level := 1; level < len(n.filters); level++ {
			pass, err := ex.filterRow(n.filters[level], out)
			if err != nil {
				inner = err
				return false
			}
			if !pass {
				return true
			}
		}
		n.rows[last]++
		if !emit(out) {
			stopped = true
			return false
		}
		return true
	})
	switch {
	case inner != nil:
		return inner
	case err != nil:
		return err
	case stopped:
		return errStop
	}
	return nil
}
