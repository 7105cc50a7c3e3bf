package eval

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// A star join counted on its subject (`?s rdf:type ?o1 . ?s :hasMetric
// ?o2`) needs each predicate's quads counted per subject, and the store
// reads a predicate's quads in P-O-S-G order: every count scans the
// predicate and sorts its subjects. Stores that keep values derived from
// a predicate until the next write (kb/native's PredicateDerived) keep
// that list, so a later count of the same predicate under the same
// graphs reads it instead: the first query after a write pays the scan
// and the sort, later ones none.

// predicateDeriver is implemented by stores that keep values built from
// a predicate's quads for as long as those quads are unchanged.
type predicateDeriver interface {
	PredicateDerived(p kb.ID, kind string, build func() (any, int64, error)) (v any, kept, ok bool, err error)
}

// predicateStater is implemented by stores whose kept values outlive
// writes to other predicates (kb/native): a value built outside
// PredicateDerived, from quads read meanwhile, is kept only when the
// predicate's quads are still those it read.
type predicateStater interface {
	PredicateState() any
	PredicateUnchanged(state any, p kb.ID) bool
}

// predicateState returns ds's state token, nil when it keeps none.
func predicateState(ds any) any {
	if ps, ok := ds.(predicateStater); ok {
		return ps.PredicateState()
	}
	return nil
}

// predicateUnchanged reports whether p's quads in ds are as they were at
// state (always, for a store that drops kept values at every write).
func predicateUnchanged(ds any, state any, p kb.ID) bool {
	if ps, ok := ds.(predicateStater); ok {
		return ps.PredicateUnchanged(state, p)
	}
	return true
}

// cjColumnsOn lets counted joins keep per-subject counts in the store;
// tests turn it off to compare.
var cjColumnsOn = true

// cjColumnReads counts the per-subject count lists read from the store's
// cache rather than built (tests check that a write is noticed).
var cjColumnReads atomic.Int64

// keepable reports whether scanKept may read op's per-key counts from
// the store's kept values.
func (n *countJoinNode) keepable(ex *executor, op *cjOp) bool {
	_, isPD := ex.ds.(predicateDeriver)
	return cjColumnsOn && isPD && ex.dict.table != nil && !op.missing && len(op.subs) == 0 &&
		op.pat[0] == kb.Any && op.pat[2] == kb.Any && op.pat[1] != kb.Any
}

// errNotKept is what the probe of isKept builds: nothing.
var errNotKept = errors.New("eval: no kept list")

// isKept reports whether op's per-key counts are kept already in memory,
// so that scanKept reads them without a
// scan or a sort: sortCost charges no sort for them. Nothing is built.
func (n *countJoinNode) isKept(ex *executor, op *cjOp) bool {
	if !n.keepable(ex, op) {
		return false
	}
	mk := [2]kb.ID{op.pat[1], kb.ID(op.keyPos)}
	n.keptMu.Lock()
	_, ok := n.kept[mk]
	known, probed := n.keptProbed[mk]
	n.keptMu.Unlock()
	if ok || probed {
		return ok || known
	}
	// The values kept in memory only: a side file not read yet would be
	// read (and checked) by the probe, and one past the store's cap for
	// kept values on every probe.
	_, _, ok, err := ex.ds.(predicateDeriver).PredicateDerived(op.pat[1], n.keptKind(ex, op), func() (any, int64, error) {
		return nil, 0, errNotKept
	})
	ok = ok && err == nil
	// Planning asks once per candidate key and pattern: the answer is
	// kept for the node's life (a list kept later only makes it cheaper).
	n.keptMu.Lock()
	if n.keptProbed == nil {
		n.keptProbed = map[[2]kb.ID]bool{}
	}
	n.keptProbed[mk] = ok
	n.keptMu.Unlock()
	return ok
}

// keptKind names op's list among a predicate's kept values: what the list
// depends on besides the predicate is the key's end, the graphs read,
// whether a triple's quads count once, and the graphs left out.
func (n *countJoinNode) keptKind(ex *executor, op *cjOp) string {
	hidden := make([]kb.ID, 0, len(ex.hidden))
	for g, h := range ex.hidden {
		if h {
			hidden = append(hidden, g)
		}
	}
	slices.Sort(hidden)
	return fmt.Sprintf("countjoin counts key=%d graphs=%v dedupe=%v hidden=%v", op.keyPos, n.graphs, n.dedupe, hidden)
}

// scanKept is scan for a pattern `?key p ?o` or `?s p ?key` (a constant
// predicate, two variables, no parts), through the store's kept values
// where it keeps them; ok is false when the pattern is not of that shape
// or the store keeps none. Per-object counts need no sort (P-O-S-G yields
// them in order) but are kept too: a chain counts each link on its
// object, and a kept list spares the scan.
func (n *countJoinNode) scanKept(ex *executor, op *cjOp) (kc keyCounts, held int64, ok bool, err error) {
	if !n.keepable(ex, op) {
		return kc, 0, false, nil
	}
	// A predicate counted twice on the same end (`?s :p ?a . ?s :p ?b`)
	// takes the list this query already has.
	mk := [2]kb.ID{op.pat[1], kb.ID(op.keyPos)}
	n.keptMu.Lock()
	if c, ok := n.kept[mk]; ok {
		n.keptMu.Unlock()
		return c, 0, true, nil
	}
	n.keptMu.Unlock()
	defer func() {
		if ok && err == nil {
			n.keptMu.Lock()
			if n.kept == nil {
				n.kept = map[[2]kb.ID]keyCounts{}
			}
			n.kept[mk] = kc
			n.keptMu.Unlock()
		}
	}()
	pd := ex.ds.(predicateDeriver)
	kind := n.keptKind(ex, op)
	built := false
	v, _, ok, err := keyCountsDerived(pd, op.pat[1], kind, func() (any, int64, error) {
		built = true
		c, h, err := n.scanQuads(ex, op)
		held = h // this query's charge for what it built
		if err != nil {
			return nil, 0, err
		}
		return &c, int64(len(c.ids)) * 16, nil
	})
	if err != nil || !ok {
		return kc, held, false, err
	}
	if !built {
		cjColumnReads.Add(1)
	}
	return *v.(*keyCounts), held, true, nil
}
