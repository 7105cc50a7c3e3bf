package eval

import (
	"maps"
	"slices"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// objectKindCounter is implemented by stores that count triples by the
// kind of their object once per state of the store (the native stores,
// while reads come from memory: kb/native/kindcount.go).
type objectKindCounter interface {
	ObjectKindCount(kind kb.TermKind, g kb.ID, hidden []kb.ID) (n int64, ok bool, err error)
}

// kindCountOn turns the store's kind counts on; tests compare with the
// scan.
var kindCountOn = true

// kindCountRuns counts the queries the store's counts answered (tests).
var kindCountRuns atomic.Int64

// runKindCounted answers `SELECT (COUNT(?o) …) { ?s ?p ?o FILTER
// isLiteral(?o) }` and its kind (COUNT(*) or COUNT of a pattern variable,
// not DISTINCT, one kind test on the object, three distinct variables, no
// GROUP BY key) from the store's count of triples by object kind, over
// one graph or the union default graph. done is false when the node is
// not of that shape or the store cannot count: the caller scans.
func (n *aggScanNode) runKindCounted(ex *executor, seed row, emit func(row) bool) (done bool, err error) {
	kc, ok := ex.ds.(objectKindCounter)
	if !ok || !kindCountOn || n.key != nil || n.missing != "" || len(n.tests) != 1 || len(n.graphs) != 1 ||
		n.tests[0].kind == 0 || n.tests[0].pos != 2 || len(n.slotPos) != 3 {
		return false, nil
	}
	for _, p := range n.pat {
		if p.slot < 0 || (p.slot < len(seed) && seed[p.slot] != 0) {
			return false, nil
		}
	}
	for _, a := range n.aggs {
		_, inPattern := n.slotPos[a.varSlot]
		if a.agg.Func != algebra.AggCount || a.agg.Distinct || !(a.agg.Star || inPattern) {
			return false, nil
		}
	}
	g := n.graphs[0]
	var hidden []kb.ID
	if g == kb.Any {
		hidden = slices.Collect(maps.Keys(ex.hidden))
	}
	total, ok, err := kc.ObjectKindCount(n.tests[0].kind, g, hidden)
	if err != nil {
		return true, err
	}
	if !ok {
		return false, nil
	}
	kindCountRuns.Add(1)
	return true, emitCount(ex, seed, total, emit, func(out row, id kb.ID) {
		for _, a := range n.aggs {
			out[a.slot] = id
		}
	})
}
