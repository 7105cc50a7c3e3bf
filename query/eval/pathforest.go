package eval

import (
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// Closure counts over trees and chains. A COUNT(*) over
// `?s p ?x . ?x q+ ?o` (pathcount.go) needs, per left row, only how many
// nodes q+ reaches from ?x. Walking each distinct ?x's closure through
// the store costs the sum of their closures in lookups (about 100 CPU-ms
// for hasParentRS/hasChildRS+ on the SCALEA data, where every region
// summary is walked from its parent). Two shapes of q's steps give every
// count from one scan of q instead:
//   - each node has at most one next node (a parent link followed
//     upwards): q+ from x reaches a chain, count(x) = 1 + count(next(x));
//   - each node is reached by at most one step (child links followed
//     downwards, a forest): q+ from x reaches x's subtree less x,
//     disjoint across children, count(x) = sum over children c of
//     1 + count(c).
// A cycle, or steps of neither shape, fall back to the walks.

// forestAfter is how many left rows binding the path's start a counted
// join walks before it may read the closure counts of the whole
// predicate (tests lower it).
var forestAfter = 64

// forestWalkShare decides when the closure counts are worth their scan:
// once the walks have visited this share of the predicate's edges. A
// visited node and a scanned edge cost about the same (a lookup against
// a map insert), so walking on until the walks have cost what the scan
// would, then scanning, never costs more than twice the cheaper of the
// two — whatever the rest of the left side holds. Counting from few
// starts with small closures (81 call-tree roots over 144,000 child
// links) then never scans. Tests set it to 0.
var forestWalkShare = 0.5

// forestRuns counts the closure counts read (tests).
var forestRuns atomic.Int64

// maxForestEdges bounds the edges of a predicate read for closure
// counts; larger ones are walked.
const maxForestEdges = 1 << 22

// forestState is a pathNode's closure counts, computed once.
type forestState struct {
	done   bool
	ok     bool
	counts map[kb.ID]int64
}

// closureLink returns q and whether the path steps backwards (^q+), for
// a path q+ or (^q)+ of one IRI.
func closureLink(p algebra.PathExpr) (kb.Term, bool, bool) {
	plus, ok := p.(*algebra.PathOneOrMore)
	if !ok {
		return kb.Term{}, false, false
	}
	switch x := plus.Path.(type) {
	case *algebra.PathLink:
		return x.IRI, false, true
	case *algebra.PathInverse:
		if l, ok := x.Path.(*algebra.PathLink); ok {
			return l.IRI, true, true
		}
	}
	return kb.Term{}, false, false
}

// forestCounts returns, per node, how many nodes the path reaches from
// it, when the path is q+ (or (^q)+) over fixed graphs and q's steps
// form chains or a forest; ok is false otherwise.
func (n *pathNode) forestCounts(ex *executor, seed row) (map[kb.ID]int64, bool, error) {
	n.memoMu.Lock()
	defer n.memoMu.Unlock()
	if n.forest.done {
		return n.forest.counts, n.forest.ok, nil
	}
	counts, ok, err := n.buildForest(ex, seed)
	if err != nil {
		return nil, false, err
	}
	n.forest = forestState{done: true, ok: ok, counts: counts}
	return counts, ok, nil
}

// forestEdges returns how many steps of q the closure counts of q+ (or
// (^q)+) would read, with q's ID and the graphs read; ok is false when
// the path has no such counts.
func (n *pathNode) forestEdges(ex *executor, seed row) (edges float64, pid kb.ID, graphs []kb.ID, dedupe, ok bool, err error) {
	iri, _, ok := closureLink(n.path)
	if !ok || n.graph.kind == gSlot {
		return 0, 0, nil, false, false, nil
	}
	pid, known, err := ex.dict.lookup(iri)
	if err != nil || !known {
		return 0, 0, nil, false, false, err
	}
	bg := bgpNode{graph: n.graph}
	graphs, dedupe = bg.graphsFor(ex, seed)
	for _, g := range graphs {
		c, err := ex.ds.Count(ex.ctx, kb.Pattern{P: pid, G: g}, false)
		if err != nil {
			return 0, 0, nil, false, false, err
		}
		edges += float64(c)
	}
	return edges, pid, graphs, dedupe, true, nil
}

func (n *pathNode) buildForest(ex *executor, seed row) (map[kb.ID]int64, bool, error) {
	_, back, _ := closureLink(n.path)
	edges, pid, graphs, dedupe, ok, err := n.forestEdges(ex, seed)
	if err != nil || !ok {
		return nil, false, err
	}
	forestRuns.Add(1)
	// The steps, the next, parent and child maps and the counts: about
	// 100 bytes a step.
	if edges > maxForestEdges || !ex.mem.tryCharge(int64(edges)*100) {
		return nil, false, nil
	}
	pc := &pathCtx{ex: ex, graphs: graphs, dedupe: dedupe}
	if n.graph.kind == gDefault {
		pc.hidden = ex.hidden
	}
	var steps [][2]kb.ID
	next := make(map[kb.ID]kb.ID, int(edges))
	functional := true
	err = pc.match(kb.Pattern{P: pid}, func(q kb.Quad) error {
		from, to := q.S, q.O
		if back {
			from, to = to, from
		}
		if t, seen := next[from]; seen {
			if t == to {
				return nil // the same step from another graph
			}
			functional = false
		} else {
			next[from] = to
		}
		steps = append(steps, [2]kb.ID{from, to})
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if functional {
		return chainCounts(ex, next)
	}
	return treeCounts(ex, steps)
}

// chainCounts counts, for steps where each node has at most one next
// node, the nodes reached from each: 1 + those reached from its next
// one. A cycle gives false.
func chainCounts(ex *executor, next map[kb.ID]kb.ID) (map[kb.ID]int64, bool, error) {
	counts := make(map[kb.ID]int64, len(next))
	const inProgress = -1
	var chain []kb.ID
	for start := range next {
		if _, done := counts[start]; done {
			continue
		}
		chain = chain[:0]
		x := start
		var base int64
		for {
			if c, done := counts[x]; done {
				if c == inProgress {
					return nil, false, nil // a cycle
				}
				base = c
				break
			}
			t, has := next[x]
			if !has {
				break // x reaches nothing
			}
			counts[x] = inProgress
			chain = append(chain, x)
			x = t
		}
		if err := ex.check(); err != nil {
			return nil, false, err
		}
		for i := len(chain) - 1; i >= 0; i-- {
			base++
			counts[chain[i]] = base
		}
	}
	return counts, true, nil
}

// treeCounts counts, for steps where each node is reached by at most one
// step (a forest), the nodes reached from each: its subtree less itself.
// A node reached twice or a cycle gives false.
func treeCounts(ex *executor, steps [][2]kb.ID) (map[kb.ID]int64, bool, error) {
	parent := make(map[kb.ID]kb.ID, len(steps))
	children := make(map[kb.ID][]kb.ID, len(steps))
	for _, st := range steps {
		from, to := st[0], st[1]
		if p, seen := parent[to]; seen {
			if p == from {
				continue // the same step from another graph
			}
			return nil, false, nil
		}
		parent[to] = from
		children[from] = append(children[from], to)
	}
	// Post-order from the roots; a node left unvisited lies on a cycle.
	counts := make(map[kb.ID]int64, len(children))
	type frame struct {
		node kb.ID
		next int
	}
	var stack []frame
	visited := 0
	for root := range children {
		if _, has := parent[root]; has {
			continue
		}
		stack = append(stack[:0], frame{node: root})
		for len(stack) > 0 {
			if err := ex.check(); err != nil {
				return nil, false, err
			}
			top := &stack[len(stack)-1]
			kids := children[top.node]
			if top.next < len(kids) {
				c := kids[top.next]
				top.next++
				stack = append(stack, frame{node: c})
				continue
			}
			var c int64
			for _, k := range kids {
				c += 1 + counts[k]
			}
			if c > 0 {
				counts[top.node] = c
			}
			visited++
			stack = stack[:len(stack)-1]
		}
	}
	// Every node with children or a parent was reached from a root
	// unless a cycle holds it.
	nodes := len(parent)
	for from := range children {
		if _, has := parent[from]; !has {
			nodes++
		}
	}
	if visited != nodes {
		return nil, false, nil
	}
	return counts, true, nil
}
