package reasoner

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner/builtins"
	"github.com/perfkb/perfkb/reasoner/rulelang"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/textpos"
)

// Program is a compiled rule set: rules checked (builtins exist, arities,
// every head variable bound) and turned into slot-addressed clauses. It is
// independent of any store; an Engine binds it to one.
type Program struct {
	rules  []*compiledRule
	aggs   []*aggRule // SPARQL rules (aggregate.go)
	source *rulelang.RuleSet
	advice []rules.Advice
}

// Advice returns the #@advice comments of the files the program was loaded
// from (LoadSources), in file order.
func (p *Program) Advice() []rules.Advice { return p.advice }

// Rules returns the source rules in Jena syntax, in file order;
// SPARQLRules returns the others.
func (p *Program) Rules() []*rulelang.Rule { return p.source.Rules }

// SPARQLRules returns the source rules written as SPARQL CONSTRUCT
// queries, in file order.
func (p *Program) SPARQLRules() []*rulelang.SPARQLRule { return p.source.SPARQLRules }

// Len returns the number of rules, SPARQL rules included.
func (p *Program) Len() int { return len(p.rules) + len(p.aggs) }

type slotKind uint8

const (
	slotConst slotKind = iota + 1
	slotVar
	slotFunctor
)

// slot is a compiled node: a constant term, a variable slot, or a functor
// whose arguments are slots (only in heads).
type slot struct {
	kind    slotKind
	term    kb.Term
	v       int
	name    string
	args    []slot
	pos     textpos.Position
	functor string
}

type compiledCall struct {
	b       *builtins.Builtin
	args    []slot
	outputs map[int]bool
	pos     textpos.Position
}

type compiledClause struct {
	triple *[3]slot
	call   *compiledCall
	index  int // position in the body
}

type compiledRule struct {
	index    int
	label    string
	rule     *rulelang.Rule
	varNames []string
	body     []compiledClause
	head     []compiledClause
	patterns []int // body indices of the triple patterns
}

// Compile checks and compiles a parsed rule set. Errors are a
// textpos.ErrorList with positions.
func Compile(rs *rulelang.RuleSet) (*Program, error) {
	prog := &Program{source: rs}
	var errs textpos.ErrorList
	for i, r := range rs.Rules {
		cr := compileRule(i, r, &errs)
		prog.rules = append(prog.rules, cr)
	}
	prog.aggs = compileSPARQLRules(rs, prog.rules, &errs)
	errs.Sort()
	if len(errs) > 0 {
		return nil, errs
	}
	return prog, nil
}

func compileRule(index int, r *rulelang.Rule, errs *textpos.ErrorList) *compiledRule {
	cr := &compiledRule{index: index, label: r.Label(), rule: r}
	vars := map[string]int{}
	varSlot := func(n rulelang.Node) slot {
		v, ok := vars[n.Var]
		if !ok {
			v = len(cr.varNames)
			vars[n.Var] = v
			cr.varNames = append(cr.varNames, n.Var)
		}
		return slot{kind: slotVar, v: v, name: n.Var, pos: n.Pos}
	}
	var node func(n rulelang.Node) slot
	node = func(n rulelang.Node) slot {
		switch n.Kind {
		case rulelang.NodeVar:
			return varSlot(n)
		case rulelang.NodeFunctor:
			s := slot{kind: slotFunctor, functor: n.Functor.Name, pos: n.Pos}
			for _, a := range n.Functor.Args {
				s.args = append(s.args, node(a))
			}
			return s
		}
		return slot{kind: slotConst, term: n.Term, pos: n.Pos}
	}
	// bound tracks variables bound by the body, to check calls and heads.
	bound := map[int]bool{}
	var deferredChecks []func()
	compileCall := func(c *rulelang.Call, inHead bool) *compiledCall {
		b, ok := builtins.Lookup(c.Name)
		if !ok {
			errs.Add(c.Pos, "unknown builtin %s", c.Name)
			return nil
		}
		if err := b.CheckArity(len(c.Args)); err != nil {
			errs.Add(c.Pos, "%v", err)
			return nil
		}
		if inHead && b.Head == nil {
			errs.Add(c.Pos, "builtin %s cannot be used in a rule head", c.Name)
			return nil
		}
		if !inHead && b.Body == nil {
			errs.Add(c.Pos, "builtin %s can only be used in a rule head", c.Name)
			return nil
		}
		cc := &compiledCall{b: b, pos: c.Pos, outputs: map[int]bool{}}
		if b.Outputs != nil && !inHead {
			for _, i := range b.Outputs(len(c.Args)) {
				cc.outputs[i] = true
			}
		}
		for _, a := range c.Args {
			s := node(a)
			if s.kind == slotFunctor {
				errs.Add(a.Pos, "a functor cannot be a builtin argument")
			}
			if s.kind == slotConst && b.CheckConst != nil {
				if err := b.CheckConst(len(cc.args), s.term); err != nil {
					errs.Add(a.Pos, "%v", err)
				}
			}
			cc.args = append(cc.args, s)
		}
		return cc
	}
	for i, c := range r.Body {
		cc := compiledClause{index: i}
		if c.Triple != nil {
			var t [3]slot
			for j, n := range c.Triple {
				t[j] = node(n)
				if t[j].kind == slotFunctor {
					constant := true
					for _, a := range t[j].args {
						if a.kind != slotConst {
							constant = false
						}
					}
					if !constant {
						// The functor's value would need bindings that a
						// pattern cannot supply; encoding it anyway read
						// missing variable values and panicked.
						errs.Add(n.Pos, "a functor with variables or nested functors cannot be matched in a rule body; bind its parts with separate patterns")
						t[j] = slot{kind: slotConst, pos: n.Pos}
						continue
					}
					t[j] = slot{kind: slotConst, term: functorTerm(t[j], nil), pos: n.Pos}
				}
				if t[j].kind == slotVar {
					bound[t[j].v] = true
				}
			}
			cc.triple = &t
			cr.patterns = append(cr.patterns, i)
		} else {
			cc.call = compileCall(c.Call, false)
			if cc.call == nil {
				continue
			}
			call := cc.call
			for j, a := range call.args {
				if a.kind == slotVar && call.outputs[j] {
					bound[a.v] = true
				}
			}
			deferredChecks = append(deferredChecks, func() {
				for j, a := range call.args {
					if a.kind == slotVar && !call.outputs[j] && !bound[a.v] {
						errs.Add(a.pos, "variable ?%s in %s is never bound by the rule body", a.name, call.b.Name)
					}
				}
			})
		}
		cr.body = append(cr.body, cc)
	}
	for _, check := range deferredChecks {
		check()
	}
	var checkHeadSlot func(s slot)
	checkHeadSlot = func(s slot) {
		switch s.kind {
		case slotVar:
			if !bound[s.v] {
				errs.Add(s.pos, "head variable ?%s is not bound by the rule body", s.name)
			}
		case slotFunctor:
			for _, a := range s.args {
				checkHeadSlot(a)
			}
		}
	}
	for _, c := range r.Head {
		cc := compiledClause{index: -1}
		if c.Triple != nil {
			var t [3]slot
			for j, n := range c.Triple {
				t[j] = node(n)
				checkHeadSlot(t[j])
			}
			cc.triple = &t
		} else {
			cc.call = compileCall(c.Call, true)
			if cc.call == nil {
				continue
			}
			for _, a := range cc.call.args {
				checkHeadSlot(a)
			}
			if cc.call.b.Name == "remove" || cc.call.b.Name == "drop" {
				for _, a := range cc.call.args {
					n, ok := builtins.NumberOf(a.term)
					if a.kind != slotConst || !ok || !n.IsInt || n.Int < 0 || int(n.Int) >= len(r.Body) || r.Body[n.Int].Triple == nil {
						errs.Add(a.pos, "%s: %s is not the index of a triple pattern in the body (0-based)", cc.call.b.Name, a.term)
					}
				}
			}
		}
		cr.head = append(cr.head, cc)
	}
	return cr
}

// functorTerm encodes a functor value name(args) as a literal; vals gives
// the variable values (nil when every argument is constant).
func functorTerm(s slot, vals []kb.Term) kb.Term {
	text := s.functor + "("
	for i, a := range s.args {
		if i > 0 {
			text += " "
		}
		switch a.kind {
		case slotConst:
			text += a.term.String()
		case slotVar:
			text += vals[a.v].String()
		case slotFunctor:
			text += functorTerm(a, vals).Value
		}
	}
	return kb.Literal(text+")", builtins.FunctorDatatype)
}
