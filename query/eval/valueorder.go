package eval

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// Value-ordered access for numeric FILTERs over one predicate's objects:
// `?s p ?o FILTER(?o >= c)` under an aggregate (Sparqloscope's
// numeric-filter-bin-search family, an analyst's "how many metrics above
// c"). Instead of decoding every quad's object, the evaluator keeps p's
// distinct objects sorted by numeric value (built once per state of the
// store, kept by the store beside its read side: kb/native/objorder.go),
// binary-searches the constant, and reads the quads of the objects that
// pass, in ID order, as the full scan would have met them.
//
// Exactness. SPARQL compares numbers after promotion (value.go:
// compareNumeric): an integer or decimal meeting a double becomes the
// double nearest it, a float meeting a double stays exact, and integers
// and decimals compare exactly with each other. Each object's sort key is
// the double nearest its value (exact for doubles and floats), and
// rounding to nearest is monotone, so:
//   - against a double constant (or a double object) every comparison
//     is the comparison of the keys, decided by the search;
//   - an integer or decimal against an integer or decimal constant is
//     decided by the keys where they differ from the constant's nearest
//     double, and the objects whose key equals it (a tie band, usually
//     empty) are decided one by one the general way;
//   - floats against an integer or decimal constant (promoted to float),
//     NaN, non-numeric and ill-typed literals, IRIs and blank nodes are
//     decided one by one the general way (most of them are type errors,
//     which drop the row).
// Everything decided one by one is decided per distinct object, not per
// quad: the test reads only ?o.

// objectsDeriver is implemented by stores that keep values derived from a
// predicate's distinct objects for as long as the store is unchanged (the
// native stores, while reads come from memory).
type objectsDeriver interface {
	ObjectsDerived(p kb.ID, kind string, build func(objects []kb.ID) (any, error)) (any, bool, error)
}

// termKinder is implemented by stores that tell a term's kind from its ID
// without decoding the term.
type termKinder interface {
	TermKindOf(id kb.ID) (kb.TermKind, bool)
}

// kind returns the kind of the term id names, without decoding it where
// the store can tell.
func (d *dictionary) kind(id kb.ID) (kb.TermKind, error) {
	if id != 0 && !isTemp(id) {
		if tk, ok := d.ds.(termKinder); ok {
			if k, ok := tk.TermKindOf(id); ok {
				return k, nil
			}
		}
	}
	t, err := d.term(id)
	return t.Kind, err
}

// numOrderKind names the numeric order among a predicate's derived values.
const numOrderKind = "eval.numOrder"

// numEntry is one object in a numeric order: its value's nearest double
// and its ID.
type numEntry struct {
	v  float64
	id kb.ID
}

// numOrder is a predicate's distinct objects by numeric value.
type numOrder struct {
	// runs by kind, each sorted by v: doubles, integers and decimals,
	// floats (none NaN).
	runs [3][]numEntry
	rest []kb.ID // NaN, non-numbers and ill-typed literals
}

const (
	runDouble = iota
	runExact  // integers and decimals
	runFloat
)

// valueOrderOn turns the value-ordered path on; tests compare it with the
// scan.
var valueOrderOn = true

// valueOrderRuns counts the scans that read a value order (tests check
// that the native stores did).
var valueOrderRuns atomic.Int64

// buildNumOrder sorts objects by numeric value.
func buildNumOrder(ex *executor, objects []kb.ID) (*numOrder, error) {
	o := &numOrder{}
	for _, id := range objects {
		t, err := ex.dict.term(id)
		if err != nil {
			return nil, err
		}
		run, v, ok := numKey(t)
		if !ok {
			o.rest = append(o.rest, id)
			continue
		}
		o.runs[run] = append(o.runs[run], numEntry{v, id})
	}
	for _, r := range o.runs {
		slices.SortFunc(r, func(a, b numEntry) int { return cmp.Compare(a.v, b.v) })
	}
	return o, nil
}

// numKey returns a term's run and sort key, or false for the rest.
func numKey(t kb.Term) (run int, v float64, ok bool) {
	if i, f, k, fast := fastNumber(t); fast {
		if k == function.NumInteger {
			return runExact, float64(i), true // rounds to nearest
		}
		if math.IsNaN(f) {
			return 0, 0, false
		}
		return runDouble, f, true
	}
	n, ok := function.ParseNumeric(t)
	if !ok || n.IsNaN() {
		return 0, 0, false
	}
	switch n.Kind {
	case function.NumDouble:
		return runDouble, n.F, true
	case function.NumFloat:
		return runFloat, n.F, true
	}
	return runExact, n.Float64(), true
}

// orderable reports whether the value order can decide t: an ordering
// comparison or = of the object with a numeric constant.
func (t *fastTest) orderable(pos int) bool {
	if t.pos != pos || t.vars || t.kind != 0 || !t.cDbl {
		return false
	}
	switch t.op {
	case algebra.OpLess, algebra.OpLessEq, algebra.OpGreater, algebra.OpGreatEq, algebra.OpEqual:
		return true
	}
	return false
}

// orderedTests returns the indexes of the node's tests the value order of
// the object decides: the pattern must be `?s p ?o` with p a constant.
func (n *aggScanNode) orderedTests() []int {
	if n.pat[1].slot >= 0 || n.pat[2].slot < 0 || n.pat[0].slot < 0 || n.missing != "" {
		return nil
	}
	var idx []int
	for i := range n.tests {
		if n.tests[i].orderable(2) {
			idx = append(idx, i)
		}
	}
	return idx
}

// orderedObjects returns, when the store keeps value orders, the objects
// of the node's predicate that pass the tests at idx (ascending IDs) and
// the remaining tests, for a scan of those objects' quads; ok is false to
// scan every quad.
func (n *aggScanNode) orderedObjects(ex *executor, seed row, idx []int) (objs []kb.ID, rest []fastTest, ok bool, err error) {
	if len(idx) == 0 {
		return nil, nil, false, nil
	}
	order, ok, err := ex.numOrderNow(n.pat[1].id)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	valueOrderRuns.Add(1)
	tests := make([]*fastTest, len(idx))
	for j, i := range idx {
		tests[j] = &n.tests[i]
	}
	r := seed.clone(len(seed))
	slot := n.pat[2].slot
	decide := func(t *fastTest, id kb.ID) (bool, error) {
		r[slot] = id
		return t.decide(ex, id, r)
	}
	objs, err = order.selectObjects(tests, decide)
	if err != nil {
		return nil, nil, false, err
	}
	for i := range n.tests {
		if !slices.Contains(idx, i) {
			rest = append(rest, n.tests[i])
		}
	}
	return objs, rest, true, nil
}

// interval is a run's entries [lo, hi).
type interval struct{ lo, hi int }

// selectObjects returns the objects that pass every test, in ascending
// ID order; decide settles one object's test the general way.
func (o *numOrder) selectObjects(tests []*fastTest, decide func(*fastTest, kb.ID) (bool, error)) ([]kb.ID, error) {
	var out []kb.ID
	if err := o.eachPassing(tests, decide, func(id kb.ID) { out = append(out, id) }); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// eachPassing calls fn with every object of the order that passes all
// tests: per run, binary searches narrow the entries to those the keys
// may pass, and only entries inside some test's tie band are decided the
// general way; the objects outside the runs are all decided so.
func (o *numOrder) eachPassing(tests []*fastTest, decide func(*fastTest, kb.ID) (bool, error), fn func(kb.ID)) error {
	ties := make([]interval, len(tests))
	for run, entries := range o.runs {
		span := interval{0, len(entries)}
		for j, t := range tests {
			keep, tie := searchRun(entries, run, t)
			span.lo, span.hi = max(span.lo, keep.lo), min(span.hi, keep.hi)
			ties[j] = tie
		}
	entry:
		for i := span.lo; i < span.hi; i++ {
			for j, t := range tests {
				if i < ties[j].lo || i >= ties[j].hi {
					continue
				}
				ok, err := decide(t, entries[i].id)
				if err != nil {
					return err
				}
				if !ok {
					continue entry
				}
			}
			fn(entries[i].id)
		}
	}
rest:
	for _, id := range o.rest {
		for _, t := range tests {
			ok, err := decide(t, id)
			if err != nil {
				return err
			}
			if !ok {
				continue rest
			}
		}
		fn(id)
	}
	return nil
}

// searchRun returns the entries of one run that may pass t (keep) and,
// among them, those the keys cannot decide (tie).
func searchRun(entries []numEntry, run int, t *fastTest) (keep, tie interval) {
	n := len(entries)
	exact := run == runDouble || t.ckind == function.NumDouble
	if run == runFloat && !exact {
		return interval{0, n}, interval{0, n}
	}
	c := t.cf
	lb := sort.Search(n, func(i int) bool { return entries[i].v >= c })
	ub := sort.Search(n, func(i int) bool { return entries[i].v > c })
	if !exact {
		tie = interval{lb, ub}
		switch t.op {
		case algebra.OpGreater, algebra.OpGreatEq:
			return interval{lb, n}, tie
		case algebra.OpLess, algebra.OpLessEq:
			return interval{0, ub}, tie
		}
		return interval{lb, ub}, tie
	}
	switch t.op {
	case algebra.OpGreater:
		return interval{ub, n}, tie
	case algebra.OpGreatEq:
		return interval{lb, n}, tie
	case algebra.OpLess:
		return interval{0, lb}, tie
	case algebra.OpLessEq:
		return interval{0, ub}, tie
	}
	return interval{lb, ub}, tie
}

// sparseObjects is how many selected objects are read one by one (an
// index seek each); more are picked out of one scan of the predicate.
const sparseObjects = 512

// objectsIn filters a scan's quads to those whose object is in objs
// (ascending IDs). Along the predicate's P-O-S-G order the objects come
// ascending too, so a cursor into objs that only moves forward decides
// each quad in amortised constant time; a quad out of that order seeks.
func objectsIn(objs []kb.ID, visit func(kb.Quad) error) func(kb.Quad) error {
	i := 0
	return func(q kb.Quad) error {
		if i > 0 && q.O < objs[i-1] {
			i, _ = slices.BinarySearch(objs, q.O)
		}
		for i < len(objs) && objs[i] < q.O {
			i++
		}
		if i < len(objs) && objs[i] == q.O {
			return visit(q)
		}
		return nil
	}
}

// objectQuadScanner is implemented by stores that read the quads of a
// predicate's selected objects by galloping through its sorted keys.
type objectQuadScanner interface {
	ScanObjectQuads(ctx context.Context, p, g kb.ID, objs []kb.ID, fn func(kb.Quad) bool) (bool, error)
}

// scanSelected visits pat's matches whose object is in objs (ascending
// IDs): through the store's ScanObjectQuads where it can, else by one
// seek per object, or for many objects by one scan of the predicate.
func (n *aggScanNode) scanSelected(ex *executor, pat kb.Pattern, objs []kb.ID, visit func(kb.Quad) error) error {
	if len(objs) == 0 {
		return nil
	}
	if os, ok := ex.ds.(objectQuadScanner); ok && pat.S == 0 && pat.O == 0 {
		var inner error
		done, err := os.ScanObjectQuads(ex.ctx, pat.P, pat.G, objs, func(q kb.Quad) bool {
			inner = visit(q)
			return inner == nil
		})
		if inner != nil {
			return inner
		}
		if err != nil || done {
			return err
		}
	}
	if len(objs) > sparseObjects {
		return scanPattern(ex, pat, objectsIn(objs, visit))
	}
	for _, o := range objs {
		pat.O = o
		if err := scanPattern(ex, pat, visit); err != nil {
			return err
		}
	}
	return nil
}
