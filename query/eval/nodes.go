package eval

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// errStop is returned when a consumer asked for no more rows.
var errStop = errors.New("eval: stop")

// node is a physical plan operator. run evaluates it with the bindings of
// seed substituted (seed is read-only) and passes each solution to emit,
// which owns the row; emit returns false to stop early (run then returns
// errStop).
type node interface {
	run(ex *executor, seed row, emit func(row) bool) error
	info() *nodeInfo
	children() []node
	describe() string
}

// nodeInfo holds the explain counters of a node.
type nodeInfo struct {
	est    float64 // estimated rows per run; <0 unknown
	actual int64   // rows emitted over the whole evaluation
	runs   int64
}

func (n *nodeInfo) info() *nodeInfo { return n }

// emitCounting wraps emit to count rows for explain.
func (n *nodeInfo) count(emit func(row) bool) func(row) bool {
	n.runs++
	return func(r row) bool { n.actual++; return emit(r) }
}

// runInner evaluates child with seed and calls each on its rows, turning an
// error inside each into the return value.
func runInner(ex *executor, child node, seed row, each func(row) error) error {
	var inner error
	err := child.run(ex, seed, func(r row) bool {
		if e := each(r); e != nil {
			inner = e
			return false
		}
		return true
	})
	if inner != nil {
		return inner
	}
	return err
}

// compatible reports whether two rows agree on every slot bound in both.
func compatibleRows(a, b row) bool {
	for i, x := range a {
		if x != 0 && b[i] != 0 && b[i] != x {
			return false
		}
	}
	return true
}

// merge returns a new row with the bindings of a and b (compatible).
func merge(a, b row) row {
	out := make(row, len(a))
	for i := range out {
		if a[i] != 0 {
			out[i] = a[i]
		} else {
			out[i] = b[i]
		}
	}
	return out
}

func rowKey(r row) string {
	if len(r) == 0 {
		return ""
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&r[0])), len(r)*8))
}

// ---- seed / empty ----

type seedNode struct{ nodeInfo }

func (n *seedNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if !emit(seed.clone(len(seed))) {
		return errStop
	}
	return nil
}
func (n *seedNode) children() []node { return nil }
func (n *seedNode) describe() string { return "Seed" }

type emptyNode struct {
	nodeInfo
	why string
}

func (n *emptyNode) run(*executor, row, func(row) bool) error { return nil }
func (n *emptyNode) children() []node                         { return nil }
func (n *emptyNode) describe() string                         { return "Empty (" + n.why + ")" }

// ---- joins ----

// joinNode is an index nested-loop join: each left row seeds the right side.
// With hash set, once the right side has been fed hash.threshold rows it
// is evaluated alone, hashed and joined by value (hash join).
type joinNode struct {
	nodeInfo
	left, right node
	hash        *hashRight
}

func (n *joinNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.left, seed, func(l row) error {
		if n.hash != nil {
			t, err := n.hash.table(ex, l)
			if err != nil {
				return err
			}
			if t != nil {
				for _, r := range t.lookup(ex, l, n.hash.keys) {
					if compatibleRows(l, r) && !emit(merge(l, r)) {
						return errStop
					}
				}
				return ex.check()
			}
		}
		return n.right.run(ex, l, emit)
	})
}
func (n *joinNode) children() []node {
	if n.hash != nil {
		return []node{n.left, n.right, n.hash.build}
	}
	return []node{n.left, n.right}
}
func (n *joinNode) describe() string {
	if n.hash != nil {
		return "NestedLoopJoin (right side " + n.hash.describe() + ")"
	}
	return "NestedLoopJoin"
}

// hashJoinNode evaluates right on its own once (per active graph),
// materialises it with a hash index, and joins each left row by value.
type hashJoinNode struct {
	nodeInfo
	left, right node
	cache       map[string]*materialized
}

type materialized struct {
	rows  []row
	slot  int // index slot bound in every row, or -1
	index map[kb.ID][]row
}

func hiddenSeed(ex *executor, r row) (row, string) {
	seed := ex.newRow()
	for s := range ex.vars.hidden {
		seed[s] = r[s]
	}
	return seed, rowKey(seed)
}

// materialize evaluates child once per hidden seed (active graph) and
// keeps its rows, indexed, for the rest of the query; op names the
// operator for the memory budget.
func (ex *executor) materialize(child node, r row, cache *map[string]*materialized, op string) (*materialized, error) {
	seed, key := hiddenSeed(ex, r)
	if *cache == nil {
		*cache = map[string]*materialized{}
	}
	if m, ok := (*cache)[key]; ok {
		return m, nil
	}
	m := &materialized{slot: -1}
	var memErr error
	err := child.run(ex, seed, func(r row) bool {
		// Kept until the query ends (the table is cached), so charged to
		// the query, never released.
		if memErr = ex.mem.charge(rowBytes(len(r))+8, op); memErr != nil {
			return false
		}
		m.rows = append(m.rows, r)
		return ex.check() == nil
	})
	if memErr != nil {
		return nil, memErr
	}
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	if err := ctxErr(ex.ctx); err != nil {
		return nil, err
	}
	if len(m.rows) > 8 {
	slots:
		for s := 0; s < ex.vars.n(); s++ {
			if ex.vars.hidden[s] {
				continue
			}
			for _, r := range m.rows {
				if r[s] == 0 {
					continue slots
				}
			}
			m.slot = s
			break
		}
		if m.slot >= 0 {
			// At most one entry and one row reference per row.
			if err := ex.mem.charge(int64(len(m.rows))*(sliceHeader+idSetBytes(8, sliceHeader)), op); err != nil {
				return nil, err
			}
			m.index = map[kb.ID][]row{}
			for _, r := range m.rows {
				m.index[r[m.slot]] = append(m.index[r[m.slot]], r)
			}
		}
	}
	(*cache)[key] = m
	return m, nil
}

func (m *materialized) candidates(l row) []row {
	if m.slot >= 0 && l[m.slot] != 0 {
		return m.index[l[m.slot]]
	}
	return m.rows
}

func (n *hashJoinNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.left, seed, func(l row) error {
		m, err := ex.materialize(n.right, l, &n.cache, "a join's right side (subquery, OPTIONAL or EXISTS pattern)")
		if err != nil {
			return err
		}
		for _, r := range m.candidates(l) {
			if compatibleRows(l, r) {
				if !emit(merge(l, r)) {
					return errStop
				}
			}
		}
		return ex.check()
	})
}
func (n *hashJoinNode) children() []node { return []node{n.left, n.right} }
func (n *hashJoinNode) describe() string { return "HashJoin (right side evaluated once)" }

// leftJoinNode implements OPTIONAL: the right side is seeded with each left
// row; the filter sees the merged row (§18.5 LeftJoin).
// With hash set, once the right side has been fed hash.threshold rows it
// is evaluated alone, hashed, and joined by value (hash left join); the
// filter is then the join condition, tested on each merged candidate.
type leftJoinNode struct {
	nodeInfo
	left, right node
	exprs       []cexpr
	exprText    string
	hash        *hashRight
}

func (n *leftJoinNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.left, seed, func(l row) error {
		if n.hash != nil {
			t, err := n.hash.table(ex, l)
			if err != nil {
				return err
			}
			if t != nil {
				return n.probe(ex, t, l, emit)
			}
		}
		found := false
		err := runInner(ex, n.right, l, func(m row) error {
			ok, err := ex.filterRow(n.exprs, m)
			if err != nil || !ok {
				return err
			}
			found = true
			if !emit(m) {
				return errStop
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !found && !emit(l) {
			return errStop
		}
		return nil
	})
}

// probe joins left row l with its candidates in the hashed right side t.
func (n *leftJoinNode) probe(ex *executor, t *rowTable, l row, emit func(row) bool) error {
	found := false
	for _, r := range t.lookup(ex, l, n.hash.keys) {
		if !compatibleRows(l, r) {
			continue
		}
		m := merge(l, r)
		ok, err := ex.filterRow(n.exprs, m)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		found = true
		if !emit(m) {
			return errStop
		}
	}
	if !found && !emit(l) {
		return errStop
	}
	return ex.check()
}

func (n *leftJoinNode) children() []node {
	if n.hash != nil {
		return []node{n.left, n.right, n.hash.build}
	}
	return []node{n.left, n.right}
}
func (n *leftJoinNode) describe() string {
	s := "LeftJoin"
	if n.exprText != "" {
		s += " " + n.exprText
	}
	if n.hash != nil {
		s += " (right side " + n.hash.describe() + ")"
	}
	return s
}

// minusNode removes left rows compatible with a right row that shares a
// bound variable (§18.5 Minus).
type minusNode struct {
	nodeInfo
	left, right node
	cache       map[string]*materialized
}

func (n *minusNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.left, seed, func(l row) error {
		m, err := ex.materialize(n.right, l, &n.cache, "MINUS")
		if err != nil {
			return err
		}
	rights:
		for _, r := range m.candidates(l) {
			shared := false
			for i, x := range l {
				if x == 0 || r[i] == 0 || ex.vars.hidden[i] {
					continue
				}
				if r[i] != x {
					continue rights
				}
				shared = true
			}
			if shared {
				return nil
			}
		}
		if !emit(l) {
			return errStop
		}
		return nil
	})
}
func (n *minusNode) children() []node { return []node{n.left, n.right} }
func (n *minusNode) describe() string { return "Minus" }

type unionNode struct {
	nodeInfo
	left, right node
}

func (n *unionNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if err := n.left.run(ex, seed, emit); err != nil {
		return err
	}
	return n.right.run(ex, seed, emit)
}
func (n *unionNode) children() []node { return []node{n.left, n.right} }
func (n *unionNode) describe() string { return "Union" }

// ---- filters and bindings ----

type filterNode struct {
	nodeInfo
	input node
	exprs []cexpr
	text  func() string // explain text, formatted on demand
}

// filterRow reports whether every expression's EBV is true; expression
// errors count as false.
func (ex *executor) filterRow(exprs []cexpr, r row) (bool, error) {
	for _, e := range exprs {
		t, err := e(ex, r)
		if err != nil {
			if isExpressionError(err) {
				return false, nil
			}
			return false, err
		}
		b, err := effectiveBool(t)
		if err != nil || !b {
			return false, nil
		}
	}
	return true, nil
}

func (n *filterNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.input, seed, func(r row) error {
		ok, err := ex.filterRow(n.exprs, r)
		if err != nil || !ok {
			return err
		}
		if !emit(r) {
			return errStop
		}
		return nil
	})
}
func (n *filterNode) children() []node { return []node{n.input} }
func (n *filterNode) describe() string { return "Filter " + n.text() }

type extendNode struct {
	nodeInfo
	input node
	slot  int
	expr  cexpr
	text  func() string // explain text, formatted on demand
	from  int           // the slot expr copies when it is a plain variable, else -1
}

func (n *extendNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.input, seed, func(r row) error {
		ex.env.newSolution(r)
		id, ok, err := ex.termID(n.expr(ex, r))
		if err != nil {
			return err
		}
		if ok {
			if r[n.slot] != 0 && r[n.slot] != id {
				return nil
			}
			r[n.slot] = id
		}
		if !emit(r) {
			return errStop
		}
		return nil
	})
}

// termID is the query dictionary's ID of an expression's value; ok is
// false when the expression raised an error, which leaves the variable
// unbound (SPARQL 1.1, 18.5 Extend), and err reports any other failure.
func (ex *executor) termID(t kb.Term, err error) (id kb.ID, ok bool, _ error) {
	if err != nil {
		if isExpressionError(err) {
			return 0, false, nil
		}
		return 0, false, err
	}
	id, err = ex.dict.id(t)
	return id, err == nil, err
}

func (n *extendNode) children() []node { return []node{n.input} }
func (n *extendNode) describe() string { return "Extend " + n.text() }

type tableNode struct {
	nodeInfo
	slots   []int
	rows    [][]kb.ID
	charged bool // the rows are charged to the query's memory budget
}

func (n *tableNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if !n.charged {
		// The rows live as long as the plan: charged once, at the first
		// run (they were built at compile time from the query text).
		if err := ex.mem.charge(int64(len(n.rows))*rowBytes(len(n.slots)), "VALUES"); err != nil {
			return err
		}
		n.charged = true
	}
rows:
	for _, tr := range n.rows {
		out := seed.clone(len(seed))
		for i, s := range n.slots {
			if tr[i] == 0 {
				continue
			}
			if out[s] != 0 && out[s] != tr[i] {
				continue rows
			}
			out[s] = tr[i]
		}
		if !emit(out) {
			return errStop
		}
	}
	return nil
}
func (n *tableNode) children() []node { return nil }
func (n *tableNode) describe() string { return fmt.Sprintf("Values (%d rows)", len(n.rows)) }

// graphNode is GRAPH name { input }: for a variable it iterates the named
// graphs, exposing the current one to the input through a hidden slot.
type graphNode struct {
	nodeInfo
	input    node
	nameSlot int // -1 for a constant graph
	constID  kb.ID
	hidden   int
}

func (n *graphNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if n.nameSlot < 0 {
		return n.input.run(ex, seed, emit)
	}
	graphs := ex.named
	if g := seed[n.nameSlot]; g != 0 {
		if !ex.namedSet[g] {
			return nil
		}
		graphs = []kb.ID{g}
	}
	prevHidden := seed[n.hidden]
	for _, g := range graphs {
		s := seed.clone(len(seed))
		s[n.hidden] = g
		s[n.nameSlot] = g
		err := n.input.run(ex, s, func(r row) bool {
			r[n.hidden] = prevHidden
			return emit(r)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
func (n *graphNode) children() []node { return []node{n.input} }
func (n *graphNode) describe() string {
	if n.nameSlot < 0 {
		return fmt.Sprintf("Graph #%d", n.constID)
	}
	return "Graph (each named graph)"
}

// ---- modifiers ----

type projectNode struct {
	nodeInfo
	input node
	keep  map[int]bool
	vars  []algebra.Var
}

func (n *projectNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	return runInner(ex, n.input, seed, func(r row) error {
		for i := range r {
			if !n.keep[i] && !ex.vars.hidden[i] {
				r[i] = 0
			}
		}
		if !emit(r) {
			return errStop
		}
		return nil
	})
}
func (n *projectNode) children() []node { return []node{n.input} }
func (n *projectNode) describe() string {
	var b strings.Builder
	b.WriteString("Project")
	for _, v := range n.vars {
		b.WriteString(" " + v.String())
	}
	return b.String()
}

type distinctNode struct {
	nodeInfo
	input   node
	reduced bool
}

func (n *distinctNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if n.reduced {
		// REDUCED permits but does not require removing duplicates.
		return n.input.run(ex, seed, emit)
	}
	seen := map[string]bool{}
	acct := ex.account("DISTINCT")
	defer acct.done()
	return runInner(ex, n.input, seed, func(r row) error {
		k := rowKey(r)
		if seen[k] {
			return nil
		}
		if err := acct.charge(keyBytes(len(r), 1)); err != nil {
			return err
		}
		seen[k] = true
		if !emit(r) {
			return errStop
		}
		return nil
	})
}
func (n *distinctNode) children() []node { return []node{n.input} }
func (n *distinctNode) describe() string {
	if n.reduced {
		return "Reduced"
	}
	return "Distinct"
}

type orderNode struct {
	nodeInfo
	input node
	keys  []cexpr
	slots []int // per key: the slot of a key that is a variable, or -1
	desc  []bool
	keep  int64 // > 0: only the first keep rows are needed (a LIMIT above)
	skip  int64 // the first skip rows are dropped above (an OFFSET): their order does not matter
}

// sameKeys reports whether every key of n is a variable and r binds each
// to the term (ID) the kept row k has: equal keys, so r, arriving later,
// sorts after k, known without decoding r's keys.
func (n *orderNode) sameKeys(r row, k *orderedRow) bool {
	for _, s := range n.slots {
		if s < 0 || s >= len(r) || s >= len(k.r) || r[s] != k.r[s] {
			return false
		}
	}
	return true
}

func (n *orderNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	// before orders rows as a stable sort does: by the keys, then by
	// arrival.
	before := func(a, b *orderedRow) bool {
		for k := range n.keys {
			c := a.keys[k].compare(b.keys[k])
			if c != 0 {
				if n.desc[k] {
					return c > 0
				}
				return c < 0
			}
		}
		return a.seq < b.seq
	}
	var rows []*orderedRow
	top := &rowHeap{before: before}
	var seq int64
	op := "ORDER BY"
	if n.keep > 0 {
		op = fmt.Sprintf("ORDER BY with LIMIT (top %d)", n.keep)
	}
	acct := ex.account(op)
	defer acct.done()
	if n.keep >= selectMin {
		return n.runSelect(ex, seed, emit, before, acct)
	}
	err := runInner(ex, n.input, seed, func(r row) error {
		if n.keep > 0 && int64(len(top.rows)) == n.keep && n.sameKeys(r, top.rows[0]) {
			// Ties the worst kept row and comes later: not kept.
			seq++
			return ex.check()
		}
		k, err := n.keyed(ex, r, seq)
		if err != nil {
			return err
		}
		seq++
		switch {
		case n.keep <= 0:
			if err := acct.charge(k.bytes()); err != nil {
				return err
			}
			rows = append(rows, k)
		case int64(len(top.rows)) < n.keep:
			if err := acct.charge(k.bytes()); err != nil {
				return err
			}
			heap.Push(top, k)
		case before(k, top.rows[0]):
			// Better than the worst kept row: replace it.
			if err := acct.charge(k.bytes()); err != nil {
				return err
			}
			acct.release(top.rows[0].bytes())
			top.rows[0] = k
			heap.Fix(top, 0)
		}
		return ex.check()
	})
	if err != nil {
		return err
	}
	if n.keep > 0 {
		rows = top.rows
	}
	if err := sortOrdered(ex.ctx, ex.workers(), rows, before); err != nil {
		return err
	}
	for _, k := range rows {
		if !emit(k.r) {
			return errStop
		}
	}
	return nil
}

// keyed is r with its ORDER BY keys decoded, arriving as number seq.
func (n *orderNode) keyed(ex *executor, r row, seq int64) (*orderedRow, error) {
	k := &orderedRow{r: r, seq: seq, keys: make([]sortKey, len(n.keys))}
	for i, e := range n.keys {
		t, err := e(ex, r)
		if err != nil && !isExpressionError(err) {
			return nil, err
		}
		k.keys[i] = newSortKey(t)
	}
	return k, nil
}

// orderedRow is a row with its decoded ORDER BY keys and arrival number.
type orderedRow struct {
	r    row
	seq  int64
	keys []sortKey
}

// bytes estimates the heap an orderedRow holds: itself and its place in
// the row list, its row, its keys with their lexical forms (computed keys
// have their own) and the big.Rat of a numeric key.
func (k *orderedRow) bytes() int64 {
	n := int64(unsafe.Sizeof(*k)) + 8 + allocExtra + int64(len(k.r))*8 + allocExtra +
		int64(len(k.keys))*int64(unsafe.Sizeof(sortKey{})) + allocExtra
	for _, key := range k.keys {
		n += int64(len(key.term.Value))
		if key.numeric && key.num.R != nil {
			n += ratBytes
		}
	}
	return n
}

// ratBytes is a small big.Rat: two big.Ints and their one-word digits.
const ratBytes = 64 + 2*(8+allocExtra)

// rowHeap keeps the best rows of an ORDER BY with a LIMIT, the worst kept
// row on top (container/heap).
type rowHeap struct {
	rows   []*orderedRow
	before func(a, b *orderedRow) bool
}

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return h.before(h.rows[j], h.rows[i]) }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(*orderedRow)) }
func (h *rowHeap) Pop() any {
	last := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return last
}

func (n *orderNode) children() []node { return []node{n.input} }
func (n *orderNode) describe() string {
	if n.keep > 0 {
		return fmt.Sprintf("OrderBy (%d keys, top %d)", len(n.keys), n.keep)
	}
	return fmt.Sprintf("OrderBy (%d keys)", len(n.keys))
}

type sliceNode struct {
	nodeInfo
	input         node
	offset, limit int64
}

func (n *sliceNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if n.limit == 0 {
		return nil
	}
	var seen, out int64
	downstreamStopped, full := false, false
	err := n.input.run(ex, seed, func(r row) bool {
		seen++
		if seen <= n.offset {
			return true
		}
		out++
		if !emit(r) {
			downstreamStopped = true
			return false
		}
		if n.limit >= 0 && out >= n.limit {
			full = true
			return false
		}
		return true
	})
	if errors.Is(err, errStop) && full && !downstreamStopped {
		return nil
	}
	return err
}
func (n *sliceNode) children() []node { return []node{n.input} }
func (n *sliceNode) describe() string {
	return fmt.Sprintf("Slice offset=%d limit=%d", n.offset, n.limit)
}

// ---- explain ----

func explainPlan(root node) string {
	var b strings.Builder
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		in := n.info()
		est := "?"
		if in.est >= 0 && in.est != 0 || in.est == 0 && isEstimated(n) {
			est = fmt.Sprintf("%.0f", in.est)
		}
		head, rest, _ := strings.Cut(n.describe(), "\n")
		indent := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s  [est=%s actual=%d runs=%d]\n", indent, head, est, in.actual, in.runs)
		if rest != "" {
			for _, line := range strings.Split(rest, "\n") {
				b.WriteString(indent + "  " + strings.TrimLeft(line, " ") + "\n")
			}
		}
		for _, c := range n.children() {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return b.String()
}

func isEstimated(n node) bool {
	switch n.(type) {
	case *bgpNode, *pathNode:
		return true
	}
	return false
}

// sortKey is an ORDER BY value decoded once, so sorting does not re-parse
// numeric literals on every comparison. dbl and small hold the value's
// promotions, also computed once: comparing an integer with a double
// promotes the integer, and doing that through big.Rat on every comparison
// made a top-k over a column of mixed integers and doubles cost seconds.
type sortKey struct {
	term    kb.Term
	num     function.Numeric
	numeric bool
	dbl     float64 // num as xsd:double (num.Float64())
	small   int64   // num when isInt: an integer that fits int64
	isInt   bool
}

func newSortKey(t kb.Term) sortKey {
	k := sortKey{term: t}
	k.num, k.numeric = function.ParseNumeric(t)
	if k.numeric {
		k.dbl = k.num.Float64()
		if k.num.Kind < function.NumFloat && k.num.R.IsInt() && k.num.R.Num().IsInt64() {
			k.small, k.isInt = k.num.R.Num().Int64(), true
		}
	}
	return k
}

func (a sortKey) compare(b sortKey) int {
	if a.numeric && b.numeric {
		if c, ok := a.compareNumber(b); ok && c != 0 {
			return c
		}
	}
	return orderCompare(a.term, b.term)
}

// compareNumber is compareNumeric (XPath op:numeric-less-than with type
// promotion) over the promotions kept in the keys; ok is false where
// compareNumeric gives an error (NaN).
func (a sortKey) compareNumber(b sortKey) (int, bool) {
	k := max(a.num.Kind, b.num.Kind)
	if k >= function.NumFloat {
		x, y := a.dbl, b.dbl
		if k == function.NumFloat {
			// promote rounds an integer or decimal to float precision.
			x, y = float64(float32(x)), float64(float32(y))
		}
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return 0, false
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	if a.isInt && b.isInt {
		return cmp.Compare(a.small, b.small), true
	}
	if c, ok := fastCompareDecimal(a.term, b.term); ok {
		return c, true
	}
	c, err := compareNumeric(a.num, b.num)
	return c, err == nil
}
