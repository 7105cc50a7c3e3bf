package syntax

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// path parses Path ::= PathAlternative.
func (p *parser) path() algebra.PathExpr {
	p.enter()
	defer p.leave()
	left := p.pathSequence()
	for p.accept("|") {
		left = &algebra.PathAlt{Left: left, Right: p.pathSequence()}
	}
	return left
}

// pathSequence parses PathEltOrInverse ( '/' PathEltOrInverse )*.
func (p *parser) pathSequence() algebra.PathExpr {
	left := p.pathEltOrInverse()
	for p.accept("/") {
		left = &algebra.PathSeq{Left: left, Right: p.pathEltOrInverse()}
	}
	return left
}

// pathEltOrInverse parses PathElt | '^' PathElt.
func (p *parser) pathEltOrInverse() algebra.PathExpr {
	if p.accept("^") {
		return &algebra.PathInverse{Path: p.pathElt()}
	}
	return p.pathElt()
}

// pathElt parses PathPrimary PathMod?.
func (p *parser) pathElt() algebra.PathExpr {
	prim := p.pathPrimary()
	switch {
	case p.accept("?"):
		return &algebra.PathZeroOrOne{Path: prim}
	case p.accept("*"):
		return &algebra.PathZeroOrMore{Path: prim}
	case p.accept("+"):
		return &algebra.PathOneOrMore{Path: prim}
	}
	return prim
}

// pathPrimary parses iri | 'a' | '!' PathNegatedPropertySet | '(' Path ')'.
func (p *parser) pathPrimary() algebra.PathExpr {
	t := p.peek()
	switch {
	case isIRIStart(t):
		return &algebra.PathLink{IRI: kb.IRI(p.iri())}
	case t.kind == tokWord && t.text == "a":
		p.nextTok()
		return &algebra.PathLink{IRI: kb.IRI(rdfType)}
	case t.is("!"):
		p.nextTok()
		return p.pathNegatedPropertySet()
	case t.is("("):
		p.nextTok()
		inner := p.path()
		p.expect(")")
		return inner
	}
	p.expected("IRI, 'a', '!', '^' or '(' in property path")
	return nil
}

// pathNegatedPropertySet parses PathOneInPropertySet | '(' ( PathOneInPropertySet ( '|' PathOneInPropertySet )* )? ')'.
func (p *parser) pathNegatedPropertySet() algebra.PathExpr {
	nps := &algebra.PathNegated{}
	if !p.accept("(") {
		p.pathOneInPropertySet(nps)
		return nps
	}
	if p.accept(")") {
		return nps
	}
	for {
		p.pathOneInPropertySet(nps)
		if !p.accept("|") {
			break
		}
	}
	p.expect(")")
	return nps
}

// pathOneInPropertySet parses iri | 'a' | '^' ( iri | 'a' ).
func (p *parser) pathOneInPropertySet(nps *algebra.PathNegated) {
	inverse := p.accept("^")
	var iri kb.Term
	t := p.peek()
	switch {
	case isIRIStart(t):
		iri = kb.IRI(p.iri())
	case t.kind == tokWord && t.text == "a":
		p.nextTok()
		iri = kb.IRI(rdfType)
	default:
		p.expected("IRI or 'a' in negated property set")
	}
	if inverse {
		nps.Inverse = append(nps.Inverse, iri)
	} else {
		nps.Forward = append(nps.Forward, iri)
	}
}
