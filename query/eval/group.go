package eval

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"

	"github.com/perfkb/perfkb/ontology"
)

type groupKey struct {
	slot    int
	expr    cexpr
	varSlot int // the slot when the key is a plain variable, else -1
}

type groupAgg struct {
	slot    int
	agg     *algebra.Aggregate
	expr    cexpr   // nil for COUNT(*)
	varSlot int     // the slot when the argument is a plain variable, else -1
	num     numExpr // SUM/AVG: the argument on numbers (numexpr.go), or nil
}

// plainVarSlot returns the slot of e when it is a plain variable, else -1.
func (ex *executor) plainVarSlot(e algebra.Expr) int {
	if ve, ok := e.(*algebra.VarExpr); ok {
		return ex.vars.slot(ve.Var)
	}
	return -1
}

// groupNode materialises its input, partitions it by the key values and
// computes the aggregates of each group (§18.5 Group, Aggregation).
type groupNode struct {
	nodeInfo
	input node
	keys  []groupKey
	aggs  []groupAgg
	src   groupJoinSource // the input BGP, compiled again per worker
	inner scope           // the scope the keys and aggregates were compiled in
	// storeReq is the request a store answered the group with (storeagg.go), for explain.
	storeReq string
}

func (ex *executor) compileGroup(o *algebra.Group, sc scope) (node, error) {
	if n, ok, err := ex.compileAggScan(o, sc); ok || err != nil {
		return n, err
	}
	input, err := ex.compile(o.Input, sc)
	if err != nil {
		return nil, err
	}
	inner := sc.with(sc.seed.union(ex.maybe(o.Input)))
	n := &groupNode{input: input, inner: inner}
	if b, ok := input.(*bgpNode); ok {
		b.borrow = true // the fold keeps no row (its aggregates keep values)
		ex.markExistential(o, b)
		ex.markPrune(o, b)
	}
	if b, ok := ex.plan.Pattern(o.Input).(*algebra.BGP); ok && len(sc.seed) == 0 {
		n.src = groupJoinSource{op: b, sc: sc} // for parallelJoin (groupjoin.go)
	}
	for _, k := range o.Keys {
		e, err := ex.compileExpr(k.Expr, inner)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, groupKey{slot: ex.vars.slot(k.Var), expr: e, varSlot: ex.plainVarSlot(k.Expr)})
	}
	for _, a := range o.Aggregates {
		g := groupAgg{slot: ex.vars.slot(a.Var), agg: a.Aggregate, varSlot: -1}
		if a.Aggregate.Expr != nil {
			g.varSlot = ex.plainVarSlot(a.Aggregate.Expr)
			e, err := ex.compileExpr(a.Aggregate.Expr, inner)
			if err != nil {
				return nil, err
			}
			g.expr = e
			if numAggregate(a.Aggregate) {
				g.num = ex.compileNum(a.Aggregate.Expr)
			}
		}
		n.aggs = append(n.aggs, g)
	}
	return n, nil
}

func (n *groupNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if done, err := n.runStorePushdown(ex, seed, emit); done {
		return err // storeagg.go
	}
	if done, err := n.runPathCount(ex, seed, emit); done {
		return err // pathcount.go
	}
	if w := n.parallelJoin(ex, seed); w > 1 && n.foldsInParallel(w, len(seed)) {
		return n.runFoldParallel(ex, seed, w, emit) // groupfold.go
	}
	groups := map[string]*groupState{}
	byID := map[kb.ID]*groupState{}
	var order []*groupState
	keyIDs := make([]kb.ID, len(n.keys))
	acct := ex.account("GROUP BY")
	defer acct.done()
	groupBytes := n.groupBytes()
	err := n.feed(ex, seed, func(r row) error {
		for i, k := range n.keys {
			if k.varSlot >= 0 && k.varSlot < len(r) {
				// IDs are unique per term within a query: no decoding.
				keyIDs[i] = r[k.varSlot]
				continue
			}
			t, err := k.expr(ex, r)
			keyIDs[i] = 0
			if err != nil {
				if !isExpressionError(err) {
					return err
				}
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return err
			}
			keyIDs[i] = id
		}
		// One key (the usual case) is looked up by its ID; several by
		// their bytes, converted in the index expression so that a lookup
		// allocates no string.
		var g *groupState
		var ok bool
		switch len(keyIDs) {
		case 0:
			g, ok = groups[""]
		case 1:
			g, ok = byID[keyIDs[0]]
		default:
			g, ok = groups[string(unsafe.Slice((*byte)(unsafe.Pointer(&keyIDs[0])), len(keyIDs)*8))]
		}
		if !ok {
			if err := acct.charge(groupBytes); err != nil {
				return err
			}
			g = &groupState{keys: append([]kb.ID(nil), keyIDs...), aggs: make([]aggState, len(n.aggs))}
			if len(keyIDs) == 1 {
				byID[keyIDs[0]] = g
			} else {
				groups[rowKey(keyIDs)] = g
			}
			order = append(order, g)
		}
		for i, a := range n.aggs {
			if err := g.aggs[i].add(ex, a, r, acct); err != nil {
				return err
			}
		}
		return ex.check()
	})
	if err != nil {
		return err
	}
	if len(n.keys) == 0 && len(order) == 0 {
		order = append(order, &groupState{aggs: make([]aggState, len(n.aggs))})
	}
	return n.emitGroups(ex, seed, order, acct, emit)
}

// groupState is one group of a GROUP BY: its key IDs, its aggregates'
// states (only what each needs, not the rows) and, where groups are folded
// on workers, the position of its first row in the serial order.
type groupState struct {
	keys  []kb.ID
	aggs  []aggState
	first int64
}

// groupBytes is what a new group costs: its map entry and key string, its
// place in the order, the struct, its key IDs and its aggregate states.
func (n *groupNode) groupBytes() int64 {
	return keyBytes(len(n.keys), 8) + 8 + int64(unsafe.Sizeof(groupState{})) + allocExtra +
		int64(len(n.keys))*8 + allocExtra + int64(len(n.aggs))*int64(unsafe.Sizeof(aggState{})) + allocExtra
}

// emitGroups emits one row per group, in order: its keys and its
// aggregates' results.
func (n *groupNode) emitGroups(ex *executor, seed row, order []*groupState, acct *account, emit func(row) bool) error {
	for _, g := range order {
		out, _ := hiddenSeed(ex, seed)
		for i, k := range n.keys {
			out[k.slot] = g.keys[i]
		}
		for i, a := range n.aggs {
			t, err := g.aggs[i].chargedResult(a, acct)
			if err != nil {
				if !isExpressionError(err) {
					return err
				}
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return err
			}
			out[a.slot] = id
		}
		if !emit(out) {
			return errStop
		}
	}
	return nil
}

func (n *groupNode) children() []node { return []node{n.input} }
func (n *groupNode) describe() string {
	d := fmt.Sprintf("Group (%d keys, %d aggregates)", len(n.keys), len(n.aggs))
	if n.storeReq != "" {
		d += " (answered by the store in one request)\n    store: " + n.storeReq
	}
	return d
}

// aggState is one aggregate's state for one group, fed row by row, so a
// group keeps what its aggregates need rather than its input rows:
// COUNT(*) and COUNT(?v) a counter, COUNT(DISTINCT …) a set, the others
// their argument's values. (Keeping every row made one COUNT(*) over a
// cross join grow by ~500 MB/s.)
type aggState struct {
	n        int64
	ids      map[kb.ID]struct{}  // COUNT(DISTINCT ?v)
	keys     map[string]struct{} // COUNT(DISTINCT *)
	vals     []kb.Term           // the argument's values, in input order
	seen     map[kb.Term]bool    // DISTINCT values
	firstErr error               // the first expression error of an argument
	fast     fastAgg             // SUM/AVG/MIN/MAX while the values are plain numbers
}

// add feeds one input row of the group, charging what it keeps to acct.
func (st *aggState) add(ex *executor, a groupAgg, r row, acct *account) error {
	agg := a.agg
	switch {
	case agg.Star && !agg.Distinct:
		st.n++
		return nil
	case agg.Star:
		if st.keys == nil {
			st.keys = map[string]struct{}{}
		}
		k := rowKey(r)
		if _, dup := st.keys[k]; dup {
			return nil
		}
		if err := acct.charge(keyBytes(len(r), 0)); err != nil {
			return err
		}
		st.keys[k] = struct{}{}
		return nil
	case agg.Func == algebra.AggCount && a.varSlot >= 0:
		// COUNT of a variable: count bound values by ID (unique per term
		// within a query), without decoding them.
		if a.varSlot >= len(r) || r[a.varSlot] == 0 {
			return nil
		}
		if !agg.Distinct {
			st.n++
			return nil
		}
		if st.ids == nil {
			st.ids = map[kb.ID]struct{}{}
		}
		if _, dup := st.ids[r[a.varSlot]]; dup {
			return nil
		}
		if err := acct.charge(idSetBytes(8, 0)); err != nil {
			return err
		}
		st.ids[r[a.varSlot]] = struct{}{}
		return nil
	}
	if done, err := st.addFast(ex, a, r, acct); done || err != nil {
		return err
	}
	if st.addExtremeID(ex, a, r) {
		return nil
	}
	ex.env.NewRow()
	t, err := a.expr(ex, r)
	if err != nil {
		if !isExpressionError(err) {
			return err
		}
		if st.firstErr == nil {
			st.firstErr = err
		}
		return nil
	}
	if fastAggOn && !agg.Distinct && fastAggFunc(agg.Func) {
		// SUM/AVG/MIN/MAX of plain numbers run as the values come
		// (groupfast.go); a spill hands them to the value list.
		ok, spilled := st.fast.add(agg.Func, t)
		if ok {
			return nil
		}
		if len(spilled) > 0 {
			before := cap(st.vals)
			st.vals = append(st.vals, spilled...)
			if err := acct.charge(int64(cap(st.vals)-before)*termSize + int64(len(spilled[0].Value))); err != nil {
				return err
			}
		}
	}
	if done, err := st.addSlow(agg, t, acct); done || err != nil {
		return err
	}
	if agg.Distinct {
		if st.seen == nil {
			st.seen = map[kb.Term]bool{}
		}
		if st.seen[t] {
			return nil
		}
		if err := acct.charge(idSetBytes(termSize, 1)); err != nil {
			return err
		}
		st.seen[t] = true
	}
	// What the list grew by (append doubles it) and the value's lexical
	// form (computed values have their own).
	before := cap(st.vals)
	st.vals = append(st.vals, t)
	return acct.charge(int64(cap(st.vals)-before)*termSize + int64(len(t.Value)+len(t.Lang)))
}

// chargedResult is result with GROUP_CONCAT's answer, as large as its
// values, charged before it is built, so a query past its budget stops
// without allocating it; the dictionary then charges the term it keeps.
// A budget error is not an expression error: callers return it.
func (st *aggState) chargedResult(a groupAgg, acct *account) (kb.Term, error) {
	joined := st.concatBytes(a)
	if err := acct.charge(joined); err != nil {
		return kb.Term{}, err
	}
	defer acct.release(joined)
	return st.result(a)
}

// concatBytes is the size of the string GROUP_CONCAT builds from the
// group's values (their lexical forms and separators, and the list of
// parts joined); 0 for the other aggregates.
func (st *aggState) concatBytes(a groupAgg) int64 {
	if a.agg.Func != algebra.AggGroupConcat || len(st.vals) == 0 {
		return 0
	}
	n := int64(len(st.vals)-1)*int64(len(a.agg.Separator)) + int64(len(st.vals))*16 + allocExtra
	for _, v := range st.vals {
		n += int64(len(v.Value))
	}
	return n
}

// result computes the aggregate from the group's state.
func (st *aggState) result(a groupAgg) (kb.Term, error) {
	agg := a.agg
	switch {
	case agg.Star && !agg.Distinct:
		return integerTerm(st.n), nil
	case agg.Star:
		return integerTerm(int64(len(st.keys))), nil
	case agg.Func == algebra.AggCount && a.varSlot >= 0:
		if agg.Distinct {
			return integerTerm(int64(len(st.ids))), nil
		}
		return integerTerm(st.n), nil
	}
	vals, firstErr := st.vals, st.firstErr
	if t, ok, err := st.fast.result(agg.Func, firstErr); ok {
		return t, err
	}
	switch agg.Func {
	case algebra.AggCount:
		return integerTerm(int64(len(vals))), nil
	case algebra.AggSum, algebra.AggAvg:
		if firstErr != nil {
			return kb.Term{}, firstErr
		}
		if t, ok, err := fastSumAvg(agg.Func, vals); ok || err != nil {
			return t, err
		}
		sum := function.Numeric{Kind: function.NumInteger, R: new(big.Rat)}
		for _, v := range vals {
			n, ok := function.ParseNumeric(v)
			if !ok {
				return kb.Term{}, typeErr("%s of non-numeric %s", agg.Func, v)
			}
			s, err := arithNumeric('+', sum, n)
			if err != nil {
				return kb.Term{}, err
			}
			sum = s
		}
		if agg.Func == algebra.AggSum {
			return sum.Term(), nil
		}
		if len(vals) == 0 {
			return integerTerm(0), nil
		}
		avg, err := arithNumeric('/', sum, function.Numeric{Kind: function.NumInteger, R: big.NewRat(int64(len(vals)), 1)})
		if err != nil {
			return kb.Term{}, err
		}
		return avg.Term(), nil
	case algebra.AggMin, algebra.AggMax:
		if len(vals) == 0 {
			if firstErr != nil {
				return kb.Term{}, firstErr
			}
			return kb.Term{}, typeErr("%s of an empty group", agg.Func)
		}
		if t, ok := fastMinMax(agg.Func, vals); ok {
			return t, nil
		}
		best := vals[0]
		for _, v := range vals[1:] {
			c := orderCompare(v, best)
			if (agg.Func == algebra.AggMin && c < 0) || (agg.Func == algebra.AggMax && c > 0) {
				best = v
			}
		}
		return best, nil
	case algebra.AggSample:
		if len(vals) == 0 {
			return kb.Term{}, typeErr("SAMPLE of an empty group")
		}
		return vals[0], nil
	case algebra.AggGroupConcat:
		if firstErr != nil {
			return kb.Term{}, firstErr
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v.Kind != kb.KindLiteral {
				return kb.Term{}, typeErr("GROUP_CONCAT of %s", v)
			}
			parts[i] = v.Value
		}
		return kb.String(strings.Join(parts, agg.Separator)), nil
	}
	return kb.Term{}, typeErr("unknown aggregate %s", agg.Func)
}

// fastNumber decodes an xsd:integer, xsd:long or xsd:double literal without
// allocating; ok is false for every other term (use function.ParseNumeric).
func fastNumber(t kb.Term) (i int64, f float64, kind function.NumKind, ok bool) {
	if t.Kind != kb.KindLiteral {
		return 0, 0, 0, false
	}
	switch t.Datatype {
	case ontology.XSDInteger, ontology.XSDLong:
		v, err := strconv.ParseInt(t.Value, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		return v, 0, function.NumInteger, true
	case ontology.XSDDouble:
		n, ok := function.ParseNumeric(t)
		if !ok {
			return 0, 0, 0, false
		}
		return 0, n.F, function.NumDouble, true
	}
	return 0, 0, 0, false
}

// fastSumAvg computes SUM or AVG when every value is an int64-sized
// integer or every value is a double, the common case for metric values,
// without big.Rat arithmetic per value. ok is false to use the general
// path. The results equal the general path's: integer sums are exact and
// double sums add in the same order.
func fastSumAvg(fn algebra.AggregateFunc, vals []kb.Term) (kb.Term, bool, error) {
	if len(vals) == 0 {
		return kb.Term{}, false, nil
	}
	var isum int64
	var fsum float64
	var kind function.NumKind
	for j, v := range vals {
		i, f, k, ok := fastNumber(v)
		if !ok || (j > 0 && k != kind) {
			return kb.Term{}, false, nil
		}
		kind = k
		if k == function.NumInteger {
			if (i > 0 && isum > math.MaxInt64-i) || (i < 0 && isum < math.MinInt64-i) {
				return kb.Term{}, false, nil
			}
			isum += i
		} else {
			fsum += f
		}
	}
	sum := function.Numeric{Kind: function.NumDouble, F: fsum}
	if kind == function.NumInteger {
		sum = function.Numeric{Kind: function.NumInteger, R: new(big.Rat).SetInt64(isum)}
	}
	if fn == algebra.AggSum {
		return sum.Term(), true, nil
	}
	avg, err := arithNumeric('/', sum, function.Numeric{Kind: function.NumInteger, R: big.NewRat(int64(len(vals)), 1)})
	if err != nil {
		return kb.Term{}, false, err
	}
	return avg.Term(), true, nil
}

// fastMinMax computes MIN or MAX when every value is an int64-sized
// integer or every value is a double, comparing decoded numbers; ties and
// NaNs go through orderCompare as in the general path.
func fastMinMax(fn algebra.AggregateFunc, vals []kb.Term) (kb.Term, bool) {
	bi, bf, kind, ok := fastNumber(vals[0])
	if !ok {
		return kb.Term{}, false
	}
	best := vals[0]
	for _, v := range vals[1:] {
		i, f, k, ok := fastNumber(v)
		if !ok || k != kind {
			return kb.Term{}, false
		}
		c := 0
		switch {
		case k == function.NumInteger && i < bi, k == function.NumDouble && f < bf:
			c = -1
		case k == function.NumInteger && i > bi, k == function.NumDouble && f > bf:
			c = 1
		default: // equal or NaN
			c = orderCompare(v, best)
		}
		if (fn == algebra.AggMin && c < 0) || (fn == algebra.AggMax && c > 0) {
			best, bi, bf = v, i, f
		}
	}
	return best, true
}
