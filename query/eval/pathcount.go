package eval

import (
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// COUNT(*) over a join with a property path, without the rows:
// `SELECT (COUNT(*) AS ?n) { ?s p ?x . ?x q+ ?o }` joined each left row
// with each of its path pairs, cloned a row per pair and fed it to the
// GROUP BY only to be counted (250,000 rows for 24,000 left rows on the
// SCALEA data). Here the GROUP BY runs the left side and adds, per left
// row, the number of path pairs that row is compatible with, read from
// the path's memo of pairs per bound end: the count the nested-loop join
// would have produced, with no row built.

// pathCountOn turns the shortcut off (tests).
var pathCountOn = true

// pathCountRuns counts the GROUP BYs it answered (tests).
var pathCountRuns atomic.Int64

// runPathCount answers n when it has no keys and only COUNT(*) aggregates
// over a nested-loop join whose right side is a path with a variable at
// each end; done false leaves n to the general evaluation.
func (n *groupNode) runPathCount(ex *executor, seed row, emit func(row) bool) (done bool, err error) {
	if !pathCountOn || len(n.keys) != 0 || len(n.aggs) == 0 {
		return false, nil
	}
	j, ok := n.input.(*joinNode)
	if !ok || j.hash != nil {
		return false, nil
	}
	p, ok := j.right.(*pathNode)
	if !ok || p.subj.slot < 0 || p.obj.slot < 0 || p.subj.slot == p.obj.slot {
		return false, nil
	}
	for _, a := range n.aggs {
		if !countsEveryRow(a, p) {
			return false, nil
		}
	}
	pathCountRuns.Add(1)
	j.runs++
	var total int64
	// Past forestAfter rows that bind the start only, and once the walks
	// have visited forestWalkShare of the predicate's edges, the closure
	// counts of the whole predicate (pathforest.go) are worth a scan.
	var counts map[kb.ID]int64
	forest, tried, starts := false, false, 0
	walked, edges := 0, -1.0
	err = runInner(ex, j.left, seed, func(l row) error {
		s, o := l[p.subj.slot], l[p.obj.slot]
		if s != 0 && o == 0 {
			if starts++; !tried && starts >= forestAfter {
				if edges < 0 {
					e, _, _, _, ok, err := p.forestEdges(ex, seed)
					if err != nil {
						return err
					}
					if edges = e; !ok {
						tried = true
					}
				}
				if !tried && float64(walked) >= forestWalkShare*edges {
					tried = true
					var err error
					if counts, forest, err = p.forestCounts(ex, seed); err != nil {
						return err
					}
				}
			}
			if forest {
				total += counts[s]
				return ex.check()
			}
		}
		// The pairs the join would emit: those that agree with what l
		// binds at either end (the path's run checks the same).
		compatible := func(x, y kb.ID) bool { return (s == 0 || s == x) && (o == 0 || o == y) }
		pairs, memo, err := p.endPairs(ex, l, func(x, y kb.ID) error {
			walked++
			if compatible(x, y) {
				total++
			}
			return nil
		})
		if err != nil {
			return err
		}
		if memo {
			walked += len(pairs)
			for _, pr := range pairs {
				if compatible(pr[0], pr[1]) {
					total++
				}
			}
		}
		return ex.check()
	})
	if err != nil {
		return true, err
	}
	j.actual += total
	return true, emitCount(ex, seed, total, emit, func(out row, id kb.ID) {
		for _, a := range n.aggs {
			out[a.slot] = id
		}
	})
}

// countsEveryRow reports whether aggregate a counts every row of a join
// with path p: COUNT(*), or COUNT(?v) of a variable at one of p's ends,
// which every pair the path emits binds.
func countsEveryRow(a groupAgg, p *pathNode) bool {
	if a.agg.Distinct || a.agg.Func != algebra.AggCount {
		return false
	}
	return a.agg.Star || a.varSlot >= 0 && (a.varSlot == p.subj.slot || a.varSlot == p.obj.slot)
}
