package eval

import (
	"github.com/perfkb/perfkb/query/opt"
)

// Existential patterns. Under an operator that ignores how often a
// solution repeats — a GROUP BY without keys whose aggregates are all
// DISTINCT over plain variables, as in Sparqloscope's
// `COUNT(DISTINCT ?o1) { ?s :codeRegionGroup ?o1 . ?s :hasMetric ?o2 }` —
// a pattern whose new variables nothing later reads (no later pattern, no
// filter placed after it, no aggregate) only has to match once per row:
// each further match repeats the row. Such a pattern stops at its first
// match, as a pattern with every position bound does (149,125 rows to
// 18,496 in that query on the SCALEA data).

// markExistential marks the patterns of n, after the first, that only
// need one match, given the slots the consumer reads (needed). Only for
// a BGP run without a seed, outside GRAPH ?g.
func (n *bgpNode) markExistential(ex *executor, needed map[int]bool) {
	if n.graph.kind == gSlot || n.missing != "" {
		return
	}
	// read[i]: slots read by the patterns after i and the filters placed
	// once more than i patterns have matched.
	read := make(map[int]bool, len(needed)+8)
	for s := range needed {
		read[s] = true
	}
	filterSlots := func(level int) {
		vs := opt.VarSet{}
		for _, e := range n.fsrc[level] {
			opt.ExprVars(e, vs)
		}
		for v := range vs {
			if s, ok := ex.vars.slots[v]; ok {
				read[s] = true
			}
		}
	}
	bound := make([]map[int]bool, len(n.pats))
	seen := map[int]bool{}
	for i, p := range n.pats {
		bound[i] = map[int]bool{}
		for _, pos := range p.pos {
			if pos.slot >= 0 && !seen[pos.slot] {
				seen[pos.slot] = true
				bound[i][pos.slot] = true
			}
		}
	}
	for i := len(n.pats) - 1; i >= 1; i-- {
		filterSlots(i + 1)
		exist := len(bound[i]) > 0
		for s := range bound[i] {
			if read[s] {
				exist = false
			}
		}
		n.pats[i].exist = exist
		for _, pos := range n.pats[i].pos {
			if pos.slot >= 0 {
				read[pos.slot] = true
			}
		}
	}
}

// markExistentialUnder marks input's existential patterns when it is a
// BGP and g's output ignores repeated solutions (no keys; every
// aggregate DISTINCT over a plain variable).
func (ex *executor) markExistentialUnder(g *groupNode, input node, sc scope) {
	b, ok := input.(*bgpNode)
	if !ok || len(sc.seed) != 0 || len(g.keys) != 0 || len(g.aggs) == 0 {
		return
	}
	needed := map[int]bool{}
	for _, a := range g.aggs {
		if !a.agg.Distinct || a.varSlot < 0 {
			return
		}
		needed[a.varSlot] = true
	}
	b.markExistential(ex, needed)
}
