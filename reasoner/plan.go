package reasoner

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner/builtins"
)

type posMode uint8

const (
	modeConst posMode = iota + 1 // a constant ID
	modeBound                    // a variable bound before this step
	modeFree                     // a variable this step binds
	modeSame                     // a variable bound earlier in this same pattern
)

type genMode uint8

const (
	genDelta genMode = iota + 1 // rows of the newest generation only
	genOld                      // rows older than the newest generation
	genAll                      // every live row up to the newest generation
)

type position struct {
	mode posMode
	id   kb.ID // modeConst
	v    int   // variable slot
	same int   // modeSame: the position (0 s, 1 p) it must equal
}

type boundCall struct {
	c    *compiledCall
	args []position // modeConst or a variable slot (mode ignored)
	// binds marks the argument positions whose variable this call binds
	// (outputs not bound before the call in this plan).
	binds map[int]bool
	// kindTest answers a one-argument term test (isLiteral, notLiteral,
	// isBNode, notBNode) from the store's encoding tag (kindtest.go);
	// nil for other calls.
	kindTest *kindTest
}

type planStep struct {
	clause  int
	s, p, o position
	gen     genMode
	calls   []*boundCall // run after this step matched
}

// plan is one join order of a rule: the delta pattern first (or no
// patterns at all), then the others, with builtins placed as soon as their
// inputs are bound.
type plan struct {
	rule  *boundRule
	steps []planStep
	pre   []*boundCall // calls that need no pattern
	final []*boundCall // deferred calls, after every pattern
	// headCheck: every head variable is bound before the final calls, so
	// a match whose head triples all exist can skip them.
	headCheck bool
}

type boundRule struct {
	index int
	cr    *compiledRule
	// labelID is the store ID of the rule's label literal, which
	// derivation records name the rule by.
	labelID kb.ID
	// serial: the rule has builtins whose effects depend on the order of
	// matches (print, remove, drop, makeTemp), so rounds run on one worker.
	serial bool
	// needsID marks variables that a pattern or a head triple uses; other
	// variables a builtin binds stay terms (transient), never interned.
	needsID []bool
	// triplesOnly: the head has only triples, so a match whose head
	// triples all exist can stop before its trailing filters.
	triplesOnly bool
	patterns    map[int][3]position // body index -> constant/var positions
	head        []headClause
	// skolemIn lists the pattern variables that the builtins making a
	// head-only variable (a makeSkolem node) read: retraction binds them
	// to rederive such a head (see retract.go).
	skolemIn   []int
	headOnly   map[int]bool
	skolems    []skolemCall // makeSkolem calls making head-only variables
	plans      []*plan      // one per body pattern, that pattern taking the delta
	full       *plan        // no delta: the first round over freshly loaded data
	noPatterns *plan
}

type headClause struct {
	triple *[3]slot
	ids    [3]kb.ID // interned constants of triple (kb.Any elsewhere)
	call   *boundCall
}

// bind interns the program's constants and builds the plans.
func (e *Engine) bind(ctx context.Context) error {
	for _, cr := range e.prog.rules {
		br := &boundRule{index: cr.index, cr: cr, patterns: map[int][3]position{},
			needsID: make([]bool, len(cr.varNames)), triplesOnly: true}
		if !e.opts.NoDerivations {
			id, err := e.intern(ctx, kb.Literal(strings.ReplaceAll(cr.label, "\n", " "), RuleLabelDatatypeIRI))
			if err != nil {
				return err
			}
			br.labelID = id
		}
		var mark func(s slot)
		mark = func(s slot) {
			switch s.kind {
			case slotVar:
				br.needsID[s.v] = true
			case slotFunctor:
				for _, a := range s.args {
					mark(a)
				}
			}
		}
		for _, c := range cr.body {
			if c.triple != nil {
				for _, s := range c.triple {
					mark(s)
				}
			} else {
				if c.call.b.Name == "print" {
					br.triplesOnly = false // prints on every match, as in Jena
				}
				br.serial = br.serial || orderDependent[c.call.b.Name]
			}
		}
		for _, c := range cr.head {
			if c.triple != nil {
				for _, s := range c.triple {
					mark(s)
				}
			} else {
				br.triplesOnly = false
				br.serial = br.serial || orderDependent[c.call.b.Name]
			}
		}
		for _, c := range cr.body {
			if c.triple == nil {
				continue
			}
			var ps [3]position
			for j, s := range c.triple {
				p, err := e.bindSlot(ctx, s)
				if err != nil {
					return err
				}
				ps[j] = p
			}
			br.patterns[c.index] = ps
		}
		for _, c := range cr.head {
			if c.triple != nil {
				h := headClause{triple: c.triple}
				for j, s := range c.triple {
					if err := e.internConsts(ctx, s); err != nil {
						return err
					}
					if s.kind == slotConst {
						h.ids[j] = e.ids[s.term]
					}
				}
				br.head = append(br.head, h)
				continue
			}
			bc, err := e.bindCall(ctx, c.call)
			if err != nil {
				return err
			}
			br.head = append(br.head, headClause{call: bc})
		}
		br.skolemIn, br.headOnly = skolemInputs(cr)
		e.rules = append(e.rules, br)
	}
	if err := e.plan(ctx); err != nil {
		return err
	}
	for _, br := range e.rules {
		br.skolems = skolemCalls(br) // constID reads the plans
	}
	e.negation = false
	for _, br := range e.rules {
		if idx, _ := noValueArgs(br); len(idx) > 0 {
			e.negation = true
		}
	}
	e.setWorkers()
	return nil
}

// plan (re)builds every rule's join plans from the current table sizes.
// Rounds call it again, since derived triples change the sizes (a helper
// predicate is empty when the program is bound).
func (e *Engine) plan(ctx context.Context) error {
	for _, br := range e.rules {
		if err := e.planRule(ctx, br); err != nil {
			return err
		}
	}
	return nil
}

// replan orders anew, from the current table sizes, the plans of the
// rules that join in this round (a body pattern's table has rows of
// generation e.cur); the others keep theirs until they next join. A
// retraction's rounds join a handful of rules, an addition's a few more:
// ordering all of them again each round cost more than the joins.
func (e *Engine) replan(ctx context.Context) error {
	for _, br := range e.rules {
		joins := len(br.plans) == 0 && br.full == nil && br.noPatterns == nil
		for _, pl := range br.plans {
			joins = joins || e.hasDelta(pl)
		}
		if !joins {
			continue
		}
		if err := e.planRule(ctx, br); err != nil {
			return err
		}
	}
	return nil
}

// planRule makes rule br's plans: the whole body, and one per body
// pattern taking the delta.
func (e *Engine) planRule(ctx context.Context, br *boundRule) error {
	pl, err := e.makePlan(ctx, br, -1)
	if err != nil {
		return err
	}
	if len(br.cr.patterns) == 0 {
		br.noPatterns = pl
	} else {
		br.full = pl
	}
	br.plans = br.plans[:0]
	for _, i := range br.cr.patterns {
		pl, err := e.makePlan(ctx, br, i)
		if err != nil {
			return err
		}
		br.plans = append(br.plans, pl)
	}
	return nil
}

func (e *Engine) bindSlot(ctx context.Context, s slot) (position, error) {
	switch s.kind {
	case slotVar:
		return position{mode: modeFree, v: s.v}, nil
	case slotConst:
		id, err := e.intern(ctx, s.term)
		return position{mode: modeConst, id: id}, err
	}
	return position{}, fmt.Errorf("reasoner: %s: unexpected functor", s.pos)
}

func (e *Engine) internConsts(ctx context.Context, s slot) error {
	switch s.kind {
	case slotConst:
		_, err := e.intern(ctx, s.term)
		return err
	case slotFunctor:
		for _, a := range s.args {
			if err := e.internConsts(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Engine) bindCall(ctx context.Context, c *compiledCall) (*boundCall, error) {
	bc := &boundCall{c: c, kindTest: e.kindTestFor(c)}
	for _, a := range c.args {
		p, err := e.bindSlot(ctx, a)
		if err != nil {
			return nil, err
		}
		bc.args = append(bc.args, p)
	}
	return bc, nil
}

// makePlan orders the rule's patterns with the delta pattern (body index
// delta, or -1) first, then greedily the pattern with the most bound
// positions, ties broken by the smaller predicate table.
func (e *Engine) makePlan(ctx context.Context, br *boundRule, delta int) (*plan, error) {
	return e.makePlanBound(ctx, br, delta, nil, -1)
}

// makePlanBound is makePlan for a join whose variables pre are bound
// before it starts (retraction seeds a rule with one triple), leaving out
// the body call at clause index drop (-1: none).
func (e *Engine) makePlanBound(ctx context.Context, br *boundRule, delta int, pre []int, drop int) (*plan, error) {
	cr := br.cr
	pl := &plan{rule: br}
	bound := map[int]bool{}
	for _, v := range pre {
		bound[v] = true
	}
	var calls []*boundCall
	placed := map[*boundCall]bool{}
	for _, c := range cr.body {
		if c.call == nil || c.index == drop {
			continue
		}
		bc, err := e.bindCall(ctx, c.call)
		if err != nil {
			return nil, err
		}
		calls = append(calls, bc)
	}
	// Variables of the body patterns: a call binding one of them must run
	// before the pattern that uses it; a call binding only others (a
	// skolem, a description) can wait until the filters have passed.
	patternVar := map[int]bool{}
	for _, ps := range br.patterns {
		for _, p := range ps {
			if p.mode != modeConst {
				patternVar[p.v] = true
			}
		}
	}
	lazy := func(bc *boundCall) bool {
		binds, forPattern := false, false
		for j, a := range bc.args {
			if a.mode == modeFree && bc.c.outputs[j] && !bound[a.v] {
				binds = true
				forPattern = forPattern || patternVar[a.v]
			}
		}
		return binds && !forPattern
	}
	// placeCalls returns the calls whose inputs are all bound now, binding
	// their outputs; deferred and lazy calls wait for the end.
	placeCalls := func(final bool) []*boundCall {
		var out []*boundCall
		for progress := true; progress; {
			progress = false
			for _, bc := range calls {
				if placed[bc] || (!final && (bc.c.b.Deferred || lazy(bc))) {
					continue
				}
				ready := true
				for j, a := range bc.args {
					if a.mode == modeFree && !bound[a.v] && !bc.c.outputs[j] {
						ready = false
					}
				}
				if !ready && !final {
					continue
				}
				placed[bc] = true
				progress = true
				out = append(out, bc)
				bc.binds = map[int]bool{}
				for j, a := range bc.args {
					if a.mode == modeFree && bc.c.outputs[j] && !bound[a.v] {
						bc.binds[j] = true
					}
				}
				for j, a := range bc.args {
					if bc.binds[j] {
						bound[a.v] = true
					}
				}
			}
		}
		return out
	}
	pl.pre = placeCalls(false)
	remaining := append([]int(nil), cr.patterns...)
	take := func(i int) {
		for k, r := range remaining {
			if r == i {
				remaining = append(remaining[:k], remaining[k+1:]...)
				break
			}
		}
		ps := br.patterns[i]
		st := planStep{clause: i, gen: genAll}
		switch {
		case i == delta:
			st.gen = genDelta
		case delta >= 0 && i < delta:
			st.gen = genOld
		}
		var out [3]position
		for j, p := range ps {
			if p.mode == modeConst {
				out[j] = p
				continue
			}
			switch {
			case bound[p.v]:
				out[j] = position{mode: modeBound, v: p.v}
			default:
				out[j] = position{mode: modeFree, v: p.v}
				for k := 0; k < j; k++ {
					if out[k].mode == modeFree && out[k].v == p.v {
						out[j] = position{mode: modeSame, v: p.v, same: k}
					}
				}
			}
		}
		for _, p := range out {
			if p.mode == modeFree {
				bound[p.v] = true
			}
		}
		st.s, st.p, st.o = out[0], out[1], out[2]
		st.calls = placeCalls(false)
		pl.steps = append(pl.steps, st)
	}
	if delta >= 0 {
		take(delta)
	}
	for len(remaining) > 0 {
		best, bestCost := -1, 0.0
		for _, i := range remaining {
			cost := e.estimate(br.patterns[i], bound)
			if best < 0 || cost < bestCost {
				best, bestCost = i, cost
			}
		}
		take(best)
	}
	pl.final = placeCalls(true)
	// Pure filters after the last pattern run after the head check, so a
	// match that derives nothing new skips them.
	if n := len(pl.steps); n > 0 {
		last := &pl.steps[n-1]
		var keep, filters []*boundCall
		for _, bc := range last.calls {
			if len(bc.binds) == 0 {
				filters = append(filters, bc)
			} else {
				keep = append(keep, bc)
			}
		}
		last.calls = keep
		pl.final = append(filters, pl.final...)
	}
	pl.headCheck = br.triplesOnly
	for _, bc := range pl.final {
		for j := range bc.binds {
			for _, h := range br.head {
				for _, sl := range h.triple {
					if sl.kind != slotConst && slotUses(sl, bc.args[j].v) {
						pl.headCheck = false
					}
				}
			}
		}
	}
	return pl, nil
}

// slotUses reports whether a head slot mentions variable v.
func slotUses(s slot, v int) bool {
	switch s.kind {
	case slotVar:
		return s.v == v
	case slotFunctor:
		for _, a := range s.args {
			if slotUses(a, v) {
				return true
			}
		}
	}
	return false
}

// estimate guesses how many rows a pattern yields per probe, given the
// variables bound so far: index sizes for constants, average fan-out for
// bound variables.
func (e *Engine) estimate(ps [3]position, bound map[int]bool) float64 {
	if e.demand != nil && !e.demand.full {
		return e.estimateStored(ps, bound)
	}
	isConst := func(p position) bool { return p.mode == modeConst }
	isBound := func(p position) bool { return p.mode != modeConst && bound[p.v] }
	s, p, o := ps[0], ps[1], ps[2]
	if !isConst(p) {
		n := float64(e.ts.size())
		if isConst(s) || isBound(s) || isConst(o) || isBound(o) {
			n /= 100
		}
		if isBound(p) {
			n /= 10
		}
		return n + 1
	}
	t := e.ts.tables[p.id]
	if t == nil || t.live == 0 {
		return 0
	}
	live := float64(t.live)
	switch {
	case (isConst(s) || isBound(s)) && (isConst(o) || isBound(o)):
		return 0.5
	case isConst(s):
		return float64(len(t.subjects()[s.id]))
	case isConst(o):
		return float64(len(t.objects()[o.id]))
	case isBound(s):
		return live / float64(max(1, len(t.subjects())))
	case isBound(o):
		return live / float64(max(1, len(t.objects())))
	}
	return live
}

// transientID marks a variable whose value is only in joiner.tvals.
const transientID = ^kb.ID(0)

// --- evaluation ---

// joiner evaluates one plan; it is also the builtins.Env of the calls it
// makes.
type joiner struct {
	e     *Engine
	ctx   context.Context
	pl    *plan
	out   *output
	vals  []kb.ID
	tvals []kb.Term // values of transient variables (vals[v] == transientID)
	prem  []premRef // by body clause index
	steps int
	// lo ≤ row < hi bounds the rows the first step reads (hi < 0: all),
	// the part of the plan's input this joiner was given.
	lo, hi int32
	// cs holds each call's reused invocation (a call never re-enters
	// itself within one joiner).
	cs map[*boundCall]*callState
	// collect, when set, receives every head triple of every match,
	// whether the working memory has it or not, and head calls do not
	// run: retraction uses it to find what a removed triple supported.
	collect func(h [3]kb.ID, vals []kb.ID)
	// skip, when set, is asked of each row a step matches (with the body
	// clause it matches) whether the partial match is to be dropped with
	// everything that extends it: over-deleting finds each derivation
	// from one of its premises only (see retraction.overDelete).
	skip func(t *table, r int32, clause int) bool
}

type callState struct {
	call builtins.Call
	buf  []kb.Term
}

// orderDependent names the builtins whose effects depend on the order in
// which matches are found.
var orderDependent = map[string]bool{"print": true, "remove": true, "drop": true, "makeTemp": true}

// evaluate runs plan pl over the rows lo ≤ row < hi of its first step
// (hi < 0: all), collecting derived triples in out.
func (e *Engine) evaluate(ctx context.Context, pl *plan, out *output, lo, hi int32) error {
	return e.evaluateBound(ctx, pl, out, lo, hi, nil, nil)
}

// evaluateBound is evaluate with the variables of preset that are not
// kb.Any bound before the join starts (the plan must have been made with
// them bound) and, when collect is set, the head triples handed to it.
func (e *Engine) evaluateBound(ctx context.Context, pl *plan, out *output, lo, hi int32, preset []kb.ID, collect func(h [3]kb.ID, vals []kb.ID)) error {
	return e.evaluateWith(ctx, nil, pl, out, lo, hi, preset, collect)
}

// evaluateWith is evaluateBound reusing joiner x (nil: a new one), which
// saves retraction, which joins many times with few matches each, the
// allocations.
func (e *Engine) evaluateWith(ctx context.Context, x *joiner, pl *plan, out *output, lo, hi int32, preset []kb.ID, collect func(h [3]kb.ID, vals []kb.ID)) error {
	nv, nb := len(pl.rule.cr.varNames), len(pl.rule.cr.body)
	if x == nil {
		x = &joiner{cs: map[*boundCall]*callState{}}
	}
	*x = joiner{e: e, ctx: ctx, pl: pl, out: out, lo: lo, hi: hi, collect: collect,
		vals: grow(x.vals, nv), tvals: grow(x.tvals, nv), prem: grow(x.prem, nb), cs: x.cs, skip: x.skip}
	copy(x.vals, preset)
	ok, err := x.calls(pl.pre)
	if err != nil || !ok {
		return err
	}
	return x.step(0)
}

// grow returns s cleared, with length n, reusing its array when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (x *joiner) step(k int) error {
	if k == len(x.pl.steps) {
		if x.collect == nil && x.pl.headCheck && x.headExists() {
			return nil // nothing new to derive: skip the trailing filters
		}
		ok, err := x.calls(x.pl.final)
		if err != nil || !ok {
			return err
		}
		return x.fire()
	}
	st := &x.pl.steps[k]
	get := func(p position) kb.ID {
		switch p.mode {
		case modeConst:
			return p.id
		case modeBound:
			return x.vals[p.v]
		}
		return kb.Any
	}
	s, p, o := get(st.s), get(st.p), get(st.o)
	if st.gen != genDelta {
		// The delta is what this engine derived: in memory whole.
		x.e.need(p, s, o)
	}
	if p != kb.Any {
		t := x.e.ts.tables[p]
		if t == nil {
			return nil
		}
		return x.scan(k, st, t, s, o)
	}
	for _, t := range x.e.ts.order {
		if err := x.scan(k, st, t, s, o); err != nil {
			return err
		}
	}
	return nil
}

func (x *joiner) genOK(st *planStep, g uint32) bool {
	cur := x.e.cur
	switch st.gen {
	case genDelta:
		return g == cur
	case genOld:
		return g < cur
	}
	return g <= cur
}

// scan matches step k against table t with s and o possibly known.
func (x *joiner) scan(k int, st *planStep, t *table, s, o kb.ID) error {
	switch {
	case s != kb.Any && o != kb.Any:
		if r := t.lookup(s, o); r >= 0 {
			return x.match(k, st, t, r)
		}
		return nil
	case s != kb.Any:
		for _, r := range t.subjects()[s] {
			if err := x.match(k, st, t, r); err != nil {
				return err
			}
		}
		return nil
	case o != kb.Any:
		for _, r := range t.objects()[o] {
			if err := x.match(k, st, t, r); err != nil {
				return err
			}
		}
		return nil
	}
	from := 0
	if st.gen == genDelta {
		if !t.hasDelta(x.e.cur) {
			return nil
		}
		from = t.newest
	}
	n := len(t.s)
	if k == 0 && x.hi >= 0 {
		from, n = max(from, int(x.lo)), min(n, int(x.hi))
	}
	for r := from; r < n; r++ {
		if err := x.match(k, st, t, int32(r)); err != nil {
			return err
		}
	}
	return nil
}

func (x *joiner) match(k int, st *planStep, t *table, r int32) error {
	if !x.genOK(st, t.gen[r]) || k == 0 && x.hi >= 0 && (r < x.lo || r >= x.hi) {
		return nil
	}
	if x.skip != nil && x.skip(t, r, st.clause) {
		return nil
	}
	if x.steps++; x.steps&0x3fff == 0 {
		if err := x.ctx.Err(); err != nil {
			return err
		}
	}
	vals := [3]kb.ID{t.s[r], t.p, t.o[r]}
	pos := [3]*position{&st.s, &st.p, &st.o}
	for j, p := range pos {
		switch p.mode {
		case modeFree:
			x.vals[p.v] = vals[j]
		case modeSame:
			if vals[j] != vals[p.same] {
				return nil
			}
		}
	}
	x.prem[st.clause] = premRef{t: t, row: r}
	ok, err := x.calls(st.calls)
	if err != nil {
		return err
	}
	if ok {
		if err := x.step(k + 1); err != nil {
			return err
		}
	}
	return nil
}

// calls runs body builtins in order; any that fails makes the match fail.
// Output variables are cleared before each call, so a call never sees the
// value it bound for a previous match.
func (x *joiner) calls(cs []*boundCall) (bool, error) {
	for _, bc := range cs {
		if bc.kindTest != nil {
			if pass, known := x.e.testKind(bc, x.vals); known {
				if !pass {
					return false, nil
				}
				continue
			}
		}
		for j := range bc.binds {
			x.vals[bc.args[j].v] = kb.Any
		}
		c, err := x.makeCall(bc)
		if err != nil {
			return false, err
		}
		ok, err := bc.c.b.Body(c)
		if err != nil {
			return false, fmt.Errorf("%s: rule %s: %s: %w", bc.c.pos, x.pl.rule.cr.label, bc.c.b.Name, err)
		}
		if !ok {
			return false, nil
		}
		for j := range bc.binds {
			a := bc.args[j]
			if x.vals[a.v] != kb.Any || c.Args[j].IsZero() {
				continue // bound by an earlier output of the same call
			}
			if !x.pl.rule.needsID[a.v] {
				x.vals[a.v], x.tvals[a.v] = transientID, c.Args[j]
				continue
			}
			id, err := x.e.internLocal(x.ctx, c.Args[j])
			if err != nil {
				return false, err
			}
			x.vals[a.v] = id
		}
	}
	return true, nil
}

func (x *joiner) makeCall(bc *boundCall) (*builtins.Call, error) {
	st := x.cs[bc]
	if st == nil {
		st = &callState{buf: make([]kb.Term, len(bc.args))}
		x.cs[bc] = st
	}
	args := st.buf
	clear(args)
	for j, a := range bc.args {
		var id kb.ID
		if a.mode == modeConst {
			id = a.id
		} else {
			id = x.vals[a.v]
		}
		if id == kb.Any {
			continue
		}
		if id == transientID {
			args[j] = x.tvals[a.v]
			continue
		}
		t, err := x.e.term(x.ctx, id)
		if err != nil {
			return nil, err
		}
		args[j] = t
	}
	st.call = builtins.Call{Name: bc.c.b.Name, Args: args, Env: x}
	return &st.call, nil
}

// headExists reports whether every head triple is already known for the
// current bindings (only when all head variables are bound IDs).
func (x *joiner) headExists() bool {
	for _, h := range x.pl.rule.head {
		var ids [3]kb.ID
		for j, s := range h.triple {
			switch s.kind {
			case slotConst:
				ids[j] = h.ids[j]
			case slotVar:
				ids[j] = x.vals[s.v]
				if ids[j] == kb.Any || ids[j] == transientID {
					return false
				}
			default:
				return false
			}
		}
		x.e.need(ids[1], ids[0], ids[2])
		if !x.e.ts.contains(ids[0], ids[1], ids[2]) {
			if !x.out.set.has(ids) {
				return false
			}
		}
	}
	return true
}

// fire instantiates the head for the current bindings.
func (x *joiner) fire() error {
	e := x.e
	br := x.pl.rule
	for _, h := range br.head {
		if h.call != nil {
			if x.collect != nil {
				continue
			}
			c, err := x.makeCall(h.call)
			if err != nil {
				return err
			}
			if err := h.call.c.b.Head(c); err != nil {
				return fmt.Errorf("%s: rule %s: %s: %w", h.call.c.pos, br.cr.label, h.call.c.b.Name, err)
			}
			continue
		}
		var ids [3]kb.ID
		for j, s := range h.triple {
			switch s.kind {
			case slotConst:
				ids[j] = h.ids[j]
			case slotVar:
				ids[j] = x.vals[s.v]
			case slotFunctor:
				vals := make([]kb.Term, len(x.vals))
				for v, id := range x.vals {
					switch id {
					case kb.Any:
					case transientID:
						vals[v] = x.tvals[v]
					default:
						t, err := e.term(x.ctx, id)
						if err != nil {
							return err
						}
						vals[v] = t
					}
				}
				id, err := e.internLocal(x.ctx, functorTerm(s, vals))
				if err != nil {
					return err
				}
				ids[j] = id
			}
		}
		if ids[0] == kb.Any || ids[1] == kb.Any || ids[2] == kb.Any {
			continue
		}
		if x.collect != nil {
			x.collect(ids, x.vals)
			continue
		}
		if e.ts.contains(ids[0], ids[1], ids[2]) {
			continue
		}
		out := x.out
		if out.set.has(ids) {
			continue
		}
		if e.opts.MaxDerived > 0 && e.summary.Derived+int64(len(out.pending)) >= e.opts.MaxDerived {
			return ErrMaxDerived
		}
		out.set.add(ids)
		d := derivedTriple{s: ids[0], p: ids[1], o: ids[2], rule: int32(br.index)}
		if !e.opts.NoDerivations {
			n := len(x.prem)
			if cap(out.premArea)-len(out.premArea) < n {
				out.premArea = make([]premRef, 0, max(4096, n))
			}
			start := len(out.premArea)
			out.premArea = append(out.premArea, x.prem...)
			d.prem = out.premArea[start : start+n : start+n]
		}
		out.pending = append(out.pending, d)
		if len(out.pending)&4095 == 0 {
			// A round can derive far more than the budget (a cross
			// product): check it as the joiner emits, not only between
			// rounds. checkMemory reads only the heap: safe from workers.
			if err := e.checkMemory(); err != nil {
				return err
			}
		}
	}
	return nil
}

// --- builtins.Env ---

// Exists implements builtins.Env over the working memory.
func (x *joiner) Exists(s, p, o kb.Term) (bool, error) {
	var ids [3]kb.ID
	for j, t := range [3]kb.Term{s, p, o} {
		if t.IsZero() {
			continue
		}
		x.e.mu.Lock()
		id, ok := x.e.ids[t]
		x.e.mu.Unlock()
		if !ok {
			var err error
			id, ok, err = x.e.ds.Lookup(x.ctx, t)
			if err != nil {
				return false, err
			}
			if !ok {
				return false, nil
			}
		}
		ids[j] = id
	}
	x.e.need(ids[1], ids[0], ids[2])
	match := func(t *table) bool {
		switch {
		case ids[0] != kb.Any && ids[2] != kb.Any:
			return t.lookup(ids[0], ids[2]) >= 0
		case ids[0] != kb.Any:
			for _, r := range t.subjects()[ids[0]] {
				if t.gen[r] != deletedGen {
					return true
				}
			}
			return false
		case ids[2] != kb.Any:
			for _, r := range t.objects()[ids[2]] {
				if t.gen[r] != deletedGen {
					return true
				}
			}
			return false
		}
		return t.live > 0
	}
	if ids[1] != kb.Any {
		t := x.e.ts.tables[ids[1]]
		return t != nil && match(t), nil
	}
	for _, t := range x.e.ts.order {
		if match(t) {
			return true, nil
		}
	}
	return false, nil
}

// Print implements builtins.Env.
func (x *joiner) Print(line string) { x.e.print(line) }

// Now implements builtins.Env.
func (x *joiner) Now() time.Time { return x.e.opts.Now() }

// Remove implements builtins.Env: the instantiated body clause n is
// deleted when the round commits.
func (x *joiner) Remove(n int, silent bool) error {
	ps, ok := x.pl.rule.patterns[n]
	if !ok {
		return fmt.Errorf("body clause %d is not a triple pattern", n)
	}
	var ids [3]kb.ID
	for j, p := range ps {
		if p.mode == modeConst {
			ids[j] = p.id
		} else {
			ids[j] = x.vals[p.v]
		}
	}
	x.e.removes = append(x.e.removes, ids)
	return nil
}

// Regexp implements builtins.Env.
func (x *joiner) Regexp(pattern string) (*regexp.Regexp, error) { return x.e.regexp(pattern) }

// NewBlank implements builtins.Env.
func (x *joiner) NewBlank() kb.Term { return x.e.newBlank() }

// Rule implements builtins.Env.
func (x *joiner) Rule() string { return x.pl.rule.cr.label }
