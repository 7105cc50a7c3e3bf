package opt

import (
	"container/heap"
	"context"
)

// pattern is one triple pattern of a BGP being ordered: each position is
// a variable index (>= 0, local to the BGP) or -1 for a constant.
type pattern struct {
	pos  [3]int
	i    int     // index in the BGP as written
	base float64 // store count for the constant positions
	est  float64 // estimated rows per input row at this point of the order
	// seeks is, for a pattern read through a value order (RangeStats),
	// the objects that pass: one lookup each when the pattern is scanned
	// (neither its subject nor its object bound).
	seeks float64
}

// shapeFunc returns the distinct subjects and objects of pattern i's
// (constant) predicate, or false when the store does not know them.
type shapeFunc func(i int) (subjects, objects float64, ok bool)

// maxExactOrder is the largest BGP orderPatterns orders by rescanning
// every remaining pattern at each step (quadratic: a 30,000-step sequence
// path took 18 s of planning that way).
const maxExactOrder = 64

// maxSearchOrder is the largest BGP statsOrder plans by trying every
// pattern as the start (cubic in the patterns).
const maxSearchOrder = 12

// orderPatterns orders the patterns greedily: next is the cheapest pattern
// given the variables bound so far, preferring connected patterns.
// Past maxExactOrder patterns it switches to largeOrder, the same greedy
// choice in O(n log n), and it stops when ctx ends. bound holds, per
// variable index, whether the seed binds it (it is not modified). shape is
// nil when the store has no per-predicate statistics.
func orderPatterns(ctx context.Context, pats []pattern, bound []bool, shape shapeFunc) ([]pattern, error) {
	if len(pats) > maxExactOrder {
		return largeOrder(ctx, pats, bound)
	}
	if shape != nil && len(pats) > 1 && len(pats) <= maxSearchOrder {
		if out, ok := statsOrder(pats, bound, shape); ok {
			return out, nil
		}
	}
	bound, nbound := copyBound(bound)
	out := make([]pattern, 0, len(pats))
	used := make([]bool, len(pats))
	for len(out) < len(pats) {
		best, bestCost := -1, 0.0
		for i := range pats {
			if used[i] {
				continue
			}
			if cost := patternCost(&pats[i], bound, nbound); best < 0 || cost < bestCost {
				best, bestCost = i, cost
			}
		}
		used[best] = true
		p := pats[best]
		p.est = bestCost
		if p.est >= 1e6 {
			p.est = p.base
		}
		for _, q := range p.pos {
			if q >= 0 && !bound[q] {
				bound[q] = true
				nbound++
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// writtenOrder keeps the patterns as written (Options.NoOptimize), with
// the estimates patternCost gives them in that order.
func writtenOrder(pats []pattern, bound []bool) []pattern {
	bound, nbound := copyBound(bound)
	out := make([]pattern, len(pats))
	for k, p := range pats {
		p.est = patternCost(&p, bound, nbound)
		if p.est >= 1e6 {
			p.est = p.base
		}
		for _, q := range p.pos {
			if q >= 0 && !bound[q] {
				bound[q] = true
				nbound++
			}
		}
		out[k] = p
	}
	return out
}

func copyBound(b []bool) ([]bool, int) {
	out := make([]bool, len(b))
	n := 0
	for i, x := range b {
		if x {
			out[i] = true
			n++
		}
	}
	return out, n
}

// statsOrder orders pats with per-predicate statistics: from each
// possible start it extends greedily by the smallest estimated fan-out
// (rows per input row, connected patterns first) and keeps the order
// with the fewest estimated rows visited and probes made. A greedy
// choice of the cheapest first pattern alone starts a GROUP BY over
// code-region types from the 1,140 hasCrType triples and fans out to
// 206,000 metrics before filtering on the metric name; starting from the
// 29,000 "wtime" metrics does a quarter of the lookups. It reports false
// when a pattern's predicate is not a constant the statistics know, so
// the caller falls back to patternCost.
func statsOrder(pats []pattern, bound0 []bool, shape shapeFunc) ([]pattern, bool) {
	shapes := make([][2]float64, len(pats))
	for i, p := range pats {
		if p.pos[1] >= 0 {
			return nil, false
		}
		if p.base == 0 {
			continue // matches nothing: any fan-out is 0
		}
		s, o, ok := shape(p.i)
		if !ok {
			return nil, false
		}
		shapes[i] = [2]float64{s, o}
	}
	bound := make([]bool, len(bound0))
	used := make([]bool, len(pats))
	order := make([]int, 0, len(pats))
	fans := make([]float64, len(pats))
	var best []int
	var bestFans []float64
	bestCost := 0.0
	for start := range pats {
		copy(bound, bound0)
		clear(used)
		order = order[:0]
		rows, cost := 1.0, 0.0
		for len(order) < len(pats) {
			next, nextFan, nextConn := -1, 0.0, false
			for i := range pats {
				if used[i] {
					continue
				}
				if len(order) == 0 && i != start {
					continue
				}
				fan, conn := statsFanOut(&pats[i], shapes[i], bound)
				if next < 0 || conn && !nextConn || conn == nextConn && fan < nextFan {
					next, nextFan, nextConn = i, fan, conn
				}
			}
			used[next] = true
			order = append(order, next)
			fans[next] = nextFan
			// A probe per input row, a visit per output row; a scan
			// through a value order probes once per passing object.
			cost += rows
			if p := &pats[next]; p.seeks > 0 && p.pos[0] >= 0 && !bound[p.pos[0]] && !bound[p.pos[2]] {
				cost += rows * p.seeks
			}
			rows *= nextFan
			cost += rows
			for _, q := range pats[next].pos {
				if q >= 0 {
					bound[q] = true
				}
			}
		}
		if best == nil || cost < bestCost {
			best, bestCost = append(best[:0], order...), cost
			bestFans = append(bestFans[:0], fans...)
		}
	}
	out := make([]pattern, len(pats))
	for k, i := range best {
		out[k] = pats[i]
		out[k].est = bestFans[i]
	}
	return out, true
}

// statsFanOut estimates p's rows per input row given the bound variables,
// and whether p shares a bound variable. shape holds the distinct
// subjects and objects of p's predicate; p.base already counts p's
// constants. A bound subject selects base/subjects of the quads, a bound
// object base/objects: `?m hasMetricName "wtime"` with ?m bound keeps
// 29,438 / 206,197 of the rows.
func statsFanOut(p *pattern, shape [2]float64, bound []bool) (float64, bool) {
	if p.base == 0 {
		return 0, true
	}
	fan := p.base
	conn, hasVar := false, false
	for k, q := range p.pos {
		if q < 0 {
			continue
		}
		hasVar = true
		if !bound[q] {
			continue
		}
		conn = true
		switch k {
		case 0:
			fan /= max(shape[0], 1)
		case 2:
			fan /= max(shape[1], 1)
		}
	}
	if !hasVar {
		fan, conn = min(fan, 1), true // a check, not a join
	}
	return fan, conn
}

// patternCost is orderPatterns' cost of p given the bound variables
// (nbound of them).
func patternCost(p *pattern, bound []bool, nbound int) float64 {
	cost := p.base
	connected, hasVar := false, false
	for k, q := range p.pos {
		if q < 0 {
			continue
		}
		hasVar = true
		if bound[q] {
			connected = true
			switch k {
			case 0:
				cost *= 0.01
			case 1:
				cost *= 0.5
			default:
				cost *= 0.05
			}
		}
	}
	if cost < 1 && p.base > 0 {
		cost = 1
	}
	if hasVar && !connected && nbound > 0 {
		cost = cost*1e6 + 1e6
	}
	return cost
}

// largeOrder is orderPatterns' greedy choice for large BGPs: a heap of
// candidate costs, refreshed only for the patterns that share a variable
// just bound, and checked again when popped (a pattern's cost only
// changes when one of its variables becomes bound, or when the first
// binding makes unconnected patterns expensive).
func largeOrder(ctx context.Context, pats []pattern, bound []bool) ([]pattern, error) {
	bound, nbound := copyBound(bound)
	uses := make([][]int, len(bound)) // variable -> patterns using it
	for i, p := range pats {
		for _, q := range p.pos {
			if q >= 0 {
				uses[q] = append(uses[q], i)
			}
		}
	}
	h := &costHeap{}
	for i := range pats {
		h.items = append(h.items, costItem{patternCost(&pats[i], bound, nbound), i})
	}
	heap.Init(h)
	used := make([]bool, len(pats))
	out := make([]pattern, 0, len(pats))
	for h.Len() > 0 {
		if len(out)&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		it := heap.Pop(h).(costItem)
		if used[it.i] {
			continue
		}
		if c := patternCost(&pats[it.i], bound, nbound); c > it.cost {
			heap.Push(h, costItem{c, it.i}) // stale: got dearer
			continue
		} else {
			it.cost = c
		}
		used[it.i] = true
		p := pats[it.i]
		p.est = it.cost
		if p.est >= 1e6 {
			p.est = p.base
		}
		out = append(out, p)
		for _, q := range p.pos {
			if q < 0 || bound[q] {
				continue
			}
			bound[q] = true
			nbound++
			for _, j := range uses[q] {
				if !used[j] {
					heap.Push(h, costItem{patternCost(&pats[j], bound, nbound), j})
				}
			}
		}
	}
	return out, nil
}

type costItem struct {
	cost float64
	i    int
}

// costHeap is a min-heap of pattern costs, ties broken by position so the
// order is deterministic.
type costHeap struct{ items []costItem }

func (h *costHeap) Len() int { return len(h.items) }
func (h *costHeap) Less(a, b int) bool {
	x, y := h.items[a], h.items[b]
	return x.cost < y.cost || x.cost == y.cost && x.i < y.i
}
func (h *costHeap) Swap(a, b int) { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *costHeap) Push(x any)    { h.items = append(h.items, x.(costItem)) }
func (h *costHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
