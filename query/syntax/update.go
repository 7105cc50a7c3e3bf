package syntax

import (
	"github.com/perfkb/perfkb/query/algebra"
)

// updateUnit parses Update ::= Prologue ( Update1 ( ';' Update )? )?.
func (p *parser) updateUnit() *algebra.Update {
	u := &algebra.Update{}
	p.dataBlank = map[string]int{}
	for {
		p.prologue()
		if p.peek().kind == tokEOF {
			break
		}
		p.bnodeBlock = map[string]int{}
		u.Operations = append(u.Operations, p.update1())
		p.opIndex++
		if !p.accept(";") {
			break
		}
	}
	if p.peek().kind != tokEOF {
		p.expected("';' or end of update")
	}
	u.BaseIRI = p.base
	u.Prefixes = p.prefixList
	return u
}

// update1 parses one update operation.
func (p *parser) update1() algebra.UpdateOp {
	t := p.peek()
	switch keywordText(t) {
	case "LOAD":
		p.nextTok()
		op := &algebra.Load{Silent: p.acceptWord("SILENT"), Source: p.iri()}
		if p.acceptWord("INTO") {
			p.expectWord("GRAPH")
			op.Into = p.iri()
		}
		return op
	case "CLEAR":
		p.nextTok()
		silent := p.acceptWord("SILENT")
		return &algebra.Clear{Silent: silent, Target: p.graphRefAll()}
	case "DROP":
		p.nextTok()
		silent := p.acceptWord("SILENT")
		return &algebra.Drop{Silent: silent, Target: p.graphRefAll()}
	case "CREATE":
		p.nextTok()
		silent := p.acceptWord("SILENT")
		p.expectWord("GRAPH")
		return &algebra.Create{Silent: silent, Graph: p.iri()}
	case "ADD", "MOVE", "COPY":
		p.nextTok()
		silent := p.acceptWord("SILENT")
		from := p.graphOrDefault()
		p.expectWord("TO")
		to := p.graphOrDefault()
		switch keywordText(t) {
		case "ADD":
			return &algebra.Add{Silent: silent, From: from, To: to}
		case "MOVE":
			return &algebra.Move{Silent: silent, From: from, To: to}
		}
		return &algebra.Copy{Silent: silent, From: from, To: to}
	case "INSERT":
		if p.peekN(1).isWord("DATA") {
			p.pos += 2
			return &algebra.InsertData{Quads: p.quadBlock(modeInsertData)}
		}
		return p.modify("")
	case "DELETE":
		switch {
		case p.peekN(1).isWord("DATA"):
			p.pos += 2
			return &algebra.DeleteData{Quads: p.quadBlock(modeDeleteData)}
		case p.peekN(1).isWord("WHERE"):
			p.pos += 2
			quads := p.quadBlock(modeDeleteTemplate)
			return &algebra.DeleteWhere{Quads: quads, Where: unnestWhere(quadsPattern(quads), p.templateTTs)}
		}
		return p.modify("")
	case "WITH":
		p.nextTok()
		return p.modify(p.iri())
	}
	p.expected("update operation (INSERT, DELETE, LOAD, CLEAR, DROP, CREATE, ADD, MOVE, COPY or WITH)")
	return nil
}

// modify parses ( DeleteClause InsertClause? | InsertClause ) UsingClause* 'WHERE' GroupGraphPattern.
func (p *parser) modify(with string) algebra.UpdateOp {
	op := &algebra.DeleteInsert{With: with}
	var tts []tripleTermVar
	if p.acceptWord("DELETE") {
		op.Delete = p.quadBlock(modeDeleteTemplate)
		tts = p.templateTTs
	}
	if p.acceptWord("INSERT") {
		op.Insert = p.quadBlock(modeTemplate)
		tts = append(tts, p.templateTTs...)
	}
	if op.Delete == nil && op.Insert == nil {
		p.expected("DELETE or INSERT")
	}
	for p.acceptWord("USING") {
		if p.acceptWord("NAMED") {
			op.UsingNamed = append(op.UsingNamed, p.iri())
		} else {
			op.Using = append(op.Using, p.iri())
		}
	}
	p.expectWord("WHERE")
	op.Where = bindTemplate(p.groupGraphPatternNoAggs(), tts)
	return op
}

// graphRefAll parses GraphRefAll ::= GraphRef | 'DEFAULT' | 'NAMED' | 'ALL'.
func (p *parser) graphRefAll() algebra.GraphTarget {
	switch {
	case p.acceptWord("DEFAULT"):
		return algebra.GraphTarget{Kind: algebra.TargetDefault}
	case p.acceptWord("NAMED"):
		return algebra.GraphTarget{Kind: algebra.TargetNamed}
	case p.acceptWord("ALL"):
		return algebra.GraphTarget{Kind: algebra.TargetAll}
	case p.peek().isWord("GRAPH"):
		p.nextTok()
		return algebra.GraphTarget{Kind: algebra.TargetGraph, IRI: p.iri()}
	}
	p.expected("GRAPH, DEFAULT, NAMED or ALL")
	return algebra.GraphTarget{}
}

// graphOrDefault parses GraphOrDefault ::= 'DEFAULT' | 'GRAPH'? iri.
func (p *parser) graphOrDefault() algebra.GraphTarget {
	if p.acceptWord("DEFAULT") {
		return algebra.GraphTarget{Kind: algebra.TargetDefault}
	}
	p.acceptWord("GRAPH")
	if !isIRIStart(p.peek()) {
		p.expected("DEFAULT or graph IRI")
	}
	return algebra.GraphTarget{Kind: algebra.TargetGraph, IRI: p.iri()}
}

// quadBlock parses '{' Quads '}' where
// Quads ::= TriplesTemplate? ( QuadsNotTriples '.'? TriplesTemplate? )*.
func (p *parser) quadBlock(mode nodeMode) []algebra.QuadPattern {
	p.expect("{")
	tc := &triplesCtx{mode: mode}
	for {
		p.triplesTemplate(tc)
		if !p.peek().isWord("GRAPH") {
			break
		}
		gt := p.nextTok()
		name := p.varOrIri()
		if name.IsVar() && (mode == modeInsertData || mode == modeDeleteData) {
			p.failAt(gt, "GRAPH variables are not allowed in INSERT DATA or DELETE DATA")
		}
		p.expect("{")
		tc.graph = name
		p.triplesTemplate(tc)
		tc.graph = algebra.Node{}
		p.expect("}")
		p.accept(".")
	}
	p.expect("}")
	p.templateTTs = tc.tts
	qs := tc.quads()
	if qs == nil {
		qs = []algebra.QuadPattern{}
	}
	return qs
}

// quadsPattern translates the quads of DELETE WHERE into a pattern: runs of
// quads in the same graph become BGPs (inside Graph for named graphs),
// joined in order.
func quadsPattern(qs []algebra.QuadPattern) algebra.Op {
	var op algebra.Op = &algebra.BGP{}
	for i := 0; i < len(qs); {
		j := i
		var ts []algebra.TriplePattern
		for j < len(qs) && qs[j].G == qs[i].G {
			ts = append(ts, qs[j].Triple())
			j++
		}
		var part algebra.Op = &algebra.BGP{Triples: ts}
		if !qs[i].G.IsZero() {
			part = &algebra.Graph{Name: qs[i].G, Input: part}
		}
		op = join(op, part)
		i = j
	}
	return op
}
