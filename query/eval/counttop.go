package eval

import (
	"container/heap"
	"fmt"
	"slices"
)

// A LIMIT over ORDER BY one count of a grouped CountJoin (`GROUP BY ?o
// ORDER BY DESC(?count) LIMIT 10`) needs only the groups that can reach
// the first keep rows. ORDER BY keeps the order of arrival among equal
// keys, and with a LIMIT it keeps the first keep rows of that order, so
// with T the keep-th best count, a group whose count is worse than T is
// never kept, every group better than T is, and of the groups equal to T
// only the first (keep − number better) to arrive are. CountJoin emits
// just those, in its own order, and ORDER BY picks the same rows from
// them as from all: over 206k groups of count 1, ten rows instead of
// 206k (each a row, a term and a comparison).

// pushTopCounts hands ord's row limit to the grouped CountJoin below it
// when ord sorts on one of its counts alone, through extends only (which
// never drop or add rows).
func pushTopCounts(ord *orderNode) {
	if ord.keep <= 0 || len(ord.slots) != 1 || ord.slots[0] < 0 {
		return
	}
	slot := ord.slots[0]
	in := ord.input
	for {
		switch x := in.(type) {
		case *extendNode:
			if x.slot == slot {
				if x.from < 0 {
					return
				}
				slot = x.from
			}
			in = x.input
			continue
		case *countJoinNode:
			if x.groupSlot >= 0 && slices.Contains(x.slots, slot) {
				x.top, x.topDesc = ord.keep, ord.desc[0]
			}
		}
		return
	}
}

// topCounts returns which of counts (in arrival order) can be among the
// first keep rows sorted on the count (desc: larger first), ties by
// arrival; nil when all can.
func topCounts(counts []int64, keep int64, desc bool) []bool {
	if keep <= 0 || int64(len(counts)) <= keep {
		return nil
	}
	better := func(a, b int64) bool {
		if desc {
			return a > b
		}
		return a < b
	}
	// The keep best counts in a heap whose root is the worst of them.
	h := &countHeap{worse: func(a, b int64) bool { return better(b, a) }}
	for _, c := range counts {
		if int64(len(h.v)) < keep {
			heap.Push(h, c)
		} else if better(c, h.v[0]) {
			h.v[0] = c
			heap.Fix(h, 0)
		}
	}
	t := h.v[0]
	quota := keep
	for _, c := range counts {
		if better(c, t) {
			quota--
		}
	}
	out := make([]bool, len(counts))
	for i, c := range counts {
		switch {
		case better(c, t):
			out[i] = true
		case c == t && quota > 0:
			out[i] = true
			quota--
		}
	}
	return out
}

// countHeap is a heap of counts whose root is the worst by worse.
type countHeap struct {
	v     []int64
	worse func(a, b int64) bool
}

func (h *countHeap) Len() int           { return len(h.v) }
func (h *countHeap) Less(i, j int) bool { return h.worse(h.v[i], h.v[j]) }
func (h *countHeap) Swap(i, j int)      { h.v[i], h.v[j] = h.v[j], h.v[i] }
func (h *countHeap) Push(x any)         { h.v = append(h.v, x.(int64)) }
func (h *countHeap) Pop() any {
	x := h.v[len(h.v)-1]
	h.v = h.v[:len(h.v)-1]
	return x
}

// topText is the explain note of a limit handed down, or "".
func (n *countJoinNode) topText() string {
	if n.top <= 0 {
		return ""
	}
	dir := "smallest"
	if n.topDesc {
		dir = "largest"
	}
	return fmt.Sprintf("; only the groups among the %d %s counts", n.top, dir)
}
