package reasoner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// Retraction is delete-and-rederive (DRed, Gupta, Mumick and Subrahmanian
// 1993) over the working memory:
//
//  1. Over-delete: every derived triple that has a derivation using a
//     removed triple is marked, then every derived triple with a
//     derivation using a marked one, to a fixpoint. Each step binds a
//     rule's body pattern to the marked triple and joins the rest of the
//     body over the working memory as it was before the delete, so the
//     work is proportional to what the removed triples supported, not to
//     the store.
//  2. The marked triples leave the working memory.
//  3. Rederive: each marked triple that a rule still derives from what is
//     left (the rule's head bound to the triple, its body joined) comes
//     back, and so does whatever a noValue test that a marked triple made
//     fail now lets a rule derive; ordinary semi-naive rounds then derive
//     what follows from the returned triples.
//  4. The store loses the marked triples that did not come back, with the
//     asserted quads being deleted, in one Dataset.Apply together with what
//     the rounds wrote; derivation records that name a lost triple, as the
//     derived triple or as a premise, are dropped from their batches.
//
// Adding a triple that a noValue test looks for takes away the
// derivations that the test allowed: Add over-deletes what those
// derivations produced and rederives in the same way. The closure after
// Add and Remove is what a run from scratch over the same store derives
// when every noValue tests predicates that rules do not derive or that
// rules finish deriving before the test's rule can first fire (stratified
// negation, as the shipped rule sets use it). Programs with remove or drop
// cannot be retracted (ErrNotRetractable): what they deleted is not known.

// ErrNotRetractable is returned by Remove and RunRetract for programs
// whose rules delete triples (remove, drop).
var ErrNotRetractable = errors.New("reasoner: the rules delete triples (remove, drop), so their consequences cannot be retracted")

// Remove deletes quads from the store (in their graphs) and withdraws what
// the rules derived from them that no longer follows: derived triples,
// their derivation records and so the findings they made. Triples a rule
// still derives without the removed quads stay. The removals, the
// withdrawals and the triples the rules derive again are written in one
// Dataset.Apply (more only beyond RunHoldQuads quads, or
// Options.BatchSize when set).
func (e *Engine) Remove(ctx context.Context, quads []kb.Quad) (Summary, error) {
	return e.retract(ctx, quads, true)
}

// RunRetract withdraws what prog derived from removed, quads already
// deleted from ds, assuming ds held prog's closure before the delete (for
// example after an earlier Run): it loads the store as RunIncremental does
// and then retracts as Engine.Remove.
func RunRetract(ctx context.Context, ds kb.Dataset, prog *Program, removed []kb.Quad, opts Options) (Summary, error) {
	e, err := newEngine(ctx, ds, prog, opts, nil)
	if err != nil {
		return Summary{}, err
	}
	e.ranOnce = true
	return e.retract(ctx, removed, false)
}

func (e *Engine) retractable() error {
	for _, r := range e.rules {
		for _, c := range r.cr.body {
			if c.call != nil && (c.call.b.Name == "remove" || c.call.b.Name == "drop") {
				return ErrNotRetractable
			}
		}
		for _, c := range r.cr.head {
			if c.call != nil && (c.call.b.Name == "remove" || c.call.b.Name == "drop") {
				return ErrNotRetractable
			}
		}
	}
	return nil
}

// skolemCall is a makeSkolem call of a rule: its output variable and its
// arguments (constant IDs, or variables with id kb.Any).
type skolemCall struct {
	out  int
	args []position
}

// skolemCalls lists a rule's makeSkolem calls whose output the head uses
// and no pattern binds.
func skolemCalls(br *boundRule) []skolemCall {
	var out []skolemCall
	for _, c := range br.cr.body {
		if c.call == nil || c.call.b.Name != "makeSkolem" || c.call.args[0].kind != slotVar || !br.headOnly[c.call.args[0].v] {
			continue
		}
		sc := skolemCall{out: c.call.args[0].v}
		for j, a := range c.call.args[1:] {
			switch a.kind {
			case slotConst:
				sc.args = append(sc.args, position{mode: modeConst, id: constID(br, c.index, j+1)})
			case slotVar:
				sc.args = append(sc.args, position{mode: modeFree, v: a.v})
			default:
				sc.args = append(sc.args, position{})
			}
		}
		out = append(out, sc)
	}
	return out
}

// noteSkolems records the arguments of the skolem nodes a derivation
// found by over-deleting made: makeSkolem is injective, so any rule that
// makes the same node does so from the same arguments.
func (rt *retraction) noteSkolems(br *boundRule, vals []kb.ID) {
	for _, sc := range br.skolems {
		v := vals[sc.out]
		if v == kb.Any || v == transientID {
			continue
		}
		if _, ok := rt.skolemOf[v]; ok {
			continue
		}
		args := make([]kb.ID, len(sc.args))
		for j, a := range sc.args {
			switch a.mode {
			case modeConst:
				args[j] = a.id
			case modeFree:
				args[j] = vals[a.v]
			}
			if args[j] == kb.Any || args[j] == transientID {
				args = nil
				break
			}
		}
		if args != nil {
			rt.skolemOf[v] = args
		}
	}
}

// bindSkolems binds, for each makeSkolem call of br whose output vals
// holds, the call's argument variables from the arguments recorded for
// that node. known is false when a node's arguments are not recorded;
// ok is false when br cannot make the node (a constant argument differs).
func (rt *retraction) bindSkolems(br *boundRule, vals []kb.ID) (known, ok bool) {
	known = true
	for _, sc := range br.skolems {
		v := vals[sc.out]
		if v == kb.Any {
			continue
		}
		args, have := rt.skolemOf[v]
		if !have {
			return false, true
		}
		if len(args) != len(sc.args) {
			return true, false
		}
		for j, a := range sc.args {
			switch a.mode {
			case modeConst:
				if a.id != args[j] {
					return true, false
				}
			case modeFree:
				if vals[a.v] != kb.Any && vals[a.v] != args[j] {
					return true, false
				}
				vals[a.v] = args[j]
			default:
				return false, true
			}
		}
	}
	return known, true
}

type skolemKey struct {
	t    [3]kb.ID
	rule int
}

// skolemInputs returns the pattern variables read by the body calls that
// bind a variable the head uses and no pattern binds.
func skolemInputs(cr *compiledRule) (inputs []int, headOnly map[int]bool) {
	inPattern := map[int]bool{}
	for _, c := range cr.body {
		if c.triple != nil {
			for _, sl := range c.triple {
				if sl.kind == slotVar {
					inPattern[sl.v] = true
				}
			}
		}
	}
	inHead := map[int]bool{}
	for _, c := range cr.head {
		if c.triple != nil {
			for _, sl := range c.triple {
				if sl.kind == slotVar && !inPattern[sl.v] {
					inHead[sl.v] = true
				}
			}
		}
	}
	var out []int
	seen := map[int]bool{}
	for _, c := range cr.body {
		if c.call == nil {
			continue
		}
		makes := false
		for j, a := range c.call.args {
			if a.kind == slotVar && c.call.outputs[j] && inHead[a.v] {
				makes = true
			}
		}
		if !makes {
			continue
		}
		for j, a := range c.call.args {
			if a.kind == slotVar && !c.call.outputs[j] && inPattern[a.v] && !seen[a.v] {
				seen[a.v] = true
				out = append(out, a.v)
			}
		}
	}
	slices.Sort(out)
	return out, inHead
}

// planKey names a plan made for a join with some variables bound: pre
// has bit v set for each bound variable v (rules of more than 64
// variables spell them in long).
type planKey struct {
	rule int
	pre  uint64
	long string
	drop int
}

// patternRef is body pattern ci of a rule, with what over-deleting through
// it needs: the plan of the rest of the body with the pattern's variables
// bound (made on first use), and the gates of the other patterns.
type patternRef struct {
	br *boundRule
	ci int
	pl *plan
	// memo are the gates that depend on the bound triple's predicate at
	// most (checked once per predicate and retraction, see refsFor),
	// direct those probed for each triple.
	memo, direct []gate
	// pair: over-deleting through the pattern reads the rule's other
	// pattern, other, once per predicate (see pairPattern), after the
	// rule's kind tests (the calls of pl.pre, all bound by the pattern).
	pair  bool
	other int
	tests []*boundCall
}

// A gate is a necessary condition for a join: body pattern j of the rule
// has a row in the working memory with the variables bound before the join
// at their values and its other variables free. Checking the gates costs a
// hash probe each, against about a microsecond for setting up a join, and
// most joins a retraction tries match nothing (a deleted metric bound to a
// rule that wants another metric name, a property without
// rdfs:subPropertyOf). A gate whose bound variables are at most pv (the
// bound triple's predicate variable) depends on one value only and is
// memoised: a retraction of thousands of triples asks "does this property
// have an owl:inverseOf" once per predicate, not once per triple.
type gate struct {
	j, pv int
	// direct: the pattern shares other bound variables, so it is probed
	// for each binding, not memoised.
	direct bool
}

type gateKey struct {
	rule, j int
	p       kb.ID
}

// gatesFor lists the gates of rule br joined with the variables in bound
// set and predicate variable pv (-1: none), leaving out pattern skip:
// first those probed with subject and object known, which fail most
// often, then the memoised ones, then the rest. A pattern with no
// constant and no bound variable says nothing and is left out.
func gatesFor(br *boundRule, skip int, bound map[int]bool, pv int) []gate {
	var exact, memo, rest []gate
	for _, j := range br.cr.patterns {
		if j == skip {
			continue
		}
		g := gate{j: j, pv: -1}
		useful, known := false, 0
		for _, p := range br.patterns[j] {
			switch {
			case p.mode == modeConst:
				useful = true
				known++
			case bound[p.v]:
				useful = true
				known++
				if p.v == pv {
					g.pv = pv
				} else {
					g.direct = true
				}
			}
		}
		switch {
		case !useful:
		case g.direct && known == 3:
			exact = append(exact, g)
		case g.direct:
			rest = append(rest, g)
		default:
			memo = append(memo, g)
		}
	}
	return append(append(exact, memo...), rest...)
}

// splitGates parts gs into the memoised gates and the direct ones, each
// in gs's order.
func splitGates(gs []gate) (memo, direct []gate) {
	for _, g := range gs {
		if g.direct {
			direct = append(direct, g)
		} else {
			memo = append(memo, g)
		}
	}
	return memo, direct
}

// gatesOpen reports whether every gate of gs passes for the bound values
// vals, memoising the answers that depend on the predicate only in memo
// (valid while the working memory does not change).
func (e *Engine) gatesOpen(br *boundRule, gs []gate, vals []kb.ID, memo map[gateKey]bool) bool {
	for _, g := range gs {
		var ids [3]kb.ID
		for i, p := range br.patterns[g.j] {
			switch {
			case p.mode == modeConst:
				ids[i] = p.id
			case vals[p.v] != transientID:
				ids[i] = vals[p.v]
			}
		}
		if g.direct {
			if !e.hasRow(ids) {
				return false
			}
			continue
		}
		k := gateKey{rule: br.index, j: g.j}
		if g.pv >= 0 {
			k.p = vals[g.pv]
		}
		open, ok := memo[k]
		if !ok {
			open = e.hasRow(ids)
			memo[k] = open
		}
		if !open {
			return false
		}
	}
	return true
}

// hasRow reports whether the working memory holds a live triple matching
// ids (kb.Any: any value) of a generation the joins see.
func (e *Engine) hasRow(ids [3]kb.ID) bool {
	if ids[1] == kb.Any {
		return true // not checked: every table would be read
	}
	if e.demand != nil && ids[0] == kb.Any && !e.demand.covered(ids[1], kb.Any, ids[2]) {
		// A gate is a necessary condition only: reading a whole
		// predicate, or all subjects of an object (every metric named
		// wtime), to answer it costs more than the join it saves.
		return true
	}
	e.need(ids[1], ids[0], ids[2])
	t := e.ts.tables[ids[1]]
	if t == nil || t.live == 0 {
		return false
	}
	var rows []int32
	switch {
	case ids[0] != kb.Any && ids[2] != kb.Any:
		return t.lookup(ids[0], ids[2]) >= 0
	case ids[0] != kb.Any:
		rows = t.subjects()[ids[0]]
	case ids[2] != kb.Any:
		rows = t.objects()[ids[2]]
	default:
		return t.live > 0
	}
	for _, r := range rows {
		if t.gen[r] <= e.cur {
			return true
		}
	}
	return false
}

// retraction is the state of one Remove (or of the negation part of an
// Add).
type retraction struct {
	e *Engine
	// plans are the engine's retractPlans: a plan depends on the rule and
	// on which variables are bound, not on their values.
	plans map[planKey]*plan
	// marked holds the over-deleted triples, in the order found.
	marked []([3]kb.ID)
	// isMark holds each marked triple's index in marked.
	isMark map[[3]kb.ID]int
	// unasserted holds the seeds that were asserted before the delete:
	// they are not counted as retracted.
	unasserted map[[3]kb.ID]bool
	// hints holds, per marked triple and rule with head-only variables
	// (skolemIn), the values of the skolem's inputs in each derivation
	// that over-deleting found: rederiving binds them, since a head-only
	// variable does not narrow the join.
	hints map[skolemKey][][]kb.ID
	// skolemOf holds the makeSkolem arguments of each node a derivation
	// that over-deleting found made (see noteSkolems).
	skolemOf map[kb.ID][]kb.ID
	// x is the joiner every join of the retraction reuses.
	x joiner
	// asserted holds the asserted triples a marked one supported.
	asserted   [][3]kb.ID
	isAsserted map[[3]kb.ID]bool
	// unrecorded holds asserted triples whose derived quad the caller
	// deleted: their derivation records go.
	unrecorded [][3]kb.ID
	// byPred lists the body patterns with a constant predicate by that
	// predicate, anyPred those with a variable one: over-deleting binds a
	// marked triple only to the patterns it can match.
	byPred  map[kb.ID][]*patternRef
	anyPred []*patternRef
	// predRefs holds, per predicate of a marked triple, the patterns of
	// byPred and anyPred whose memoised gates are open for it: the
	// working memory does not change while over-deleting, so they are
	// worked out once per predicate, not once per triple.
	predRefs map[kb.ID][]*patternRef
	// pairs caches pairRows; pairVals is overDeletePair's scratch.
	pairs    map[pairKey][][3]kb.ID
	pairVals []kb.ID
}

func (e *Engine) newRetraction() *retraction {
	if e.retractPlans == nil {
		e.retractPlans = map[planKey]*plan{}
		e.byPredRefs = map[kb.ID][]*patternRef{}
		for _, br := range e.rules {
			for _, ci := range br.cr.patterns {
				ref := &patternRef{br: br, ci: ci}
				bound, pv := map[int]bool{}, -1
				for j, p := range br.patterns[ci] {
					if p.mode != modeConst {
						bound[p.v] = true
						if j == 1 {
							pv = p.v
						}
					}
				}
				ref.memo, ref.direct = splitGates(gatesFor(br, ci, bound, pv))
				ref.other, ref.pair = pairPattern(br, ci)
				if p := br.patterns[ci][1]; p.mode == modeConst {
					e.byPredRefs[p.id] = append(e.byPredRefs[p.id], ref)
				} else {
					e.anyPredRefs = append(e.anyPredRefs, ref)
				}
			}
		}
	}
	return &retraction{e: e, plans: e.retractPlans, isMark: map[[3]kb.ID]int{}, unasserted: map[[3]kb.ID]bool{},
		hints: map[skolemKey][][]kb.ID{}, skolemOf: map[kb.ID][]kb.ID{},
		x: joiner{cs: map[*boundCall]*callState{}}, isAsserted: map[[3]kb.ID]bool{},
		byPred: e.byPredRefs, anyPred: e.anyPredRefs, predRefs: map[kb.ID][]*patternRef{},
		pairs: map[pairKey][][3]kb.ID{}}
}

// refsFor returns the body patterns a marked triple of predicate p may
// bind whose memoised gates are open (see predRefs).
func (rt *retraction) refsFor(p kb.ID, memo map[gateKey]bool) []*patternRef {
	if refs, ok := rt.predRefs[p]; ok {
		return refs
	}
	var refs []*patternRef
	var vals []kb.ID
	for _, list := range [2][]*patternRef{rt.byPred[p], rt.anyPred} {
		for _, ref := range list {
			br := ref.br
			vals = grow(vals, len(br.cr.varNames))
			if pp := br.patterns[ref.ci][1]; pp.mode != modeConst {
				vals[pp.v] = p
			}
			if rt.e.gatesOpen(br, ref.memo, vals, memo) {
				refs = append(refs, ref)
			}
		}
	}
	rt.predRefs[p] = refs
	return refs
}

// planFor returns the plan of rule br with the variables of preset that
// are not kb.Any bound, without the body call at index drop.
func (rt *retraction) planFor(ctx context.Context, br *boundRule, preset []kb.ID, drop int) (*plan, error) {
	k := planKey{rule: br.index, drop: drop}
	if len(preset) <= 64 {
		for v, id := range preset {
			if id != kb.Any {
				k.pre |= 1 << v
			}
		}
	} else {
		var key strings.Builder
		for v, id := range preset {
			if id != kb.Any {
				key.WriteString(strconv.Itoa(v))
				key.WriteByte(',')
			}
		}
		k.long = key.String()
	}
	if pl, ok := rt.plans[k]; ok {
		return pl, nil
	}
	var pre []int
	for v, id := range preset {
		if id != kb.Any {
			pre = append(pre, v)
		}
	}
	pl, err := rt.e.makePlanBound(ctx, br, -1, pre, drop)
	if err != nil {
		return nil, err
	}
	rt.plans[k] = pl
	return pl, nil
}

// unify binds the variables of a pattern (positions of constants or
// variables) to triple t; ok is false when a constant differs or a
// variable would take two values.
func unify(ps [3]position, t [3]kb.ID, vals []kb.ID) bool {
	clear(vals)
	for j, p := range ps {
		switch p.mode {
		case modeConst:
			if p.id != t[j] {
				return false
			}
		default:
			if vals[p.v] != kb.Any && vals[p.v] != t[j] {
				return false
			}
			vals[p.v] = t[j]
		}
	}
	return true
}

// mark adds a present, derived-only triple to the over-deleted set.
func (rt *retraction) mark(t [3]kb.ID) bool {
	if _, ok := rt.isMark[t]; ok {
		return false
	}
	rt.e.need(t[1], t[0], t[2])
	tb := rt.e.ts.tables[t[1]]
	if tb == nil {
		return false
	}
	r := tb.lookup(t[0], t[2])
	if r < 0 {
		return false
	}
	if tb.asrt[r] > 0 {
		// Asserted, so it stays; a derivation record of it may name a
		// lost premise (see pruneRecords).
		if !rt.isAsserted[t] {
			rt.isAsserted[t] = true
			rt.asserted = append(rt.asserted, t)
		}
		return false
	}
	rt.isMark[t] = len(rt.marked)
	rt.marked = append(rt.marked, t)
	return true
}

// overDelete marks, from the marked triples at index from on, everything
// derived with one of them as a premise, to a fixpoint. The working memory
// still holds every marked triple.
func (rt *retraction) overDelete(ctx context.Context, from int) error {
	var br *boundRule
	collect := func(h [3]kb.ID, vals []kb.ID) {
		rt.mark(h)
		rt.noteSkolems(br, vals)
		if _, marked := rt.isMark[h]; marked && len(br.skolemIn) > 0 {
			hint := make([]kb.ID, len(br.skolemIn))
			for k, v := range br.skolemIn {
				hint[k] = vals[v]
			}
			key := skolemKey{t: h, rule: br.index}
			rt.hints[key] = append(rt.hints[key], hint)
		}
	}
	var vals []kb.ID
	var nothing output
	memo := map[gateKey]bool{}
	// A derivation with several marked premises would be found from each
	// of them; it is found from the first only, the premise marked first
	// (of the lowest clause, when one triple matches two). A join bound to
	// a later premise drops a partial match as soon as it reaches a row
	// marked before its own (or the same triple at a lower clause): every
	// derivation that extends it is found from that row's join, which
	// runs over the same working memory (nothing leaves it while
	// over-deleting). A finding rule over nine metric triples of one
	// deleted region is so joined once in full, not nine times, and its
	// final calls (makeSkolem, strConcat …) run once per derivation.
	var i, ci int
	skip := func(t *table, r int32, clause int) bool {
		if clause == ci {
			return false
		}
		k, ok := rt.isMark[[3]kb.ID{t.s[r], t.p, t.o[r]}]
		return ok && (k < i || k == i && clause < ci)
	}
	defer func() { rt.x.skip = nil }()
	for i = from; i < len(rt.marked); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := rt.marked[i]
		for _, ref := range rt.refsFor(t[1], memo) {
			br = ref.br
			if cap(vals) < len(br.cr.varNames) {
				vals = make([]kb.ID, len(br.cr.varNames))
			}
			vals = vals[:len(br.cr.varNames)]
			if !unify(br.patterns[ref.ci], t, vals) || !rt.e.gatesOpen(br, ref.direct, vals, nil) {
				continue
			}
			if ref.pl == nil {
				// unify binds exactly the pattern's variables, so one
				// plan serves every triple.
				pl, err := rt.planFor(ctx, br, vals, -1)
				if err != nil {
					return err
				}
				ref.pl = pl
				if ref.pair {
					ref.pair = pairTests(ref)
				}
			}
			if ref.pair && rt.overDeletePair(ref, t, vals) {
				continue
			}
			ci, rt.x.skip = ref.ci, skip
			if err := rt.e.evaluateWith(ctx, &rt.x, ref.pl, &nothing, 0, -1, vals, collect); err != nil {
				return err
			}
		}
	}
	return nil
}

// noValueArgs returns, per noValue call of a rule, its clause index and
// its pattern (s, p and, when given, o) as positions; a missing object is
// a wildcard (mode 0).
func noValueArgs(br *boundRule) (idx []int, pats [][3]position) {
	for _, c := range br.cr.body {
		if c.call == nil || c.call.b.Name != "noValue" {
			continue
		}
		var ps [3]position
		for j, a := range c.call.args {
			if j > 2 {
				break
			}
			switch a.kind {
			case slotConst:
				ps[j] = position{mode: modeConst, id: constID(br, c.index, j)}
			case slotVar:
				ps[j] = position{mode: modeFree, v: a.v}
			}
		}
		idx = append(idx, c.index)
		pats = append(pats, ps)
	}
	return idx, pats
}

// constID finds the ID bound to the constant argument j of body call
// clause ci (the rule's plans hold it).
func constID(br *boundRule, ci, j int) kb.ID {
	for _, pl := range append([]*plan{br.full, br.noPatterns}, br.plans...) {
		if pl == nil {
			continue
		}
		all := append(append([]*boundCall(nil), pl.pre...), pl.final...)
		for _, st := range pl.steps {
			all = append(all, st.calls...)
		}
		for _, bc := range all {
			if bc.c == br.cr.body[ci].call && j < len(bc.args) {
				return bc.args[j].id
			}
		}
	}
	return kb.Any
}

// unifyNeg binds a noValue pattern to t; wildcards (mode 0) match anything.
func unifyNeg(ps [3]position, t [3]kb.ID, vals []kb.ID) bool {
	clear(vals)
	for j, p := range ps {
		switch p.mode {
		case modeConst:
			if p.id == kb.Any || p.id != t[j] {
				return false
			}
		case modeFree:
			if vals[p.v] != kb.Any && vals[p.v] != t[j] {
				return false
			}
			vals[p.v] = t[j]
		}
	}
	return true
}

// negated marks what rules with a noValue test derived while no triple
// matched the test, for each triple of added that now does: the rule is
// joined without the test, bound to the triple.
func (rt *retraction) negated(ctx context.Context, added [][3]kb.ID) error {
	var br *boundRule
	collect := func(h [3]kb.ID, vals []kb.ID) {
		rt.mark(h)
		rt.noteSkolems(br, vals)
		if _, marked := rt.isMark[h]; marked && len(br.skolemIn) > 0 {
			hint := make([]kb.ID, len(br.skolemIn))
			for k, v := range br.skolemIn {
				hint[k] = vals[v]
			}
			key := skolemKey{t: h, rule: br.index}
			rt.hints[key] = append(rt.hints[key], hint)
		}
	}
	var nothing output
	for _, br = range rt.e.rules {
		idx, pats := noValueArgs(br)
		if len(idx) == 0 {
			continue
		}
		vals := make([]kb.ID, len(br.cr.varNames))
		for _, t := range added {
			for k, ps := range pats {
				if !unifyNeg(ps, t, vals) {
					continue
				}
				pl, err := rt.planFor(ctx, br, vals, idx[k])
				if err != nil {
					return err
				}
				if err := rt.e.evaluateWith(ctx, &rt.x, pl, &nothing, 0, -1, vals, collect); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// rederive puts into e.out what the rules derive, from the working memory
// without the marked triples, of each marked triple (its rule's head
// bound to it) and what a noValue test that a marked triple failed now
// lets a rule derive.
func (rt *retraction) rederive(ctx context.Context) error {
	e := rt.e
	byPred := map[kb.ID][][3]kb.ID{}
	for _, t := range rt.marked {
		byPred[t[1]] = append(byPred[t[1]], t)
	}
	preds := slices.Sorted(maps.Keys(byPred))
	// The working memory has lost the marked triples: gates answer anew.
	memo := map[gateKey]bool{}
	var pvals []kb.ID
	for _, br := range e.rules {
		vals := make([]kb.ID, len(br.cr.varNames))
		full := false
		for _, h := range br.head {
			if h.triple == nil {
				continue
			}
			// The gates of the body joined with the head's variables
			// bound: those that depend on the predicate at most are
			// checked once per predicate of the marked triples.
			bound, pv := map[int]bool{}, -1
			for j, sl := range h.triple {
				if sl.kind == slotVar {
					bound[sl.v] = true
					if j == 1 {
						pv = sl.v
					}
				}
			}
			memoGates, direct := splitGates(gatesFor(br, -1, bound, pv))
			usesSkolem := false
			for _, sl := range h.triple {
				usesSkolem = usesSkolem || sl.kind == slotVar && br.headOnly[sl.v]
			}
			// Only the marked triples of the head's predicate are
			// candidates.
			hpreds := preds
			if h.triple[1].kind == slotConst {
				hpreds = nil
				if len(byPred[h.ids[1]]) > 0 {
					hpreds = []kb.ID{h.ids[1]}
				}
			}
			for _, p := range hpreds {
				pvals = grow(pvals, len(br.cr.varNames))
				if pv >= 0 {
					pvals[pv] = p
				}
				if !e.gatesOpen(br, memoGates, pvals, memo) {
					continue
				}
				for _, t := range byPred[p] {
					if err := ctx.Err(); err != nil {
						return err
					}
					clear(vals)
					ok := true
					for j, sl := range h.triple {
						switch sl.kind {
						case slotConst:
							ok = ok && h.ids[j] == t[j]
						case slotVar:
							if vals[sl.v] != kb.Any && vals[sl.v] != t[j] {
								ok = false
							}
							vals[sl.v] = t[j]
						}
					}
					if !ok || !e.gatesOpen(br, direct, vals, nil) {
						continue
					}
					if usesSkolem && len(br.skolems) > 0 {
						known, can := rt.bindSkolems(br, vals)
						if !can {
							continue // br cannot make this node
						}
						if known {
							if err := rt.derive(ctx, br, vals); err != nil {
								return err
							}
							continue
						}
					}
					if usesSkolem {
						hints, ok := rt.hints[skolemKey{t: t, rule: br.index}]
						if !ok || len(br.skolemIn) == 0 {
							// The head-only variable does not narrow the
							// join: join the whole rule once, below.
							full = true
							continue
						}
						for _, hint := range hints {
							for k, v := range br.skolemIn {
								vals[v] = hint[k]
							}
							if err := rt.derive(ctx, br, vals); err != nil {
								return err
							}
						}
						continue
					}
					if err := rt.derive(ctx, br, vals); err != nil {
						return err
					}
				}
			}
		}
		// What a noValue test that a marked triple failed now lets the
		// rule derive.
		_, negPats := noValueArgs(br)
		for _, ps := range negPats {
			cands := rt.marked
			if ps[1].mode == modeConst {
				cands = byPred[ps[1].id]
			}
			for _, t := range cands {
				if !unifyNeg(ps, t, vals) {
					continue
				}
				if err := rt.derive(ctx, br, vals); err != nil {
					return err
				}
			}
		}
		if full {
			clear(vals)
			if err := rt.derive(ctx, br, vals); err != nil {
				return err
			}
		}
	}
	return nil
}

func (rt *retraction) derive(ctx context.Context, br *boundRule, vals []kb.ID) error {
	pl, err := rt.planFor(ctx, br, vals, -1)
	if err != nil {
		return err
	}
	err = rt.e.evaluateWith(ctx, &rt.x, pl, &rt.e.out, 0, -1, vals, nil)
	if errors.Is(err, ErrMaxDerived) {
		return nil // the rounds that follow report it
	}
	return err
}

// retract is Remove; deleteQuads says whether quads are still in the
// store.
func (e *Engine) retract(ctx context.Context, quads []kb.Quad, deleteQuads bool) (Summary, error) {
	if err := e.retractable(); err != nil {
		return e.finish(), err
	}
	if !deleteQuads {
		// The store lacks the removed quads already; their triples go
		// into the working memory as it held them before.
		if err := e.needAll(); err != nil {
			return e.finish(), err
		}
	}
	e.holding, e.holdLimit = true, e.runHold
	e.held = kb.Delta{Add: e.held.Add[:0], Remove: e.held.Remove[:0]}
	err := e.retractHeld(ctx, quads, deleteQuads)
	e.holding = false
	if e.demand != nil && e.demand.err != nil {
		// A read on demand failed: the working memory missed part of the
		// store, so what the retraction found is not written and the
		// store stays as it was.
		e.held = kb.Delta{}
		return e.finish(), errors.Join(err, e.demand.err)
	}
	keepRederived(&e.held)
	// The store follows the working memory even when ctx ended meanwhile,
	// as Add does.
	start := e.phaseStart()
	if werr := e.writeHeld(context.WithoutCancel(ctx)); werr != nil {
		err = errors.Join(err, fmt.Errorf("reasoner: retracting: %w", werr))
	}
	e.timePhase("write", start)
	return e.finish(), err
}

// Change applies a delta to the store and keeps the closure in step with
// it: the removed quads are retracted as Remove does, then the added ones
// reasoned over as Add does, and everything (the delta, the withdrawals,
// what the rules derive) is written in one Dataset.Apply, held in memory
// whole; when a rule tests noValue, the removals and what they withdraw
// go in a first Apply, the additions in a second. A quad both removed and
// added stays, as in Apply.
func (e *Engine) Change(ctx context.Context, d kb.Delta) (Summary, error) {
	if err := e.needAll(); err != nil {
		return e.finish(), err
	}
	if len(d.Remove) == 0 {
		return e.Add(ctx, d.Add)
	}
	if err := e.retractable(); err != nil {
		return e.finish(), err
	}
	removed := d.Remove
	if len(d.Add) > 0 {
		adding := make(map[kb.Quad]bool, len(d.Add))
		for _, q := range d.Add {
			adding[q] = true
		}
		removed = slices.DeleteFunc(slices.Clone(d.Remove), func(q kb.Quad) bool { return adding[q] })
	}
	e.holding, e.holdLimit = true, math.MaxInt
	e.held = kb.Delta{Add: e.held.Add[:0], Remove: e.held.Remove[:0]}
	err := e.retractHeld(ctx, removed, true)
	if err == nil && len(d.Add) > 0 {
		if e.negation {
			// The additions may make a noValue test fail and so take
			// away what the retraction derived again, derivation records
			// included, which are found in the store: it gets the
			// retraction first.
			keepRederived(&e.held)
			err = e.writeHeld(ctx)
		}
		var stored map[kb.Quad]bool
		if err == nil {
			stored, err = e.storedOf(ctx, d.Add)
		}
		if err == nil {
			e.held.Add = append(e.held.Add, d.Add...)
			_, err = e.addRows(ctx, d.Add, stored)
		}
	}
	e.holding = false
	if werr := e.writeHeld(context.WithoutCancel(ctx)); werr != nil {
		err = errors.Join(err, fmt.Errorf("reasoner: applying a change: %w", werr))
	}
	return e.finish(), err
}

// keepRederived takes out of d.Remove the quads d.Add puts back: a
// derived quad deleted by the caller that the rules derive again stays.
func keepRederived(d *kb.Delta) {
	if len(d.Add) == 0 || len(d.Remove) == 0 {
		return
	}
	back := make(map[kb.Quad]bool, len(d.Add))
	for _, q := range d.Add {
		back[q] = true
	}
	d.Remove = slices.DeleteFunc(d.Remove, func(q kb.Quad) bool { return back[q] })
}

// retractHeld marks the triples that quads take away, then over-deletes,
// rederives and runs the rounds (maintain), adding the store's side of it
// to e.held.
func (e *Engine) retractHeld(ctx context.Context, quads []kb.Quad, deleteQuads bool) error {
	start := e.phaseStart()
	rt := e.newRetraction()
	seen := make(map[kb.Quad]bool, len(quads))
	for _, q := range quads {
		if seen[q] {
			continue
		}
		seen[q] = true
		tr := [3]kb.ID{q.S, q.P, q.O}
		if !deleteQuads {
			// The working memory was loaded without the removed quads;
			// over-deleting needs the triples that are gone entirely.
			if !e.reads(q.G) {
				continue
			}
			t := e.ts.table(q.P, true)
			r := t.lookup(q.S, q.O)
			switch {
			case r < 0:
				t.insert(q.S, q.O, e.cur)
				if !e.isDerivedGraph(q.G) {
					rt.unasserted[tr] = true
				}
				rt.mark(tr)
			case t.asrt[r] == 0:
				rt.mark(tr)
			case e.isDerivedGraph(q.G):
				rt.unrecorded = append(rt.unrecorded, tr)
			}
			continue
		}
		has, err := e.storeHas(ctx, q)
		if err != nil {
			return fmt.Errorf("reasoner: retracting: %w", err)
		}
		if !has {
			continue // not in the store: nothing to delete
		}
		e.held.Remove = append(e.held.Remove, q)
		if !e.reads(q.G) {
			continue
		}
		e.need(q.P, q.S, q.O)
		t := e.ts.tables[q.P]
		if t == nil {
			continue
		}
		r := t.lookup(q.S, q.O)
		if r < 0 {
			continue
		}
		if !e.isDerivedGraph(q.G) && t.asrt[r] > 0 {
			if t.asrt[r]--; t.asrt[r] == 0 {
				rt.unasserted[tr] = true
			}
		}
		if e.isDerivedGraph(q.G) && t.asrt[r] > 0 {
			// Asserted still: only its derivation records go.
			rt.unrecorded = append(rt.unrecorded, tr)
		}
		rt.mark(tr)
	}
	// A new, empty generation: the rounds after rederiving must not join
	// the newest rows again.
	e.cur++
	e.timePhase("seed", start)
	if err := e.maintain(ctx, rt); err != nil {
		return err
	}
	start = e.phaseStart()
	err := e.aggregates(ctx)
	e.timePhase("aggregates", start)
	return err
}

// phaseTimes sums the time of each phase of retraction by a clock (the
// benchmarks pass the process's CPU time).
type phaseTimes struct {
	clock func() float64
	sum   map[string]float64
}

// phaseStart returns the clock's reading, or 0 when no benchmark asked
// for phase times.
func (e *Engine) phaseStart() float64 {
	if e.phases == nil {
		return 0
	}
	return e.phases.clock()
}

// timePhase adds the time since start to phase and returns the clock's
// reading.
func (e *Engine) timePhase(phase string, start float64) float64 {
	if e.phases == nil {
		return 0
	}
	now := e.phases.clock()
	e.phases.sum[phase] += now - start
	return now
}

// genHasRows reports whether some table has rows of generation g.
func (e *Engine) genHasRows(g uint32) bool {
	for _, t := range e.ts.order {
		if t.hasDelta(g) {
			return true
		}
	}
	return false
}

// storeHas reports whether the store holds quad q, without an iterator
// when the store can scan (a retraction checks every removed quad).
func (e *Engine) storeHas(ctx context.Context, q kb.Quad) (bool, error) {
	p := kb.Pattern{S: q.S, P: q.P, O: q.O, G: q.G}
	if qs, ok := e.ds.(kb.QuadScanner); ok {
		found := false
		err := qs.ScanQuads(ctx, p, func(kb.Quad) bool {
			found = true
			return false
		})
		return found, err
	}
	has, err := kb.Collect(e.ds.Match(ctx, p))
	return len(has) > 0, err
}

// maintain finishes a retraction whose seeds are marked: it over-deletes,
// rederives, runs the rounds from generation e.cur and adds to e.held the
// removal of the triples that did not come back and the rewritten
// derivation records.
func (e *Engine) maintain(ctx context.Context, rt *retraction) error {
	start := e.phaseStart()
	if err := rt.overDelete(ctx, 0); err != nil {
		return err
	}
	for _, t := range rt.marked {
		e.ts.tables[t[1]].remove(t[0], t[2])
	}
	start = e.timePhase("overdelete", start)
	if e.out.set.len() == 0 && len(e.out.set.slots) > 1<<12 {
		// The set of a round's new triples kept the slots of the
		// closure's largest round (up to 24 MiB), and every commit clears
		// them all: a retraction derives few triples again, so it starts
		// from an empty set that grows as it needs.
		e.out.set = tripleSet{}
	}
	err := rt.rederive(ctx)
	start = e.timePhase("rederive", start)
	switch {
	case err != nil:
	case e.genHasRows(e.cur):
		// Add's negation part: the newest generation holds the added
		// triples, which the rounds join first.
		err = e.rounds(ctx, false)
	default:
		// The rederived triples are the first round's delta: committed
		// here, the rounds start from them, and not at all when nothing
		// came back (a round over the empty generation derives nothing).
		var back bool
		if back, err = e.commit(ctx); err == nil && back {
			e.cur++
			err = e.rounds(ctx, false)
		}
	}
	start = e.timePhase("rounds", start)
	defer e.timePhase("records", start)
	var lost [][3]kb.ID
	for _, t := range rt.marked {
		if !e.ts.contains(t[0], t[1], t[2]) {
			lost = append(lost, t)
			if !rt.unasserted[t] {
				e.summary.Retracted++
			}
			e.held.Remove = append(e.held.Remove, kb.Quad{S: t[0], P: t[1], O: t[2], G: e.graphOf(t[1])})
		}
	}
	if !e.opts.NoDerivations && len(rt.marked)+len(rt.unrecorded)+len(rt.asserted) > 0 {
		scan := append(append(append([][3]kb.ID(nil), rt.marked...), rt.unrecorded...), rt.asserted...)
		if rerr := e.pruneRecords(context.WithoutCancel(ctx), scan, lost, rt.unrecorded, &e.held); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// pruneRecords adds to delta the rewrite of every derivation batch that
// may hold a derivation of a marked triple: entries that derive a lost
// triple or use one as a premise go, and a batch left empty goes with its
// range quads.
func (e *Engine) pruneRecords(ctx context.Context, marked, lost, unrecorded [][3]kb.ID, delta *kb.Delta) error {
	x := &explainer{ctx: ctx, ds: e.ds, derivG: e.derivG}
	if err := x.readRanges(); err != nil {
		return fmt.Errorf("reasoner: reading derivation ranges: %w", err)
	}
	if len(x.ranges) == 0 {
		return nil
	}
	// isLost: 1 for a triple no longer in the store, 2 for one whose
	// records go but that stays asserted (still a valid premise).
	isLost := make(map[[3]kb.ID]uint8, len(lost)+len(unrecorded))
	for _, t := range lost {
		isLost[t] = 1
	}
	for _, t := range unrecorded {
		isLost[t] = 2
	}
	// Marked triples that came back may keep records of derivations
	// through lost triples: those batches are read too.
	subjects := make([]kb.ID, 0, len(marked))
	for _, t := range marked {
		subjects = append(subjects, t[0])
	}
	slices.Sort(subjects)
	subjects = slices.Compact(subjects)
	var lits []kb.Term
	var bounds [][2]kb.ID
	// recorded: triples with an entry left in a batch read; unbacked:
	// asserted triples that lost an entry.
	recorded := map[[3]kb.ID]bool{}
	var unbacked [][3]kb.ID
	defer func() {
		// An asserted triple with no recorded derivation left keeps no
		// inferred copy: it stands as asserted, as in a run from scratch.
		for _, t := range unbacked {
			if !recorded[t] {
				delta.Remove = append(delta.Remove, kb.Quad{S: t[0], P: t[1], O: t[2], G: e.graphOf(t[1])})
			}
		}
	}()
	for _, r := range x.ranges {
		i, _ := slices.BinarySearch(subjects, r.first)
		if i == len(subjects) || subjects[i] > r.last {
			continue
		}
		term, err := e.ds.Resolve(ctx, r.batch)
		if err != nil {
			return fmt.Errorf("reasoner: reading a derivation batch: %w", err)
		}
		kept, first, last, dropped, err := pruneBatch(term.Value, subjects, isLost, recorded)
		if err != nil {
			return err
		}
		changed := len(dropped) > 0
		for _, t := range dropped {
			e.need(t[1], t[0], t[2])
			if tb := e.ts.tables[t[1]]; tb != nil && isLost[t] == 0 {
				if r := tb.lookup(t[0], t[2]); r >= 0 && tb.asrt[r] > 0 {
					unbacked = append(unbacked, t)
				}
			}
		}
		if !changed {
			continue
		}
		delta.Remove = append(delta.Remove, kb.Quad{S: r.first, P: e.derivFirstP, O: r.batch, G: e.derivG})
		if r.last != r.first {
			delta.Remove = append(delta.Remove, kb.Quad{S: r.last, P: e.derivLastP, O: r.batch, G: e.derivG})
		}
		if kept != "" {
			lits = append(lits, kb.Literal(kept, DerivationBatchDatatypeIRI))
			bounds = append(bounds, [2]kb.ID{first, last})
		}
	}
	if len(lits) == 0 {
		return nil
	}
	ids, err := e.ds.Intern(ctx, lits)
	if err != nil {
		return fmt.Errorf("reasoner: interning derivation records: %w", err)
	}
	for i, id := range ids {
		delta.Add = append(delta.Add, kb.Quad{S: bounds[i][0], P: e.derivFirstP, O: id, G: e.derivG})
		if bounds[i][1] != bounds[i][0] {
			delta.Add = append(delta.Add, kb.Quad{S: bounds[i][1], P: e.derivLastP, O: id, G: e.derivG})
		}
	}
	return nil
}

// pruneBatch drops from a batch literal the entries that derive a triple
// of isLost or name one lost from the store as a premise, notes the
// triples of the entries it keeps in recorded, and returns the kept lines
// (in subject order), their lowest and highest subject and the triples
// of the dropped entries. An entry to drop derives a marked or asserted
// triple (over-deleting marked the head of every derivation through a
// lost premise), so only the entries whose subject is in subjects (sorted)
// are decoded whole; the others are kept as they are, and kept is lex
// itself when nothing is dropped.
func pruneBatch(lex string, subjects []kb.ID, isLost map[[3]kb.ID]uint8, recorded map[[3]kb.ID]bool) (kept string, first, last kb.ID, dropped [][3]kb.ID, err error) {
	var b strings.Builder
	var ids []kb.ID
	copied := 0 // lex[:copied] is in b, or nothing dropped yet
	firstSet := false
	for start := 0; start <= len(lex); {
		end := strings.IndexByte(lex[start:], '\n')
		if end < 0 {
			end = len(lex)
		} else {
			end += start
		}
		line := lex[start:end]
		lineStart := start
		start = end + 1
		ids, err = parseEntryHead(line, ids[:0])
		if err != nil {
			return "", 0, 0, nil, err
		}
		s := ids[1]
		if _, in := slices.BinarySearch(subjects, s); in {
			ids, err = parseEntry(line, ids[:0])
			if err != nil {
				return "", 0, 0, nil, err
			}
			if len(ids) < 4 || (len(ids)-4)%3 != 0 {
				return "", 0, 0, nil, fmt.Errorf("derivation batch: entry of %d IDs", len(ids))
			}
			drop := isLost[[3]kb.ID{ids[1], ids[2], ids[3]}] != 0
			for i := 4; i+2 < len(ids) && !drop; i += 3 {
				drop = isLost[[3]kb.ID{ids[i], ids[i+1], ids[i+2]}] == 1
			}
			if drop {
				dropped = append(dropped, [3]kb.ID{ids[1], ids[2], ids[3]})
				if b.Len() == 0 && copied == 0 {
					// The first drop: the lines before it are kept.
					b.WriteString(strings.TrimSuffix(lex[:lineStart], "\n"))
				}
				copied = -1
				continue
			}
			recorded[[3]kb.ID{ids[1], ids[2], ids[3]}] = true
		}
		if !firstSet {
			first, firstSet = s, true
		}
		last = s
		if copied < 0 {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
	}
	if len(dropped) == 0 {
		return lex, first, last, nil, nil
	}
	return b.String(), first, last, dropped, nil
}

// parseEntryHead appends the first two IDs of a batch entry (its rule
// label and subject) to ids.
func parseEntryHead(line string, ids []kb.ID) ([]kb.ID, error) {
	n := len(ids)
	ids, err := parseIDs(line, ids, 2)
	if err == nil && len(ids)-n < 2 {
		err = fmt.Errorf("derivation batch: entry %q without a subject", line)
	}
	return ids, err
}

// parseEntry appends the base-36 IDs of one batch entry to ids; a batch
// holds thousands of them, so it neither splits the line nor allocates.
func parseEntry(line string, ids []kb.ID) ([]kb.ID, error) {
	return parseIDs(line, ids, -1)
}

// parseIDs is parseEntry stopping after limit IDs (limit < 0: all).
func parseIDs(line string, ids []kb.ID, limit int) ([]kb.ID, error) {
	var n uint64
	got := 0
	in := false
	for i := 0; i <= len(line); i++ {
		var c byte = ' '
		if i < len(line) {
			c = line[i]
		}
		var d uint64
		switch {
		case c == ' ' || c == '\t':
			if in {
				ids = append(ids, kb.ID(n))
				n, in = 0, false
				if got++; got == limit {
					return ids, nil
				}
			}
			continue
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'z':
			d = uint64(c-'a') + 10
		default:
			return ids, fmt.Errorf("derivation batch: %q is not a base-36 ID", line)
		}
		if n > (math.MaxUint64-d)/36 {
			return ids, fmt.Errorf("derivation batch: ID out of range in %q", line)
		}
		n, in = n*36+d, true
	}
	return ids, nil
}
