package eval

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/opt"
)

// Value-ordered patterns in a BGP. A FILTER over one pattern's object
// alone (`?m hasMetricValue ?v FILTER(?v >= 3E8)`) usually runs after
// the join has found every candidate row. Where the store keeps the
// predicate's objects ordered by value (valueorder.go), the planner asks
// how many quads pass (planStats.RangeCount) and may start the join from
// that pattern: its level then enumerates only the passing objects, one
// lookup each, instead of scanning the predicate (or probing it per row
// and filtering). On the scalea data Fig. 6.29's filter keeps one of
// 208,081 metric values, so the join starts from one metric instead of
// 26,101 (hasMetric of gsr410's region summaries).
//
// The FILTER still runs where opt placed it, so the selection only has
// to hold every object that passes (selectObjects returns exactly those,
// deciding ties and non-numbers the general way).

// rangeSel is the value-order restriction of one pattern's object
// (`?s p ?o`, ?s a variable).
type rangeSel struct {
	slot  int        // the object's slot
	tests []fastTest // the conjuncts over the object a value order decides
	done  bool       // objs is computed
	ok    bool       // the store keeps a value order for the predicate
	objs  []kb.ID    // the passing objects, ascending
}

// bgpRangeRuns counts the BGP levels that enumerated a value order's
// objects (tests check that the native stores did).
var bgpRangeRuns atomic.Int64

// rangeTests compiles the conjuncts of exprs whose only variable is v
// and returns those a value order of v's pattern decides.
func (ex *executor) rangeTests(v algebra.Var, exprs []algebra.Expr, sc scope) ([]fastTest, int, error) {
	slot := ex.vars.slot(v)
	slotPos := map[int]int{slot: 2}
	var tests []fastTest
	for _, e := range exprs {
		vs := opt.VarSet{}
		opt.ExprVars(e, vs)
		if len(vs) != 1 || !vs[v] {
			continue
		}
		c, err := ex.compileExpr(e, sc)
		if err != nil {
			return nil, 0, err
		}
		t := fastTest{pos: -1, expr: c}
		t.analyse(ex, e, slotPos)
		if t.orderable(2) {
			tests = append(tests, t)
		}
	}
	return tests, slot, nil
}

// selectByValue returns the objects of predicate p that pass tests
// (ascending IDs) and how many distinct objects p has, or ok false when
// the store keeps no value order.
func (ex *executor) selectByValue(p kb.ID, slot int, tests []fastTest) (objs []kb.ID, distinct int, ok bool, err error) {
	order, ok, err := ex.numOrderNow(p)
	if err != nil || !ok {
		return nil, 0, false, err
	}
	ts, decide := ex.rangeDecider(slot, tests)
	objs, err = order.selectObjects(ts, decide)
	if err != nil {
		return nil, 0, false, err
	}
	return objs, order.size(), true, nil
}

// numOrderOf returns the store's value order of p's objects, or false
// when it keeps none.
func (ex *executor) numOrderOf(p kb.ID) (*numOrder, bool, error) {
	od, isOD := ex.ds.(objectsDeriver)
	if !valueOrderOn || !isOD || ex.dict.table == nil {
		return nil, false, nil
	}
	v, ok, err := numOrderDerived(od, p, func(objects []kb.ID) (any, error) {
		return buildNumOrder(ex, objects)
	})
	if err != nil || !ok {
		return nil, false, err
	}
	return v.(*numOrder), true, nil
}

// keptNumOrderOf returns p's value order if the store already keeps one
// for its current state, without building it.
func (ex *executor) keptNumOrderOf(p kb.ID) (*numOrder, bool) {
	od, isOD := ex.ds.(keptObjectsDeriver)
	if !valueOrderOn || !isOD || ex.dict.table == nil {
		return nil, false
	}
	v, ok := od.ObjectsDerivedKept(p, numOrderKind)
	if !ok {
		return nil, false
	}
	return v.(*numOrder), true
}

// keptObjectsDeriver is implemented by stores that tell whether a derived
// value is already built (kb/native).
type keptObjectsDeriver interface {
	ObjectsDerivedKept(p kb.ID, kind string) (any, bool)
}

// rangeDecider returns copies of tests (they memoise verdicts) and the
// function deciding one of them for an object the general way.
func (ex *executor) rangeDecider(slot int, tests []fastTest) ([]*fastTest, func(*fastTest, kb.ID) (bool, error)) {
	ts := make([]*fastTest, len(tests))
	for i := range tests {
		t := tests[i]
		ts[i] = &t
	}
	r := make(row, max(ex.vars.n(), slot+1))
	return ts, func(t *fastTest, id kb.ID) (bool, error) {
		r[slot] = id
		return t.decide(ex, id, r)
	}
}

// size is how many distinct objects the order holds.
func (o *numOrder) size() int {
	n := len(o.rest)
	for _, run := range o.runs {
		n += len(run)
	}
	return n
}

// countObjects is selectObjects' count of the objects that pass, without
// collecting or sorting them (the planner's estimate).
//
// The planner asks for it on every query with a range FILTER, so it does
// not visit the entries a run's binary searches already decided: a
// run's span counts whole, and only the entries inside some test's tie
// band, where the key alone does not settle the test, are decided the
// general way (eachPassing visits every passing entry: 33,516 of them
// for Fig. 6.29's `?value >= 3E8` at 5M, 6 % of the served query's CPU).
func (o *numOrder) countObjects(tests []*fastTest, decide func(*fastTest, kb.ID) (bool, error)) (int, error) {
	count := 0
	ties := make([]interval, len(tests))
	for run, entries := range o.runs {
		span := interval{0, len(entries)}
		for j, t := range tests {
			keep, tie := searchRun(entries, run, t)
			span.lo, span.hi = max(span.lo, keep.lo), min(span.hi, keep.hi)
			ties[j] = tie
		}
		if span.lo >= span.hi {
			continue
		}
		count += span.hi - span.lo
		// The entries of the span some tie band covers: [lo, hi).
		lo, hi := span.hi, span.lo
		for _, tie := range ties {
			if b := (interval{max(tie.lo, span.lo), min(tie.hi, span.hi)}); b.lo < b.hi {
				lo, hi = min(lo, b.lo), max(hi, b.hi)
			}
		}
	entry:
		for i := lo; i < hi; i++ {
			for j, t := range tests {
				if i < ties[j].lo || i >= ties[j].hi {
					continue
				}
				ok, err := decide(t, entries[i].id)
				if err != nil {
					return 0, err
				}
				if !ok {
					count--
					continue entry
				}
			}
		}
	}
rest:
	for _, id := range o.rest {
		for _, t := range tests {
			ok, err := decide(t, id)
			if err != nil {
				return 0, err
			}
			if !ok {
				continue rest
			}
		}
		count++
	}
	return count, nil
}

// RangeCount implements opt.RangeStats: p's quads in graph scaled by the
// share of p's distinct objects that pass.
func (s planStats) RangeCount(ctx context.Context, tp algebra.TriplePattern, graph algebra.Node, filters []algebra.Expr) (quads, objects float64, ok bool, err error) {
	ex := s.ex
	if tp.P.IsVar() || !tp.O.IsVar() {
		return 0, 0, false, nil
	}
	pid, known, err := ex.dict.lookup(tp.P.Term)
	if err != nil || !known {
		return 0, 0, false, err
	}
	tests, slot, err := ex.rangeTests(tp.O.Var, filters, scope{seed: varSet{}})
	if err != nil || len(tests) == 0 {
		return 0, 0, false, err
	}
	var order *numOrder
	if ex.opts.OneShot {
		order, ok = ex.keptNumOrderOf(pid)
	} else {
		order, ok, err = ex.numOrderNow(pid)
	}
	if err != nil || !ok || order.size() == 0 {
		return 0, 0, false, err
	}
	ts, decide := ex.rangeDecider(slot, tests)
	passing, err := order.countObjects(ts, decide)
	if err != nil {
		return 0, 0, false, err
	}
	all, err := s.Count(ctx, algebra.TriplePattern{S: algebra.VarNode("s"), P: tp.P, O: algebra.VarNode("o")}, graph)
	if err != nil {
		return 0, 0, false, err
	}
	return all * float64(passing) / float64(order.size()), float64(passing), true, nil
}

// compileRanges gives the patterns opt planned as value-ordered their
// tests, from the BGP's filters (every level's: a conjunct over the
// object alone may be placed at any level the object is bound).
func (ex *executor) compileRanges(n *bgpNode, bp *opt.BGPPlan, sc scope) error {
	if bp.Ranged == nil {
		return nil
	}
	var all []algebra.Expr
	for _, exprs := range bp.Filters {
		all = append(all, exprs...)
	}
	for i := range n.pats {
		p := &n.pats[i]
		if !bp.Ranged[i] || p.pos[0].slot < 0 || p.pos[1].slot >= 0 || p.pos[2].slot < 0 {
			continue
		}
		tests, slot, err := ex.rangeTests(p.src.O.Var, all, sc)
		if err != nil {
			return err
		}
		if len(tests) > 0 && slot == p.pos[2].slot {
			p.rng = &rangeSel{slot: slot, tests: tests}
		}
	}
	return nil
}

// matchRanged runs a level whose pattern is value-ordered and whose
// subject and object are unbound in r (a scan of the predicate
// otherwise): once per passing object, with the object
// bound. ok is false when the store keeps no value order (the level then
// runs as usual).
func (n *bgpNode) matchRanged(ex *executor, level int, r row, emit func(row) bool) (bool, error) {
	rs := n.pats[level].rng
	if !rs.done {
		objs, _, ok, err := ex.selectByValue(n.pats[level].pos[1].id, rs.slot, rs.tests)
		if err != nil {
			return true, err
		}
		rs.objs, rs.ok, rs.done = objs, ok, true
	}
	if !rs.ok {
		return false, nil
	}
	bgpRangeRuns.Add(1)
	for _, o := range rs.objs {
		r[rs.slot] = o
		err := n.match(ex, level, r, emit)
		r[rs.slot] = 0
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// orderBuilds are the value orders handed to Options.Background and not
// yet built, by store and predicate, so that the queries meanwhile hand
// over no second build.
var orderBuilds sync.Map // orderBuildKey → struct{}

type orderBuildKey struct {
	ds uintptr
	p  kb.ID
}

// numOrderNow returns p's value order. With Options.Background (a
// server) it returns only one the store keeps and, when there is none,
// hands its build to Background and reports false: building the order of
// a predicate of millions of objects (after a write to it dropped the
// last one) took a light query tens of milliseconds. The caller then
// plans without the order, or tests each row's object itself.
func (ex *executor) numOrderNow(p kb.ID) (*numOrder, bool, error) {
	run := ex.opts.Background
	v := reflect.ValueOf(ex.ds)
	if run == nil || v.Kind() != reflect.Pointer {
		return ex.numOrderOf(p)
	}
	if order, ok := ex.keptNumOrderOf(p); ok {
		return order, true, nil
	}
	od, isOD := ex.ds.(objectsDeriver)
	if !valueOrderOn || !isOD || ex.dict.table == nil {
		return nil, false, nil
	}
	key := orderBuildKey{v.Pointer(), p}
	if _, busy := orderBuilds.LoadOrStore(key, struct{}{}); busy {
		return nil, false, nil
	}
	ds := ex.ds
	go run(func() {
		defer orderBuilds.Delete(key)
		ctx := context.Background()
		bex := &executor{ctx: ctx, ds: ds, dict: newDictionary(ctx, ds)}
		_, _, _ = numOrderDerived(od, p, func(objects []kb.ID) (any, error) {
			return buildNumOrder(bex, objects)
		})
	})
	return nil, false, nil
}
