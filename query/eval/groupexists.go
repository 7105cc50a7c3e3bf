package eval

import "github.com/perfkb/perfkb/query/algebra"

// Patterns a GROUP BY only needs to match once. In
//
//	SELECT (COUNT(DISTINCT ?o1) AS ?n) { ?s :group ?o1 . ?s :metric ?o2 }
//
// nothing reads ?o2: the second pattern only says that ?s has a metric,
// yet the join emits one row per metric (151,000 rows on a SCALEA
// repository for 18,000 distinct (?s, ?o1)). When every aggregate ignores
// how often a row repeats (MIN, MAX, SAMPLE, and COUNT, SUM, AVG,
// GROUP_CONCAT with DISTINCT, but not COUNT(DISTINCT *)), a pattern whose
// new variables appear nowhere else (no other pattern, filter, key,
// aggregate or GRAPH variable) stops at its first match, as a pattern with
// every position bound does. The later patterns cannot depend on which
// match it was, so every row dropped repeats, on the variables anything
// reads, a row the first match already gave, earlier; and the first match
// gives rows exactly when any match does. Each group therefore sees the
// same distinct values in the same order of first appearance, and the
// same first row for SAMPLE and ties of MIN and MAX.

// markExistential sets b.exists for the levels of b that o's aggregates
// only need matched once.
func (ex *executor) markExistential(o *algebra.Group, b *bgpNode) {
	for _, a := range o.Aggregates {
		if !ignoresRepeats(a.Aggregate) || a.Aggregate.Expr != nil && perRow(a.Aggregate.Expr) {
			return
		}
	}
	for _, k := range o.Keys {
		if perRow(k.Expr) {
			return // groupprune.go
		}
	}
	used := map[int]bool{}
	mark := func(e algebra.Expr) {
		for _, v := range algebra.ExprVars(e) {
			used[ex.vars.slot(v)] = true
		}
	}
	for _, k := range o.Keys {
		mark(k.Expr)
	}
	for _, a := range o.Aggregates {
		if a.Aggregate.Expr != nil {
			mark(a.Aggregate.Expr)
		}
	}
	for _, fs := range b.fsrc {
		for _, e := range fs {
			mark(e)
		}
	}
	if b.graph.kind == gSlot {
		used[b.graph.slot] = true
	}
	patterns := map[int]int{} // slot → how many patterns name it
	for _, p := range b.pats {
		seen := map[int]bool{}
		for _, q := range p.pos {
			if q.slot >= 0 && !seen[q.slot] {
				seen[q.slot] = true
				patterns[q.slot]++
			}
		}
	}
	bound := map[int]bool{} // slots bound by the earlier patterns
	var exists []bool
	for i, p := range b.pats {
		fresh, alone := 0, true
		for _, q := range p.pos {
			if q.slot < 0 || bound[q.slot] {
				continue
			}
			fresh++
			if used[q.slot] || patterns[q.slot] > 1 {
				alone = false
			}
		}
		if fresh > 0 && alone {
			if exists == nil {
				exists = make([]bool, len(b.pats))
			}
			exists[i] = true
		}
		for _, q := range p.pos {
			if q.slot >= 0 {
				bound[q.slot] = true
			}
		}
	}
	b.exists = exists
}

// ignoresRepeats reports whether a's value is the same when rows that
// repeat the row before them are left out.
func ignoresRepeats(a *algebra.Aggregate) bool {
	switch a.Func {
	case algebra.AggMin, algebra.AggMax, algebra.AggSample:
		return true
	}
	return a.Distinct && !a.Star
}
