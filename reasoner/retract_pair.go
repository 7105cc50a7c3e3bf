package reasoner

import "github.com/perfkb/perfkb/kb"

// Over-deleting through the schema rules of RDFS and OWL — domain, range,
// sub-property, inverse: one data pattern (?x ?p ?y) and one schema
// pattern on ?p, no builtins — joins once per marked triple, and a deleted
// experiment marks thousands of triples of a few predicates: most of a
// retraction's joins are these, each finding the same schema rows again.
// For such a rule pattern the other pattern's rows depend on the bound
// triple's predicate only, so they are read once per predicate and
// retraction (pairRows) and each marked triple is combined with them
// without a join. The working memory does not change while
// over-deleting, so the rows stay valid for the whole pass.

// pairPattern reports whether body pattern ci of br may be over-deleted
// through pairRows: the body is ci and one other triple pattern, and
// builtins only as kind tests (notLiteral …) of one of ci's variables,
// which overDeletePair answers from the marked triple (the RDFS range
// rule); the other pattern shares no variable with ci but ci's predicate
// variable, and its predicate is a constant or that variable; the head
// has no functor terms.
func pairPattern(br *boundRule, ci int) (other int, ok bool) {
	if len(br.cr.patterns) != 2 {
		return 0, false
	}
	inCi := map[int]bool{}
	for _, p := range br.patterns[ci] {
		if p.mode != modeConst {
			inCi[p.v] = true
		}
	}
	for _, c := range br.cr.body {
		if c.call == nil {
			continue
		}
		if kindTests[c.call.b.Name] == nil || len(c.call.args) != 1 || c.call.args[0].kind != slotVar || !inCi[c.call.args[0].v] {
			return 0, false
		}
	}
	other = br.cr.patterns[0]
	if other == ci {
		other = br.cr.patterns[1]
	}
	pv := -1
	if p := br.patterns[ci][1]; p.mode != modeConst {
		pv = p.v
	}
	for j, p := range br.patterns[other] {
		if p.mode == modeConst {
			continue
		}
		if inCi[p.v] && p.v != pv {
			return 0, false
		}
		if j == 1 && p.v != pv {
			return 0, false // a free predicate: every table
		}
	}
	for _, h := range br.head {
		if h.triple == nil {
			continue
		}
		for _, s := range h.triple {
			if s.kind == slotFunctor {
				return 0, false
			}
		}
	}
	return other, true
}

type pairKey struct {
	ref *patternRef
	p   kb.ID
}

// pairRows returns the rows of ref's other pattern (ref.other) in the
// working memory, as a join would see them, with ref's predicate variable
// at p; cached per retraction.
func (rt *retraction) pairRows(ref *patternRef, p kb.ID) [][3]kb.ID {
	k := pairKey{ref, p}
	if rows, ok := rt.pairs[k]; ok {
		return rows
	}
	e := rt.e
	br := ref.br
	pv := -1
	if pp := br.patterns[ref.ci][1]; pp.mode != modeConst {
		pv = pp.v
	}
	var ids [3]kb.ID
	for j, pos := range br.patterns[ref.other] {
		switch {
		case pos.mode == modeConst:
			ids[j] = pos.id
		case pos.v == pv:
			ids[j] = p
		default:
			ids[j] = kb.Any
		}
	}
	var rows [][3]kb.ID
	e.need(ids[1], ids[0], ids[2])
	if t := e.ts.tables[ids[1]]; t != nil && t.live > 0 {
		add := func(r int32) {
			if t.gen[r] <= e.cur {
				rows = append(rows, [3]kb.ID{t.s[r], t.p, t.o[r]})
			}
		}
		switch {
		case ids[0] != kb.Any && ids[2] != kb.Any:
			if r := t.lookup(ids[0], ids[2]); r >= 0 {
				add(r)
			}
		case ids[0] != kb.Any:
			for _, r := range t.subjects()[ids[0]] {
				add(r)
			}
		case ids[2] != kb.Any:
			for _, r := range t.objects()[ids[2]] {
				add(r)
			}
		default:
			for r := range t.s {
				add(int32(r))
			}
		}
	}
	rt.pairs[k] = rows
	return rows
}

// overDeletePair marks the heads of every derivation of ref's rule that
// binds triple t (unified into vals, which it leaves changed) to ref's
// pattern, from pairRows: what evaluating ref's plan with collect would
// mark. It reports false, marking nothing, when a kind test of the rule
// needs the term decoded (the caller joins instead).
func (rt *retraction) overDeletePair(ref *patternRef, t [3]kb.ID, vals []kb.ID) bool {
	br := ref.br
	for _, bc := range ref.tests {
		pass, known := rt.e.testKind(bc, vals)
		if !known {
			return false
		}
		if !pass {
			return true
		}
	}
	other := br.patterns[ref.other]
	base := rt.pairVals[:0]
	base = append(base, vals...)
	rt.pairVals = base
	for _, row := range rt.pairRows(ref, t[1]) {
		copy(vals, base)
		ok := true
		for j, pos := range other {
			if pos.mode == modeConst {
				continue
			}
			if vals[pos.v] != kb.Any && vals[pos.v] != row[j] {
				ok = false
				break
			}
			vals[pos.v] = row[j]
		}
		if !ok {
			continue
		}
		for _, h := range br.head {
			if h.triple == nil {
				continue
			}
			var ids [3]kb.ID
			for j, s := range h.triple {
				switch s.kind {
				case slotConst:
					ids[j] = h.ids[j]
				case slotVar:
					ids[j] = vals[s.v]
				}
			}
			if ids[0] == kb.Any || ids[1] == kb.Any || ids[2] == kb.Any {
				continue
			}
			rt.mark(ids)
		}
	}
	return true
}

// pairTests sets ref.tests to the kind tests of ref's plan, which
// pairPattern allowed as the rule's only calls; it reports false, leaving
// the pattern to joins, when the plan runs any of them later than before
// its first step or runs another call.
func pairTests(ref *patternRef) bool {
	pl := ref.pl
	if len(pl.final) > 0 {
		return false
	}
	for _, st := range pl.steps {
		if len(st.calls) > 0 {
			return false
		}
	}
	for _, bc := range pl.pre {
		if bc.kindTest == nil || len(bc.binds) > 0 {
			return false
		}
	}
	ref.tests = pl.pre
	return true
}
