package syntax

import (
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
)

// SPARQL 1.2 triple terms, reified triples and annotations.
//
// A triple term whose parts are all constants is a constant node. One with
// a variable stands for a fresh non-distinguished variable T, recorded with
// its parts as a tripleTermVar. The algebra has no node that nests a
// pattern, so the parser translates the nesting away:
//   - in a WHERE block, the block's pattern P becomes P with T's value
//     taken apart: FILTER(isTRIPLE(?T)), then for each part either
//     BIND(SUBJECT(?T) AS ?v) (a variable P does not bind yet) or
//     FILTER(sameTerm(SUBJECT(?T), part)). Inside the block this is the
//     substitution semantics of the triple pattern; outside it the
//     variables join as any other.
//   - in a CONSTRUCT or update template, T is bound over the solutions by
//     BIND(TRIPLE(s, p, o) AS ?T); a solution leaving a part unbound leaves
//     T unbound, so the template triple is not produced, as for any other
//     unbound template variable.

// tripleTermVar is a triple term with variables: V stands for it.
type tripleTermVar struct {
	v       algebra.Var
	s, p, o algebra.Node
}

// rdfReifies is rdf:reifies, the predicate of reified triples.
var rdfReifies = algebra.TermNode(kb.IRI(ontology.RDFReifies))

// tripleTermNode returns the node for the triple term <<( s p o )>>.
func (p *parser) tripleTermNode(tc *triplesCtx, s, pr, o algebra.Node) algebra.Node {
	constant := true
	for _, n := range []algebra.Node{s, pr, o} {
		// Template blank nodes are minted per solution, so a triple term
		// holding one is built per solution too.
		if n.IsVar() || tc.mode == modeTemplate && n.Term.IsBlank() {
			constant = false
		}
	}
	if constant {
		return algebra.TermNode(kb.TripleTerm(s.Term, pr.Term, o.Term))
	}
	v := p.freshVar()
	tc.tts = append(tc.tts, tripleTermVar{v: v, s: s, p: pr, o: o})
	return algebra.VarNode(v)
}

// tripleTerm parses TripleTerm ::= '<<(' TripleTermSubject Verb TripleTermObject ')>>'.
func (p *parser) tripleTerm(tc *triplesCtx) algebra.Node {
	p.expect("<<(")
	p.enter()
	defer p.leave()
	t := p.peek()
	var s algebra.Node
	switch {
	case t.is("<<("):
		s = p.tripleTerm(tc)
	case t.kind == tokVar || isIRIStart(t) || t.kind == tokBNode || t.is("["):
		s = p.varOrTerm(tc)
	default:
		p.expected("variable, IRI, blank node or triple term as the subject of a triple term")
	}
	verb := p.tripleVerb(tc)
	t = p.peek()
	var o algebra.Node
	switch {
	case t.is("<<("):
		o = p.tripleTerm(tc)
	case t.kind == tokVar || isIRIStart(t) || t.kind == tokBNode || t.is("[") || isLiteralStart(t):
		o = p.varOrTerm(tc)
	default:
		p.expected("variable, IRI, literal, blank node or triple term as the object of a triple term")
	}
	p.expect(")>>")
	return p.tripleTermNode(tc, s, verb, o)
}

// tripleVerb parses the Verb of a triple term or reified triple: a
// variable, an IRI or 'a' (no property path).
func (p *parser) tripleVerb(tc *triplesCtx) algebra.Node {
	t := p.peek()
	switch {
	case t.kind == tokVar:
		return p.checkNode(tc, t, algebra.VarNode(p.variable()))
	case t.kind == tokWord && t.text == "a":
		p.nextTok()
		return algebra.TermNode(kb.IRI(rdfType))
	case isIRIStart(t):
		return algebra.TermNode(kb.IRI(p.iri()))
	}
	p.expected("variable, IRI or 'a' as a predicate")
	return algebra.Node{}
}

// reifiedTriple parses ReifiedTriple ::= '<<' ReifiedTripleSubject Verb
// ReifiedTripleObject Reifier? '>>', adding "r rdf:reifies <<( s p o )>>"
// and returning the reifier r (a fresh blank node without one).
func (p *parser) reifiedTriple(tc *triplesCtx) algebra.Node {
	p.expect("<<")
	p.enter()
	defer p.leave()
	s := p.reifiedPart(tc, false)
	verb := p.tripleVerb(tc)
	o := p.reifiedPart(tc, true)
	var r algebra.Node
	if p.peek().is("~") {
		r = p.reifier(tc)
	} else {
		r = p.anonNode(tc)
	}
	p.expect(">>")
	tc.add(r, rdfReifies, p.tripleTermNode(tc, s, verb, o))
	return r
}

// reifiedPart parses ReifiedTripleSubject or ReifiedTripleObject.
func (p *parser) reifiedPart(tc *triplesCtx, object bool) algebra.Node {
	t := p.peek()
	switch {
	case t.is("<<"):
		return p.reifiedTriple(tc)
	case t.is("<<("):
		return p.tripleTerm(tc)
	case t.kind == tokVar || isIRIStart(t) || t.kind == tokBNode || t.is("[") && p.peekN(1).is("]"):
		return p.varOrTerm(tc)
	case object && isLiteralStart(t):
		return p.varOrTerm(tc)
	}
	p.expected("variable, IRI, literal, blank node, reified triple or triple term")
	return algebra.Node{}
}

// reifier parses Reifier ::= '~' VarOrReifierId?.
func (p *parser) reifier(tc *triplesCtx) algebra.Node {
	p.expect("~")
	t := p.peek()
	switch {
	case t.kind == tokVar || isIRIStart(t) || t.kind == tokBNode:
		return p.varOrTerm(tc)
	}
	return p.anonNode(tc)
}

// annotation parses Annotation(Path) ::= ( Reifier | AnnotationBlock )*
// after the object of s verb o: each reifier r adds "r rdf:reifies
// <<( s verb o )>>", and a block '{|' PropertyList '|}' describes the
// reifier before it (a fresh blank node when there is none).
func (p *parser) annotation(tc *triplesCtx, s, verb algebra.Node, isPath bool, o algebra.Node) {
	var r algebra.Node
	for {
		t := p.peek()
		switch {
		case t.is("~"):
			if isPath {
				p.failAt(t, "a reifier may not follow a property path")
			}
			r = p.reifier(tc)
			tc.add(r, rdfReifies, p.tripleTermNode(tc, s, verb, o))
		case t.is("{|"):
			if isPath {
				p.failAt(t, "an annotation may not follow a property path")
			}
			p.nextTok()
			if r.IsZero() {
				r = p.anonNode(tc)
				tc.add(r, rdfReifies, p.tripleTermNode(tc, s, verb, o))
			}
			p.enter()
			p.propertyListNotEmpty(tc, r)
			p.leave()
			p.expect("|}")
			r = algebra.Node{}
		default:
			return
		}
	}
}

// unnestWhere wraps the pattern of a WHERE block with the checks and
// bindings that take its triple term variables apart.
func unnestWhere(op algebra.Op, tts []tripleTermVar) algebra.Op {
	if len(tts) == 0 {
		return op
	}
	bound := map[algebra.Var]bool{}
	for _, v := range algebra.InScope(op) {
		bound[v] = true
	}
	// An enclosing triple term is made after the ones inside it, and must
	// be taken apart first: it binds their variables.
	for i := len(tts) - 1; i >= 0; i-- {
		tt := tts[i]
		term := &algebra.VarExpr{Var: tt.v}
		op = &algebra.Filter{Exprs: []algebra.Expr{&algebra.BuiltinExpr{Name: algebra.BuiltinIsTriple, Args: []algebra.Expr{term}}}, Input: op}
		for j, n := range []algebra.Node{tt.s, tt.p, tt.o} {
			part := &algebra.BuiltinExpr{Name: [...]algebra.Builtin{algebra.BuiltinSubject, algebra.BuiltinPredicate, algebra.BuiltinObject}[j], Args: []algebra.Expr{term}}
			switch {
			case n.IsVar() && !bound[n.Var]:
				op = &algebra.Extend{Input: op, Var: n.Var, Expr: part}
				bound[n.Var] = true
			default:
				op = &algebra.Filter{Exprs: []algebra.Expr{&algebra.BuiltinExpr{Name: algebra.BuiltinSameTerm, Args: []algebra.Expr{part, nodeExpr(n)}}}, Input: op}
			}
		}
	}
	return op
}

// bindTemplate binds the triple term variables of a template over the
// solutions of op.
func bindTemplate(op algebra.Op, tts []tripleTermVar) algebra.Op {
	for _, tt := range tts {
		args := make([]algebra.Expr, 3)
		for j, n := range []algebra.Node{tt.s, tt.p, tt.o} {
			if !n.IsVar() && n.Term.IsBlank() {
				// BNODE(label) is one fresh blank node per solution.
				args[j] = &algebra.BuiltinExpr{Name: algebra.BuiltinBNode, Args: []algebra.Expr{&algebra.ConstExpr{Term: kb.String(n.Term.Value)}}}
				continue
			}
			args[j] = nodeExpr(n)
		}
		op = &algebra.Extend{Input: op, Var: tt.v, Expr: &algebra.BuiltinExpr{Name: algebra.BuiltinTriple, Args: args}}
	}
	return op
}

// nodeExpr is the expression with the value of a pattern node.
func nodeExpr(n algebra.Node) algebra.Expr {
	if n.IsVar() {
		return &algebra.VarExpr{Var: n.Var}
	}
	return &algebra.ConstExpr{Term: n.Term}
}

// exprTripleTerm parses ExprTripleTerm ::= '<<(' ExprTripleTermSubject
// Verb ExprTripleTermObject ')>>' in an expression: a constant, or
// TRIPLE(s, p, o) when a part is a variable.
func (p *parser) exprTripleTerm() algebra.Expr {
	p.expect("<<(")
	p.enter()
	defer p.leave()
	part := func(object bool) algebra.Expr {
		t := p.peek()
		switch {
		case t.kind == tokVar:
			return &algebra.VarExpr{Var: p.variable()}
		case isIRIStart(t):
			return &algebra.ConstExpr{Term: kb.IRI(p.iri())}
		case object && isLiteralStart(t):
			return &algebra.ConstExpr{Term: p.literal()}
		case object && t.is("<<("):
			return p.exprTripleTerm()
		}
		p.expected("variable, IRI, literal or triple term in a triple term expression")
		return nil
	}
	s := part(false)
	var verb algebra.Expr
	switch t := p.peek(); {
	case t.kind == tokVar:
		verb = &algebra.VarExpr{Var: p.variable()}
	case t.kind == tokWord && t.text == "a":
		p.nextTok()
		verb = &algebra.ConstExpr{Term: kb.IRI(rdfType)}
	case isIRIStart(t):
		verb = &algebra.ConstExpr{Term: kb.IRI(p.iri())}
	default:
		p.expected("variable, IRI or 'a' as a predicate")
	}
	o := part(true)
	p.expect(")>>")
	cs, ok1 := s.(*algebra.ConstExpr)
	cp, ok2 := verb.(*algebra.ConstExpr)
	co, ok3 := o.(*algebra.ConstExpr)
	if ok1 && ok2 && ok3 {
		return &algebra.ConstExpr{Term: kb.TripleTerm(cs.Term, cp.Term, co.Term)}
	}
	return &algebra.BuiltinExpr{Name: algebra.BuiltinTriple, Args: []algebra.Expr{s, verb, o}}
}

// tripleTermData parses TripleTermData in VALUES: a triple term of
// constants.
func (p *parser) tripleTermData() kb.Term {
	p.expect("<<(")
	p.enter()
	defer p.leave()
	t := p.peek()
	if !isIRIStart(t) {
		p.expected("IRI as the subject of a triple term in VALUES")
	}
	s := kb.IRI(p.iri())
	var verb kb.Term
	switch t := p.peek(); {
	case t.kind == tokWord && t.text == "a":
		p.nextTok()
		verb = kb.IRI(rdfType)
	case isIRIStart(t):
		verb = kb.IRI(p.iri())
	default:
		p.expected("IRI or 'a' as a predicate")
	}
	var o kb.Term
	switch t := p.peek(); {
	case isIRIStart(t):
		o = kb.IRI(p.iri())
	case isLiteralStart(t):
		o = p.literal()
	case t.is("<<("):
		o = p.tripleTermData()
	default:
		p.expected("IRI, literal or triple term as the object of a triple term in VALUES")
	}
	p.expect(")>>")
	return kb.TripleTerm(s, verb, o)
}

// templateBlanks turns the template of CONSTRUCT WHERE into a template
// proper: the pattern's blank nodes (anonymous reifiers included), which
// matched like variables, are blank nodes of the template again, fresh
// for each solution. Variables standing for triple terms stay variables.
func templateBlanks(ts []algebra.TriplePattern, tts []tripleTermVar) []algebra.TriplePattern {
	keep := map[algebra.Var]bool{}
	for _, tt := range tts {
		keep[tt.v] = true
	}
	blank := func(n algebra.Node) algebra.Node {
		if n.IsVar() && !n.Var.IsDistinguished() && !keep[n.Var] {
			return algebra.TermNode(kb.Blank(strings.TrimLeft(string(n.Var), "?_")))
		}
		return n
	}
	out := make([]algebra.TriplePattern, len(ts))
	for i, t := range ts {
		out[i] = algebra.TriplePattern{S: blank(t.S), P: blank(t.P), O: blank(t.O)}
	}
	return out
}
