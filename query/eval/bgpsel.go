package eval

import (
	"errors"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// Preselected objects of a bound level. A numeric FILTER over one
// pattern's object alone (`?m :hasMetricValue ?v FILTER(?v >= 3E8)`,
// ?m bound by earlier patterns) is evaluated per row: the object's number
// read from the store's numeric column (numcolumn.go), a random read in
// a column of every ID, for each of Fig. 6.29's 1,144 wtime values per
// request (15 % of the served query's CPU at 5M). Where the store keeps
// the predicate's value order (valueorder.go), the objects that pass the
// level's value-order tests are one set per store state: kept as a
// bitset over IDs with the store's derived values, it rejects a row
// with one bit read. Rows whose object is in the set still run the
// FILTER as compiled, so the set only has to hold every passing object
// (selectObjects returns exactly those).

// bgpSelOn lets bound levels reject rows through a kept object set;
// tests turn it off to compare.
var bgpSelOn = true

// bgpSelRuns counts the levels that read a kept object set (tests check
// that the native stores did).
var bgpSelRuns atomic.Int64

// maxSelID bounds the IDs a kept object set covers: its bitset takes
// maxSelID/8 bytes at most (16 MiB).
const maxSelID = 1 << 27

// objectSel is the set of a predicate's objects that pass some tests.
type objectSel struct{ bits []uint64 }

func (s *objectSel) has(id kb.ID) bool {
	i := uint64(id) >> 6
	return i < uint64(len(s.bits)) && s.bits[i]&(1<<(uint64(id)&63)) != 0
}

// levelSel is one level's preselection: the value-order tests of the
// FILTER conjuncts that run right after the level's pattern and are over
// its object alone.
type levelSel struct {
	slot  int   // the object's slot
	pred  kb.ID // the pattern's predicate
	tests []fastTest
	key   string // the conjuncts' text: the kept set's name
	done  bool   // sel was looked for
	sel   *objectSel
}

// compileSels finds the levels of n whose pattern is `?s p ?o` (or with
// a constant subject) with value-order tests over ?o among the filters
// run right after it.
func (ex *executor) compileSels(n *bgpNode, sc scope) error {
	if !bgpSelOn {
		return nil
	}
	for i := range n.pats {
		p := &n.pats[i]
		if p.pos[1].slot >= 0 || p.pos[1].id == 0 || p.pos[2].slot < 0 || !p.src.O.IsVar() || len(n.fsrc[i+1]) == 0 {
			continue
		}
		tests, slot, err := ex.rangeTests(p.src.O.Var, n.fsrc[i+1], sc)
		if err != nil {
			return err
		}
		if len(tests) == 0 {
			continue
		}
		if n.sels == nil {
			n.sels = make([]*levelSel, len(n.pats))
		}
		n.sels[i] = &levelSel{slot: slot, pred: p.pos[1].id, tests: tests, key: "bgp sel" + filterText(n.fsrc[i+1])}
	}
	return nil
}

// selPass reports whether row r, just extended by level's pattern, may
// pass the filters after it: false only when a kept object set says its
// object fails them.
func (n *bgpNode) selPass(ex *executor, level int, r row) (bool, error) {
	s := n.sels[level]
	if s == nil {
		return true, nil
	}
	if !s.done {
		s.done = true
		sel, err := ex.objectSelOf(s)
		if err != nil {
			return false, err
		}
		s.sel = sel
		if sel != nil {
			bgpSelRuns.Add(1)
		}
	}
	if s.sel == nil {
		return true, nil
	}
	return s.sel.has(r[s.slot]), nil
}

// objectSelOf returns s's kept object set, building it from the value
// order (outside the store's lock on derived values, as keptProbe does)
// when the store keeps none yet; nil when the store keeps no value order
// of the predicate, for a one-shot query when none is kept, and when an
// object's ID is past maxSelID.
func (ex *executor) objectSelOf(s *levelSel) (*objectSel, error) {
	pd, ok := ex.ds.(predicateDeriver)
	if !ok {
		return nil, nil
	}
	get := func(build func() (any, int64, error)) (*objectSel, error) {
		v, _, ok, err := pd.PredicateDerived(s.pred, s.key, build)
		if errors.Is(err, errNotKept) || err == nil && !ok {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		sel, _ := v.(*objectSel)
		return sel, nil
	}
	notKept := func() (any, int64, error) { return nil, 0, errNotKept }
	if sel, err := get(notKept); sel != nil || err != nil || ex.opts.OneShot {
		return sel, err
	}
	state := predicateState(ex.ds)
	order, ok, err := ex.numOrderNow(s.pred)
	if err != nil || !ok {
		return nil, err
	}
	ts, decide := ex.rangeDecider(s.slot, s.tests)
	objs, err := order.selectObjects(ts, decide)
	if err != nil {
		return nil, err
	}
	sel := &objectSel{}
	if len(objs) > 0 {
		top := uint64(objs[len(objs)-1]) // ascending
		if top >= maxSelID {
			return nil, nil
		}
		sel.bits = make([]uint64, top/64+1)
		for _, id := range objs {
			sel.bits[uint64(id)>>6] |= 1 << (uint64(id) & 63)
		}
	}
	return get(func() (any, int64, error) {
		if !predicateUnchanged(ex.ds, state, s.pred) {
			return nil, 0, errNotKept
		}
		return sel, int64(len(sel.bits)) * 8, nil
	})
}
