package syntax

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// nodeMode says how a triples context treats blank nodes and variables.
type nodeMode uint8

const (
	// modeWhere: a WHERE pattern; blank nodes become non-distinguished
	// variables, property paths are allowed.
	modeWhere nodeMode = iota
	// modeTemplate: CONSTRUCT or INSERT template; blank nodes stay blank
	// node terms (fresh per solution).
	modeTemplate
	// modeDeleteTemplate: DELETE template or DELETE WHERE; no blank nodes.
	modeDeleteTemplate
	// modeInsertData: INSERT DATA; no variables.
	modeInsertData
	// modeDeleteData: DELETE DATA; no variables, no blank nodes.
	modeDeleteData
)

// tripleItem is a triple pattern or a path pattern, with its graph (update
// quads only).
type tripleItem struct {
	graph  algebra.Node
	triple algebra.TriplePattern
	path   *algebra.Path
}

// triplesCtx collects the triples of a block.
type triplesCtx struct {
	mode  nodeMode
	graph algebra.Node
	items []tripleItem
	tts   []tripleTermVar // the triple terms with variables, innermost first
}

func (tc *triplesCtx) add(s, p, o algebra.Node) {
	tc.items = append(tc.items, tripleItem{graph: tc.graph, triple: algebra.TriplePattern{S: s, P: p, O: o}})
}

// triples returns the triple patterns (template contexts have no paths).
func (tc *triplesCtx) triples() []algebra.TriplePattern {
	out := make([]algebra.TriplePattern, 0, len(tc.items))
	for _, it := range tc.items {
		if it.path == nil {
			out = append(out, it.triple)
		}
	}
	return out
}

// quads returns the collected items as quad patterns.
func (tc *triplesCtx) quads() []algebra.QuadPattern {
	out := make([]algebra.QuadPattern, 0, len(tc.items))
	for _, it := range tc.items {
		out = append(out, algebra.QuadPattern{G: it.graph, S: it.triple.S, P: it.triple.P, O: it.triple.O})
	}
	return out
}

// op translates the block: runs of triples become BGPs, joined in order with
// the path patterns between them (§18.2.2.4, §18.2.2.5).
func (tc *triplesCtx) op() algebra.Op {
	var op algebra.Op = &algebra.BGP{}
	var run []algebra.TriplePattern
	for _, it := range tc.items {
		if it.path != nil {
			if len(run) > 0 {
				op = join(op, &algebra.BGP{Triples: run})
				run = nil
			}
			op = join(op, it.path)
			continue
		}
		run = append(run, it.triple)
	}
	if len(run) > 0 {
		op = join(op, &algebra.BGP{Triples: run})
	}
	return unnestWhere(op, tc.tts)
}

// isEmptyBGP reports whether op is the empty group Z.
func isEmptyBGP(op algebra.Op) bool {
	b, ok := op.(*algebra.BGP)
	return ok && len(b.Triples) == 0
}

// join builds Join(a, b), simplifying joins with the empty pattern (§18.2.2.8).
func join(a, b algebra.Op) algebra.Op {
	switch {
	case isEmptyBGP(a):
		return b
	case isEmptyBGP(b):
		return a
	}
	return &algebra.Join{Left: a, Right: b}
}

// startBlock opens a new basic graph pattern for blank node label scoping.
func (p *parser) startBlock() {
	p.block++
	p.curBlock = p.block
}

// endBlock closes the current basic graph pattern.
func (p *parser) endBlock() { p.curBlock = 0 }

// groupGraphPattern parses GroupGraphPattern and translates it per §18.2.2.
func (p *parser) groupGraphPattern() algebra.Op {
	g, filters := p.groupGraphPatternParts()
	if len(filters) > 0 {
		g = &algebra.Filter{Exprs: filters, Input: g}
	}
	return g
}

// groupGraphPatternParts parses GroupGraphPattern, returning the translated
// pattern without its top-level FILTERs, and those FILTERs. OPTIONAL uses the
// parts directly (LeftJoin(G, A, F), §18.2.2.6), so that the filter of a
// nested group { { … FILTER … } } stays inside the optional part.
func (p *parser) groupGraphPatternParts() (algebra.Op, []algebra.Expr) {
	p.expect("{")
	p.enter()
	defer p.leave()
	if p.peek().isWord("SELECT") {
		op := p.subSelect()
		p.expect("}")
		return op, nil
	}
	savedBlock := p.curBlock
	p.curBlock = 0
	var g algebra.Op = &algebra.BGP{}
	var filters []algebra.Expr
	var pending *triplesCtx
	needDot := false // a triples block just ended without '.'
	flush := func() {
		if pending != nil {
			g = join(g, pending.op())
			pending = nil
		}
		p.curBlock = 0
	}
loop:
	for {
		t := p.peek()
		switch {
		case t.is("}"):
			break loop
		case p.isTriplesStart(t):
			if needDot {
				p.expected("'.' or '}'")
			}
			if pending == nil {
				pending = &triplesCtx{mode: modeWhere}
				p.startBlock()
			}
			needDot = !p.triplesBlock(pending)
			continue
		case t.isWord("FILTER"):
			p.nextTok()
			if !p.isConstraintStart(p.peek()) {
				p.expected("'(', built-in call or function call after FILTER")
			}
			// A FILTER does not end the basic graph pattern around it.
			block := p.curBlock
			filters = append(filters, p.constraint())
			p.curBlock = block
		case t.isWord("OPTIONAL"):
			p.nextTok()
			flush()
			a, fs := p.groupGraphPatternParts()
			g = &algebra.LeftJoin{Left: g, Right: a, Exprs: fs}
		case t.isWord("MINUS"):
			p.nextTok()
			flush()
			g = &algebra.Minus{Left: g, Right: p.groupGraphPattern()}
		case t.isWord("BIND"):
			p.nextTok()
			flush()
			p.expect("(")
			e := p.expression()
			p.expectWord("AS")
			vt := p.peek()
			v := p.variable()
			p.expect(")")
			if containsVar(algebra.InScope(g), v) {
				p.failAt(vt, "BIND: variable %s is already in scope in this group", v)
			}
			g = &algebra.Extend{Input: g, Var: v, Expr: e}
		case t.isWord("GRAPH"):
			p.nextTok()
			flush()
			name := p.varOrIri()
			g = join(g, &algebra.Graph{Name: name, Input: p.groupGraphPattern()})
		case t.isWord("SERVICE"):
			p.nextTok()
			flush()
			silent := p.acceptWord("SILENT")
			endpoint := p.varOrIri()
			start := p.peek().off
			inner := p.groupGraphPattern()
			end := p.toks[p.pos-1].end
			g = join(g, &algebra.Service{Silent: silent, Endpoint: endpoint, Input: inner, Text: p.src[start:end]})
		case t.isWord("VALUES"):
			p.nextTok()
			flush()
			g = join(g, p.dataBlock())
		case t.is("{"):
			flush()
			a := p.groupGraphPattern()
			for p.acceptWord("UNION") {
				a = &algebra.Union{Left: a, Right: p.groupGraphPattern()}
			}
			g = join(g, a)
		default:
			p.expected("'}' or a graph pattern")
		}
		needDot = false
		p.accept(".")
	}
	p.nextTok() // '}'
	flush()
	p.curBlock = savedBlock
	return g, filters
}

// subSelect parses SubSelect ::= SelectClause WhereClause SolutionModifier ValuesClause.
func (p *parser) subSelect() algebra.Op {
	saved := p.aggs
	scope := &aggScope{byKey: map[string]algebra.Var{}}
	p.aggs = scope
	sc := p.selectClause()
	p.optionalWord("WHERE")
	where := p.groupGraphPatternNoAggs()
	mods := p.solutionModifiers()
	mods.values = p.valuesClause()
	p.aggs = scope
	op, _ := p.buildSelect(sc, where, mods, scope)
	p.aggs = saved
	return op
}

// isTriplesStart reports whether t can start a triples block.
func (p *parser) isTriplesStart(t token) bool {
	switch t.kind {
	case tokVar, tokIRI, tokPName, tokBNode, tokString, tokInteger, tokDecimal, tokDouble:
		return true
	case tokPunct:
		return t.text == "(" || t.text == "[" || t.text == "<<" || t.text == "<<("
	case tokWord:
		return t.isWord("true") || t.isWord("false")
	}
	return false
}

// triplesBlock parses TriplesBlock ::= TriplesSameSubjectPath ( '.' TriplesBlock? )?,
// reporting whether it ended with '.'.
func (p *parser) triplesBlock(tc *triplesCtx) bool {
	for {
		p.triplesSameSubject(tc)
		if !p.accept(".") {
			return false
		}
		if !p.isTriplesStart(p.peek()) {
			return true
		}
	}
}

// triplesTemplate parses TriplesTemplate (and ConstructTriples).
func (p *parser) triplesTemplate(tc *triplesCtx) {
	for p.isTriplesStart(p.peek()) {
		p.triplesSameSubject(tc)
		if !p.accept(".") {
			return
		}
	}
}

// triplesSameSubject parses TriplesSameSubject(Path).
func (p *parser) triplesSameSubject(tc *triplesCtx) {
	t := p.peek()
	switch {
	case t.is("[") && !p.peekN(1).is("]"):
		s := p.blankNodePropertyList(tc)
		if p.isVerbStart(tc, p.peek()) {
			p.propertyListNotEmpty(tc, s)
		}
	case t.is("(") && !p.peekN(1).is(")"):
		s := p.collection(tc)
		if p.isVerbStart(tc, p.peek()) {
			p.propertyListNotEmpty(tc, s)
		}
	case t.is("<<"):
		// ReifiedTripleBlock: a reified triple and a possibly empty
		// property list.
		s := p.reifiedTriple(tc)
		if p.isVerbStart(tc, p.peek()) {
			p.propertyListNotEmpty(tc, s)
		}
	default:
		s := p.varOrTerm(tc)
		p.propertyListNotEmpty(tc, s)
	}
}

// isVerbStart reports whether t can start a verb (or a path in WHERE).
func (p *parser) isVerbStart(tc *triplesCtx, t token) bool {
	switch {
	case t.kind == tokVar, isIRIStart(t), t.kind == tokWord && t.text == "a":
		return true
	case tc.mode == modeWhere:
		return t.is("^") || t.is("!") || t.is("(")
	}
	return false
}

// propertyListNotEmpty parses PropertyListNotEmpty / PropertyListPathNotEmpty.
func (p *parser) propertyListNotEmpty(tc *triplesCtx, subj algebra.Node) {
	for {
		if !p.isVerbStart(tc, p.peek()) {
			p.expected("predicate")
		}
		var verb algebra.Node
		var path algebra.PathExpr
		t := p.peek()
		switch {
		case t.kind == tokVar:
			verb = p.checkNode(tc, t, algebra.VarNode(p.variable()))
		case tc.mode == modeWhere:
			path = p.path()
			if l, ok := path.(*algebra.PathLink); ok {
				verb, path = algebra.TermNode(l.IRI), nil
			}
		case t.kind == tokWord && t.text == "a":
			p.nextTok()
			verb = algebra.TermNode(kb.IRI(rdfType))
		default:
			verb = algebra.TermNode(kb.IRI(p.iri()))
		}
		for {
			obj := p.graphNode(tc)
			if path != nil {
				p.addPath(tc, subj, path, obj)
			} else {
				tc.add(subj, verb, obj)
			}
			p.annotation(tc, subj, verb, path != nil, obj)
			if !p.accept(",") {
				break
			}
		}
		if !p.accept(";") {
			return
		}
		for p.accept(";") {
		}
		if !p.isVerbStart(tc, p.peek()) {
			return
		}
	}
}

// addPath adds X path Y, translated per §18.2.2.4: links and inverse links
// become triples, sequences are expanded with fresh variables, anything else
// becomes a Path pattern.
func (p *parser) addPath(tc *triplesCtx, x algebra.Node, path algebra.PathExpr, y algebra.Node) {
	switch pe := path.(type) {
	case *algebra.PathLink:
		tc.add(x, algebra.TermNode(pe.IRI), y)
		return
	case *algebra.PathSeq:
		v := algebra.VarNode(p.freshVar())
		p.addPath(tc, x, pe.Left, v)
		p.addPath(tc, v, pe.Right, y)
		return
	case *algebra.PathInverse:
		switch pe.Path.(type) {
		case *algebra.PathLink, *algebra.PathSeq, *algebra.PathInverse:
			p.addPath(tc, y, pe.Path, x)
			return
		}
	}
	tc.items = append(tc.items, tripleItem{graph: tc.graph, path: &algebra.Path{Subject: x, Path: path, Object: y}})
}

// graphNode parses GraphNode(Path) ::= VarOrTerm | TriplesNode(Path).
func (p *parser) graphNode(tc *triplesCtx) algebra.Node {
	t := p.peek()
	switch {
	case t.is("[") && !p.peekN(1).is("]"):
		return p.blankNodePropertyList(tc)
	case t.is("(") && !p.peekN(1).is(")"):
		return p.collection(tc)
	case t.is("<<"):
		return p.reifiedTriple(tc)
	}
	return p.varOrTerm(tc)
}

// anonNode returns a fresh node for [] or a collection cell.
func (p *parser) anonNode(tc *triplesCtx) algebra.Node {
	switch tc.mode {
	case modeWhere:
		return algebra.VarNode(p.freshVar())
	case modeDeleteTemplate, modeDeleteData:
		p.failAt(p.peek(), "blank nodes are not allowed in DELETE")
	}
	return algebra.TermNode(p.freshBlank())
}

// blankNodePropertyList parses '[' PropertyListNotEmpty ']'.
func (p *parser) blankNodePropertyList(tc *triplesCtx) algebra.Node {
	n := p.anonNode(tc)
	p.expect("[")
	p.enter()
	defer p.leave()
	p.propertyListNotEmpty(tc, n)
	p.expect("]")
	return n
}

// collection parses '(' GraphNode+ ')' into rdf:first/rdf:rest triples.
func (p *parser) collection(tc *triplesCtx) algebra.Node {
	p.expect("(")
	p.enter()
	defer p.leave()
	var head, prev algebra.Node
	first := algebra.TermNode(kb.IRI(rdfFirst))
	rest := algebra.TermNode(kb.IRI(rdfRest))
	for !p.peek().is(")") {
		cell := p.anonNode(tc)
		if prev.IsZero() {
			head = cell
		} else {
			tc.add(prev, rest, cell)
		}
		obj := p.graphNode(tc)
		tc.add(cell, first, obj)
		prev = cell
	}
	p.nextTok()
	tc.add(prev, rest, algebra.TermNode(kb.IRI(rdfNil)))
	return head
}

// varOrTerm parses VarOrTerm: a variable, IRI, literal, blank node, [] or ().
func (p *parser) varOrTerm(tc *triplesCtx) algebra.Node {
	t := p.peek()
	switch {
	case t.kind == tokVar:
		return p.checkNode(tc, t, algebra.VarNode(p.variable()))
	case isIRIStart(t):
		return algebra.TermNode(kb.IRI(p.iri()))
	case isLiteralStart(t):
		return algebra.TermNode(p.literal())
	case t.kind == tokBNode:
		p.nextTok()
		return p.blankLabel(tc, t)
	case t.is("[") && p.peekN(1).is("]"):
		n := p.anonNode(tc)
		p.pos += 2
		return n
	case t.is("(") && p.peekN(1).is(")"):
		p.pos += 2
		return algebra.TermNode(kb.IRI(rdfNil))
	case t.is("<<("):
		return p.tripleTerm(tc)
	}
	p.expected("variable, IRI, literal or blank node")
	return algebra.Node{}
}

// checkNode rejects variables where only ground data is allowed.
func (p *parser) checkNode(tc *triplesCtx, t token, n algebra.Node) algebra.Node {
	if n.IsVar() && (tc.mode == modeInsertData || tc.mode == modeDeleteData) {
		p.failAt(t, "variables are not allowed in INSERT DATA or DELETE DATA")
	}
	return n
}

// blankLabel translates a labelled blank node according to the mode.
func (p *parser) blankLabel(tc *triplesCtx, t token) algebra.Node {
	switch tc.mode {
	case modeWhere:
		if b, ok := p.bnodeBlock[t.text]; ok && b != p.curBlock {
			p.failAt(t, "blank node label _:%s is used in two different basic graph patterns", t.text)
		}
		p.bnodeBlock[t.text] = p.curBlock
		return algebra.VarNode(algebra.Var("?_" + t.text))
	case modeDeleteTemplate, modeDeleteData:
		p.failAt(t, "blank nodes are not allowed in DELETE")
	case modeInsertData:
		// A label may not be shared between the INSERT DATA operations of
		// one request (templates may: they mint fresh nodes per solution).
		if p.dataBlank != nil {
			if op, ok := p.dataBlank[t.text]; ok && op != p.opIndex {
				p.failAt(t, "blank node label _:%s is used in two operations of the request", t.text)
			}
			p.dataBlank[t.text] = p.opIndex
		}
	}
	return algebra.TermNode(kb.Blank(t.text))
}
