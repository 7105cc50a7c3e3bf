package eval

import (
	"slices"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// Rows a GROUP BY has had already. In
//
//	SELECT (COUNT(DISTINCT ?o1) AS ?n) { ?s :name ?o1 . ?s :value ?o2 }
//
// the first pattern binds everything the aggregate reads. When every
// aggregate ignores repeated rows (ignoresRepeats: MIN, MAX, SAMPLE, and
// the DISTINCT ones but COUNT(DISTINCT *)), a partial row whose values on
// the variables the group reads (keys, aggregate arguments) equal those of
// a row the join already gave can only give rows that repeat it, later:
// the later patterns bind nothing the group reads, so they decide only
// whether such rows exist. The BGP then skips such a partial row before
// matching the rest, instead of one lookup per later pattern for rows the
// aggregates drop (206,197 lookups for 10 metric names on perfkb sample
// data). Skipped rows come after the row they repeat, so each group sees
// the same distinct values in the same order of first appearance, and the
// same first row for SAMPLE and ties of MIN and MAX.
//
// A partial row counts as given only once a whole row of it reached the
// GROUP BY (a later pattern may fail for it). Each worker of a parallel
// GROUP BY (groupjoin.go) keeps its own set: the rows it skips repeat
// rows it gave from its own, earlier blocks, so the fold still meets the
// first of every row in scan order.

// groupPruneMax is the most partial rows a set keeps; past it rows are no
// longer skipped (the set is an optimisation, never needed for the
// answer). A variable for tests.
var groupPruneMax = 1 << 16

// groupPruneOn turns the skipping off (tests compare with it off).
var groupPruneOn = true

// groupPrune is the set of partial rows given, for one BGP node.
type groupPrune struct {
	level int    // the pattern after which every read slot is bound
	slots []int  // the slots the group reads, at most 4
	what  string // the slots' variables, for explain
	seen  map[[4]kb.ID]struct{}
	full  bool // the set reached groupPruneMax or the budget refused it
}

// groupPruneEntry is what one set entry is charged (key, map overhead).
const groupPruneEntry = 32 + mapEntryExtra

// markPrune sets b.prune when o's aggregates all ignore repeated rows and
// every slot they and the keys read is bound before the BGP's last
// pattern.
func (ex *executor) markPrune(o *algebra.Group, b *bgpNode) {
	if !groupPruneOn || len(b.pats) < 2 || b.graph.kind == gSlot {
		return
	}
	for _, a := range o.Aggregates {
		if !ignoresRepeats(a.Aggregate) {
			return
		}
	}
	used := map[int]bool{}
	var names []string
	mark := func(e algebra.Expr) {
		for _, v := range algebra.ExprVars(e) {
			if s := ex.vars.slot(v); !used[s] {
				used[s] = true
				names = append(names, "?"+string(v))
			}
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
	if len(used) > 4 {
		return
	}
	for _, k := range o.Keys {
		if perRow(k.Expr) {
			return
		}
	}
	for _, a := range o.Aggregates {
		if a.Aggregate.Expr != nil && perRow(a.Aggregate.Expr) {
			return
		}
	}
	// The level is the last pattern that binds a used slot first; slots
	// no pattern binds come from the seed and are the same in every row.
	level, bound := 0, map[int]bool{}
	for i, p := range b.pats {
		for _, q := range p.pos {
			if q.slot >= 0 && !bound[q.slot] {
				bound[q.slot] = true
				if used[q.slot] {
					level = i
				}
			}
		}
	}
	if level >= len(b.pats)-1 {
		return // nothing after it to skip
	}
	pr := &groupPrune{level: level, what: strings.Join(names, " ")}
	for s := range used {
		pr.slots = append(pr.slots, s)
	}
	b.prune = pr
}

// fresh returns an empty set for the same slots (a worker's own).
func (pr *groupPrune) fresh() *groupPrune {
	if pr == nil {
		return nil
	}
	return &groupPrune{level: pr.level, slots: pr.slots, what: pr.what}
}

func (pr *groupPrune) key(r row) [4]kb.ID {
	var k [4]kb.ID
	for i, s := range pr.slots {
		k[i] = r[s]
	}
	return k
}

// has reports whether a row with r's values on the read slots was given.
func (pr *groupPrune) has(r row) bool {
	if len(pr.seen) == 0 {
		return false
	}
	_, ok := pr.seen[pr.key(r)]
	return ok
}

// add records r, a whole row the BGP gives, while the set has room.
func (pr *groupPrune) add(ex *executor, r row) {
	if pr.full {
		return
	}
	k := pr.key(r)
	if _, ok := pr.seen[k]; ok {
		return
	}
	if len(pr.seen) >= groupPruneMax || !ex.mem.tryCharge(groupPruneEntry) {
		pr.full = true
		return
	}
	if pr.seen == nil {
		pr.seen = map[[4]kb.ID]struct{}{}
	}
	pr.seen[k] = struct{}{}
}

// describe is the explain note on the pattern at pr.level.
func (pr *groupPrune) describe() string {
	if pr.what == "" {
		return " then at most one row in all"
	}
	return " then skips rows whose " + pr.what + " a row gave already"
}

// perRow reports whether e calls a function whose value differs from row to
// row on the same arguments (RAND, UUID, STRUUID, BNODE): rows that repeat
// on e's variables do not repeat on e.
func perRow(e algebra.Expr) bool {
	switch e := e.(type) {
	case *algebra.BuiltinExpr:
		switch e.Name {
		case algebra.BuiltinRand, algebra.BuiltinUUID, algebra.BuiltinStrUUID, algebra.BuiltinBNode:
			return true
		}
		return slices.ContainsFunc(e.Args, perRow)
	case *algebra.FuncExpr:
		return slices.ContainsFunc(e.Args, perRow)
	case *algebra.BinaryExpr:
		return perRow(e.Left) || perRow(e.Right)
	case *algebra.UnaryExpr:
		return perRow(e.Arg)
	case *algebra.InExpr:
		return perRow(e.Arg) || slices.ContainsFunc(e.List, perRow)
	case *algebra.ExistsExpr:
		return true // its pattern may hold any of them; not worth walking
	}
	return false
}
