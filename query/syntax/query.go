package syntax

import (
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// selectItem is one entry of a SELECT list: a variable, or (expr AS var).
type selectItem struct {
	v    algebra.Var
	expr algebra.Expr // nil for a plain variable
	tok  token        // position for errors
}

// selectClause is a parsed SELECT clause, translated only once the WHERE
// clause and solution modifiers are known.
type selectClause struct {
	tok               token
	distinct, reduced bool
	star              bool
	items             []selectItem
}

// groupCond is one GROUP BY condition.
type groupCond struct {
	key algebra.GroupKey
	tok token
}

// modifiers are the solution modifiers and trailing VALUES of a query level.
type modifiers struct {
	grouped  bool
	groupTok token
	keys     []groupCond
	having   []algebra.Expr
	order    []algebra.OrderCondition
	offset   int64
	limit    int64
	values   *algebra.Table
	// orderText is the ORDER BY clause as written (federation pushes it
	// to the sites).
	orderText string
}

// queryUnit parses QueryUnit ::= Prologue ( Select | Construct | Describe | Ask ) ValuesClause.
func (p *parser) queryUnit() *algebra.Query {
	p.prologue()
	q := &algebra.Query{}
	t := p.peek()
	scope := &aggScope{byKey: map[string]algebra.Var{}}
	p.aggs = scope
	switch keywordText(t) {
	case "SELECT":
		q.Form = algebra.FormSelect
		sc := p.selectClause()
		q.Dataset = p.datasetClauses()
		p.optionalWord("WHERE")
		where := p.whereClause(q)
		mods := p.solutionModifiers()
		q.OrderText = mods.orderText
		mods.values = p.valuesClause()
		p.aggs = scope
		q.Pattern, q.Vars = p.buildSelect(sc, where, mods, scope)
		q.Star, q.Distinct, q.Reduced = sc.star, sc.distinct, sc.reduced
	case "CONSTRUCT":
		p.nextTok()
		q.Form = algebra.FormConstruct
		var where algebra.Op
		if p.peek().is("{") {
			q.Template = p.constructTemplate()
			q.Dataset = p.datasetClauses()
			p.optionalWord("WHERE")
			where = p.whereClause(q)
		} else {
			// Short form: CONSTRUCT WHERE { TriplesTemplate }.
			q.Dataset = p.datasetClauses()
			p.expectWord("WHERE")
			start := p.peek().off
			q.Template, where = p.constructWhere()
			q.Where, q.WhereText = where, p.src[start:p.toks[p.pos-1].end]
		}
		mods := p.solutionModifiers()
		mods.values = p.valuesClause()
		p.aggs = scope
		q.Pattern = bindTemplate(p.buildOther(where, mods, scope), p.templateTTs)
	case "ASK":
		p.nextTok()
		q.Form = algebra.FormAsk
		q.Dataset = p.datasetClauses()
		p.optionalWord("WHERE")
		where := p.whereClause(q)
		mods := p.solutionModifiers()
		mods.values = p.valuesClause()
		p.aggs = scope
		q.Pattern = p.buildOther(where, mods, scope)
	case "DESCRIBE":
		p.nextTok()
		q.Form = algebra.FormDescribe
		if p.accept("*") {
			q.Star = true
		} else {
			for p.peek().kind == tokVar || isIRIStart(p.peek()) {
				n := p.varOrIri()
				q.Describe = append(q.Describe, n)
				if n.IsVar() {
					q.Vars = append(q.Vars, n.Var)
				}
			}
			if len(q.Describe) == 0 {
				p.expected("variable, IRI or '*' after DESCRIBE")
			}
		}
		q.Dataset = p.datasetClauses()
		var where algebra.Op = &algebra.BGP{}
		if p.peek().isWord("WHERE") || p.peek().is("{") {
			p.optionalWord("WHERE")
			where = p.whereClause(q)
		}
		mods := p.solutionModifiers()
		mods.values = p.valuesClause()
		p.aggs = scope
		q.Pattern = p.buildOther(where, mods, scope)
		if q.Star {
			q.Vars = distinguished(algebra.InScope(q.Pattern))
		}
	default:
		p.expected("SELECT, CONSTRUCT, ASK or DESCRIBE")
	}
	if p.peek().kind != tokEOF {
		p.expected("end of query")
	}
	q.BaseIRI = p.base
	q.Prefixes = p.prefixList
	return q
}

func (p *parser) optionalWord(w string) { p.acceptWord(w) }

// distinguished keeps the user-visible variables.
func distinguished(vs []algebra.Var) []algebra.Var {
	out := make([]algebra.Var, 0, len(vs))
	for _, v := range vs {
		if v.IsDistinguished() {
			out = append(out, v)
		}
	}
	return out
}

// whereClause parses the query's WHERE pattern and records it and its
// source text in q (for federation, which forwards the text to sites).
func (p *parser) whereClause(q *algebra.Query) algebra.Op {
	start := p.peek().off
	op := p.groupGraphPatternNoAggs()
	q.Where, q.WhereText = op, p.src[start:p.toks[p.pos-1].end]
	return op
}

// groupGraphPatternNoAggs parses a WHERE pattern, where aggregates are not
// allowed.
func (p *parser) groupGraphPatternNoAggs() algebra.Op {
	saved := p.aggs
	p.aggs = nil
	op := p.groupGraphPattern()
	p.aggs = saved
	return op
}

// selectClause parses SelectClause.
func (p *parser) selectClause() *selectClause {
	sc := &selectClause{tok: p.expectWord("SELECT")}
	switch {
	case p.acceptWord("DISTINCT"):
		sc.distinct = true
	case p.acceptWord("REDUCED"):
		sc.reduced = true
	}
	if p.accept("*") {
		sc.star = true
		return sc
	}
	seen := map[algebra.Var]bool{}
	for {
		t := p.peek()
		switch {
		case t.kind == tokVar:
			v := p.variable()
			sc.items = append(sc.items, selectItem{v: v, tok: t})
			seen[v] = true
			continue
		case t.is("("):
			p.nextTok()
			e := p.expression()
			p.expectWord("AS")
			vt := p.peek()
			v := p.variable()
			p.expect(")")
			if seen[v] {
				p.failAt(vt, "variable %s is already in the SELECT list", v)
			}
			seen[v] = true
			sc.items = append(sc.items, selectItem{v: v, expr: e, tok: vt})
			continue
		}
		break
	}
	if len(sc.items) == 0 {
		p.expected("variable, '(expression AS ?var)' or '*' after SELECT")
	}
	return sc
}

// datasetClauses parses DatasetClause*.
func (p *parser) datasetClauses() *algebra.Dataset {
	var ds *algebra.Dataset
	for p.acceptWord("FROM") {
		if ds == nil {
			ds = &algebra.Dataset{}
		}
		if p.acceptWord("NAMED") {
			ds.Named = append(ds.Named, p.iri())
		} else {
			ds.Default = append(ds.Default, p.iri())
		}
	}
	return ds
}

// solutionModifiers parses GroupClause? HavingClause? OrderClause? LimitOffsetClauses?.
func (p *parser) solutionModifiers() *modifiers {
	m := &modifiers{limit: -1}
	if p.peek().isWord("GROUP") {
		m.grouped = true
		m.groupTok = p.nextTok()
		p.expectWord("BY")
		saved := p.aggs
		p.aggs = nil // no aggregates in GROUP BY
		for {
			t := p.peek()
			var c groupCond
			c.tok = t
			switch {
			case t.kind == tokVar:
				v := p.variable()
				c.key = algebra.GroupKey{Var: v, Expr: &algebra.VarExpr{Var: v}}
			case t.is("("):
				p.nextTok()
				e := p.expression()
				if p.acceptWord("AS") {
					c.key = algebra.GroupKey{Var: p.variable(), Expr: e}
				} else if ve, ok := e.(*algebra.VarExpr); ok {
					c.key = algebra.GroupKey{Var: ve.Var, Expr: e}
				} else {
					c.key = algebra.GroupKey{Var: p.freshAggVar(), Expr: e}
				}
				p.expect(")")
			case isIRIStart(t) || p.isBuiltinStart(t):
				e := p.primaryExpression()
				c.key = algebra.GroupKey{Var: p.freshAggVar(), Expr: e}
			default:
				if len(m.keys) == 0 {
					p.expected("GROUP BY condition")
				}
			}
			if c.key.Expr == nil {
				break
			}
			m.keys = append(m.keys, c)
		}
		p.aggs = saved
	}
	if p.acceptWord("HAVING") {
		for p.isConstraintStart(p.peek()) {
			m.having = append(m.having, p.constraint())
		}
		if len(m.having) == 0 {
			p.expected("HAVING condition")
		}
	}
	if p.peek().isWord("ORDER") {
		orderStart := p.nextTok().off
		p.expectWord("BY")
		for {
			t := p.peek()
			var c algebra.OrderCondition
			switch {
			case t.isWord("ASC") || t.isWord("DESC"):
				p.nextTok()
				c.Desc = t.isWord("DESC")
				if !p.peek().is("(") {
					p.expected("'(' after " + keywordText(t))
				}
				c.Expr = p.bracketedExpression()
			case t.kind == tokVar:
				c.Expr = &algebra.VarExpr{Var: p.variable()}
			case p.isConstraintStart(t):
				c.Expr = p.constraint()
			default:
				if len(m.order) == 0 {
					p.expected("ORDER BY condition")
				}
			}
			if c.Expr == nil {
				break
			}
			m.order = append(m.order, c)
		}
		m.orderText = p.src[orderStart:p.toks[p.pos-1].end]
	}
	for range 2 {
		switch t := p.peek(); {
		case t.isWord("LIMIT") && m.limit < 0:
			p.nextTok()
			m.limit = p.nonNegativeInteger("LIMIT")
		case t.isWord("OFFSET") && m.offset == 0:
			p.nextTok()
			m.offset = p.nonNegativeInteger("OFFSET")
		}
	}
	return m
}

func (p *parser) nonNegativeInteger(what string) int64 {
	t := p.peek()
	if t.kind != tokInteger || t.text[0] == '+' || t.text[0] == '-' {
		p.expected("integer after " + what)
	}
	p.nextTok()
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		p.failAt(t, "%s value %s out of range", what, t.text)
	}
	return n
}

// valuesClause parses ValuesClause ::= ( 'VALUES' DataBlock )?.
func (p *parser) valuesClause() *algebra.Table {
	if !p.acceptWord("VALUES") {
		return nil
	}
	return p.dataBlock()
}

// dataBlock parses DataBlock ::= InlineDataOneVar | InlineDataFull.
func (p *parser) dataBlock() *algebra.Table {
	tab := &algebra.Table{}
	if p.peek().kind == tokVar {
		tab.Vars = []algebra.Var{p.variable()}
		p.expect("{")
		for !p.peek().is("}") {
			tab.Rows = append(tab.Rows, []kb.Term{p.dataBlockValue()})
		}
		p.nextTok()
		return tab
	}
	if !p.peek().is("(") {
		p.expected("variable or '(' after VALUES")
	}
	p.nextTok()
	seen := map[algebra.Var]bool{}
	for p.peek().kind == tokVar {
		t := p.peek()
		v := p.variable()
		if seen[v] {
			p.failAt(t, "variable %s appears twice in VALUES", v)
		}
		seen[v] = true
		tab.Vars = append(tab.Vars, v)
	}
	p.expect(")")
	p.expect("{")
	for p.peek().is("(") {
		open := p.nextTok()
		row := []kb.Term{}
		for !p.peek().is(")") {
			row = append(row, p.dataBlockValue())
		}
		p.nextTok()
		if len(row) != len(tab.Vars) {
			p.failAt(open, "VALUES row has %d values for %d variables", len(row), len(tab.Vars))
		}
		tab.Rows = append(tab.Rows, row)
	}
	p.expect("}")
	return tab
}

// dataBlockValue parses iri | RDFLiteral | NumericLiteral | BooleanLiteral | 'UNDEF'.
func (p *parser) dataBlockValue() kb.Term {
	t := p.peek()
	switch {
	case t.isWord("UNDEF"):
		p.nextTok()
		return kb.Term{}
	case isIRIStart(t):
		return kb.IRI(p.iri())
	case isLiteralStart(t):
		return p.literal()
	case t.is("<<("):
		return p.tripleTermData()
	}
	p.expected("IRI, literal, triple term or UNDEF")
	return kb.Term{}
}

// buildSelect translates a SELECT query level per §18.2.4 and §18.2.5,
// running the projection and grouping checks. It returns the algebra and the
// projected variables.
func (p *parser) buildSelect(sc *selectClause, where algebra.Op, m *modifiers, scope *aggScope) (algebra.Op, []algebra.Var) {
	grouped := m.grouped || len(scope.bindings) > 0
	op := p.buildGroup(where, m, scope, grouped)
	if sc.star && grouped {
		p.failAt(sc.tok, "SELECT * is not allowed with GROUP BY or aggregates")
	}
	groupVars := map[algebra.Var]bool{}
	if grouped {
		for _, k := range m.keys {
			groupVars[k.key.Var] = true
		}
	}
	// Select expressions (§18.2.4.4).
	var vars []algebra.Var
	if sc.star {
		vars = distinguished(algebra.InScope(op))
	}
	defined := map[algebra.Var]bool{}
	for _, it := range sc.items {
		if it.expr == nil {
			if grouped && !groupVars[it.v] && !defined[it.v] {
				p.failAt(it.tok, "variable %s is neither grouped nor aggregated", it.v)
			}
			vars = append(vars, it.v)
			continue
		}
		e := it.expr
		if grouped {
			// Only grouped variables count: an expression equal to an
			// unnamed GROUP BY key is still an error (W3C test agg08).
			for _, v := range freeVars(e) {
				if v.IsDistinguished() && !groupVars[v] && !defined[v] {
					p.failAt(it.tok, "variable %s in the expression for %s is neither grouped nor aggregated", v, it.v)
				}
			}
		}
		if containsVar(algebra.InScope(op), it.v) {
			p.failAt(it.tok, "variable %s is already in scope and cannot be assigned by AS", it.v)
		}
		op = &algebra.Extend{Input: op, Var: it.v, Expr: e}
		defined[it.v] = true
		vars = append(vars, it.v)
	}
	if len(m.order) > 0 {
		op = &algebra.OrderBy{Conditions: m.order, Input: op}
	}
	op = &algebra.Project{Vars: dedupe(vars), Input: op}
	switch {
	case sc.distinct:
		op = &algebra.Distinct{Input: op}
	case sc.reduced:
		op = &algebra.Reduced{Input: op}
	}
	if m.offset > 0 || m.limit >= 0 {
		op = &algebra.Slice{Offset: m.offset, Limit: m.limit, Input: op}
	}
	return op, dedupe(vars)
}

// buildGroup applies GROUP BY/aggregation, HAVING and trailing VALUES.
func (p *parser) buildGroup(where algebra.Op, m *modifiers, scope *aggScope, grouped bool) algebra.Op {
	op := where
	if grouped {
		g := &algebra.Group{Input: op, Aggregates: scope.bindings}
		inScope := algebra.InScope(where)
		for _, k := range m.keys {
			if ve, plain := k.key.Expr.(*algebra.VarExpr); !(plain && ve.Var == k.key.Var) && k.key.Var.IsDistinguished() && containsVar(inScope, k.key.Var) {
				p.failAt(k.tok, "variable %s is already in scope and cannot be assigned by GROUP BY … AS", k.key.Var)
			}
			g.Keys = append(g.Keys, k.key)
		}
		op = g
	}
	if len(m.having) > 0 {
		op = &algebra.Filter{Exprs: m.having, Input: op}
	}
	if m.values != nil {
		op = join(op, m.values)
	}
	return op
}

// buildOther translates the modifiers of CONSTRUCT, ASK and DESCRIBE.
func (p *parser) buildOther(where algebra.Op, m *modifiers, scope *aggScope) algebra.Op {
	grouped := m.grouped || len(scope.bindings) > 0
	op := p.buildGroup(where, m, scope, grouped)
	if len(m.order) > 0 {
		op = &algebra.OrderBy{Conditions: m.order, Input: op}
	}
	if m.offset > 0 || m.limit >= 0 {
		op = &algebra.Slice{Offset: m.offset, Limit: m.limit, Input: op}
	}
	return op
}

func containsVar(vs []algebra.Var, v algebra.Var) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

func dedupe(vs []algebra.Var) []algebra.Var {
	seen := map[algebra.Var]bool{}
	out := make([]algebra.Var, 0, len(vs))
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// constructTemplate parses ConstructTemplate ::= '{' ConstructTriples? '}'.
func (p *parser) constructTemplate() []algebra.TriplePattern {
	p.expect("{")
	tc := &triplesCtx{mode: modeTemplate}
	p.triplesTemplate(tc)
	p.expect("}")
	p.templateTTs = tc.tts
	return tc.triples()
}

// constructWhere parses the short form's '{' TriplesTemplate? '}', returning
// the template and the pattern.
func (p *parser) constructWhere() ([]algebra.TriplePattern, algebra.Op) {
	p.expect("{")
	p.startBlock()
	tc := &triplesCtx{mode: modeWhere}
	p.triplesTemplate(tc)
	p.expect("}")
	p.endBlock()
	ts := tc.triples()
	return templateBlanks(ts, tc.tts), unnestWhere(&algebra.BGP{Triples: ts}, tc.tts)
}
