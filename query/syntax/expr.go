package syntax

import (
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// aggregateFuncs maps the aggregate keywords.
var aggregateFuncs = map[string]algebra.AggregateFunc{
	"COUNT":        algebra.AggCount,
	"SUM":          algebra.AggSum,
	"MIN":          algebra.AggMin,
	"MAX":          algebra.AggMax,
	"AVG":          algebra.AggAvg,
	"SAMPLE":       algebra.AggSample,
	"GROUP_CONCAT": algebra.AggGroupConcat,
}

// isBuiltinStart reports whether t starts a BuiltInCall (including
// aggregates and [NOT] EXISTS).
func (p *parser) isBuiltinStart(t token) bool {
	if t.kind != tokWord {
		return false
	}
	k := strings.ToUpper(t.text)
	if _, ok := p.funcs.Keyword(k); ok {
		return true
	}
	if _, ok := aggregateFuncs[k]; ok {
		return true
	}
	return k == "EXISTS" || (k == "NOT" && p.peekN(1).isWord("EXISTS"))
}

// isConstraintStart reports whether t starts a Constraint.
func (p *parser) isConstraintStart(t token) bool {
	return t.is("(") || p.isBuiltinStart(t) || (isIRIStart(t) && p.peekN(1).is("("))
}

// constraint parses Constraint ::= BrackettedExpression | BuiltInCall | FunctionCall.
func (p *parser) constraint() algebra.Expr {
	t := p.peek()
	switch {
	case t.is("("):
		return p.bracketedExpression()
	case p.isBuiltinStart(t):
		return p.builtinCall()
	case isIRIStart(t) && p.peekN(1).is("("):
		return p.iriOrFunction()
	}
	p.expected("'(', built-in call or function call")
	return nil
}

// bracketedExpression parses '(' Expression ')'.
func (p *parser) bracketedExpression() algebra.Expr {
	p.expect("(")
	e := p.expression()
	p.expect(")")
	return e
}

// expression parses Expression ::= ConditionalOrExpression.
func (p *parser) expression() algebra.Expr {
	p.enter()
	defer p.leave()
	left := p.andExpression()
	for p.accept("||") {
		left = &algebra.BinaryExpr{Op: algebra.OpOr, Left: left, Right: p.andExpression()}
	}
	return left
}

func (p *parser) andExpression() algebra.Expr {
	left := p.relationalExpression()
	for p.accept("&&") {
		left = &algebra.BinaryExpr{Op: algebra.OpAnd, Left: left, Right: p.relationalExpression()}
	}
	return left
}

var relationalOps = map[string]algebra.BinaryOp{
	"=": algebra.OpEqual, "!=": algebra.OpNotEqual, "<": algebra.OpLess,
	">": algebra.OpGreater, "<=": algebra.OpLessEq, ">=": algebra.OpGreatEq,
}

// relationalExpression parses NumericExpression ( op NumericExpression | [NOT] IN ExpressionList )?.
func (p *parser) relationalExpression() algebra.Expr {
	left := p.additiveExpression()
	t := p.peek()
	if t.kind == tokPunct {
		if op, ok := relationalOps[t.text]; ok {
			p.nextTok()
			return &algebra.BinaryExpr{Op: op, Left: left, Right: p.additiveExpression()}
		}
	}
	switch {
	case t.isWord("IN"):
		p.nextTok()
		return &algebra.InExpr{Arg: left, List: p.expressionList()}
	case t.isWord("NOT") && p.peekN(1).isWord("IN"):
		p.pos += 2
		return &algebra.InExpr{Not: true, Arg: left, List: p.expressionList()}
	}
	return left
}

// expressionList parses ExpressionList ::= NIL | '(' Expression ( ',' Expression )* ')'.
func (p *parser) expressionList() []algebra.Expr {
	p.expect("(")
	list := []algebra.Expr{}
	if p.accept(")") {
		return list
	}
	for {
		list = append(list, p.expression())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return list
}

// isSignedNumber reports whether t is a number written with a sign.
func isSignedNumber(t token) bool {
	switch t.kind {
	case tokInteger, tokDecimal, tokDouble:
		return t.text[0] == '+' || t.text[0] == '-'
	}
	return false
}

// additiveExpression parses AdditiveExpression, including the grammar's
// case of a signed number directly following an operand ("?x -1").
func (p *parser) additiveExpression() algebra.Expr {
	left := p.multiplicativeExpression()
	for {
		t := p.peek()
		switch {
		case t.is("+") || t.is("-"):
			p.nextTok()
			op := algebra.OpAdd
			if t.text == "-" {
				op = algebra.OpSub
			}
			left = &algebra.BinaryExpr{Op: op, Left: left, Right: p.multiplicativeExpression()}
		case isSignedNumber(t):
			p.nextTok()
			op := algebra.OpAdd
			if t.text[0] == '-' {
				op = algebra.OpSub
			}
			unsigned := t
			unsigned.text = t.text[1:]
			var right algebra.Expr = &algebra.ConstExpr{Term: numberTerm(unsigned)}
			for {
				if p.accept("*") {
					right = &algebra.BinaryExpr{Op: algebra.OpMul, Left: right, Right: p.unaryExpression()}
				} else if p.accept("/") {
					right = &algebra.BinaryExpr{Op: algebra.OpDiv, Left: right, Right: p.unaryExpression()}
				} else {
					break
				}
			}
			left = &algebra.BinaryExpr{Op: op, Left: left, Right: right}
		default:
			return left
		}
	}
}

// numberTerm converts a numeric token to a literal keeping its lexical form.
func numberTerm(t token) kb.Term {
	switch t.kind {
	case tokDecimal:
		return kb.Literal(t.text, xsdDecimal)
	case tokDouble:
		return kb.Literal(t.text, xsdDouble)
	}
	return kb.Literal(t.text, xsdInteger)
}

func (p *parser) multiplicativeExpression() algebra.Expr {
	left := p.unaryExpression()
	for {
		switch {
		case p.accept("*"):
			left = &algebra.BinaryExpr{Op: algebra.OpMul, Left: left, Right: p.unaryExpression()}
		case p.accept("/"):
			left = &algebra.BinaryExpr{Op: algebra.OpDiv, Left: left, Right: p.unaryExpression()}
		default:
			return left
		}
	}
}

// unaryExpression parses ( '!' | '+' | '-' )? PrimaryExpression.
func (p *parser) unaryExpression() algebra.Expr {
	switch {
	case p.accept("!"):
		p.enter()
		defer p.leave()
		return &algebra.UnaryExpr{Op: algebra.OpNot, Arg: p.unaryPrimary()}
	case p.accept("+"):
		return &algebra.UnaryExpr{Op: algebra.OpPlus, Arg: p.unaryPrimary()}
	case p.accept("-"):
		return &algebra.UnaryExpr{Op: algebra.OpMinus, Arg: p.unaryPrimary()}
	}
	return p.primaryExpression()
}

// unaryPrimary parses the operand of a unary operator. The grammar only
// allows a PrimaryExpression; nested unary operators ("!!?x") are accepted as
// ARQ does.
func (p *parser) unaryPrimary() algebra.Expr {
	t := p.peek()
	if t.is("!") || t.is("+") || t.is("-") {
		p.enter()
		defer p.leave()
		return p.unaryExpression()
	}
	return p.primaryExpression()
}

// primaryExpression parses PrimaryExpression.
func (p *parser) primaryExpression() algebra.Expr {
	t := p.peek()
	switch {
	case t.is("("):
		return p.bracketedExpression()
	case t.kind == tokVar:
		return &algebra.VarExpr{Var: p.variable()}
	case isIRIStart(t):
		return p.iriOrFunction()
	case isLiteralStart(t):
		return &algebra.ConstExpr{Term: p.literal()}
	case p.isBuiltinStart(t):
		return p.builtinCall()
	case t.is("<<("):
		return p.exprTripleTerm()
	case t.kind == tokWord:
		p.failAt(t, "unknown function or keyword %q in expression", t.text)
	}
	p.expected("expression")
	return nil
}

// iriOrFunction parses iri ArgList?.
func (p *parser) iriOrFunction() algebra.Expr {
	t := p.peek()
	iri := p.iri()
	if !p.peek().is("(") {
		return &algebra.ConstExpr{Term: kb.IRI(iri)}
	}
	p.nextTok()
	args := []algebra.Expr{}
	if !p.accept(")") {
		p.acceptWord("DISTINCT")
		for {
			args = append(args, p.expression())
			if !p.accept(",") {
				break
			}
		}
		p.expect(")")
	}
	if def, ok := p.funcs.IRI(iri); ok {
		if err := def.CheckArity(len(args)); err != nil {
			p.failAt(t, "%v", err)
		}
	} else if p.funcs.Closed(iri) {
		p.failAt(t, "unknown function <%s>", iri)
	}
	return &algebra.FuncExpr{IRI: iri, Args: args}
}

// builtinCall parses BuiltInCall, including aggregates and [NOT] EXISTS.
func (p *parser) builtinCall() algebra.Expr {
	t := p.nextTok()
	k := strings.ToUpper(t.text)
	switch k {
	case "EXISTS":
		return &algebra.ExistsExpr{Pattern: p.existsPattern()}
	case "NOT":
		p.expectWord("EXISTS")
		return &algebra.ExistsExpr{Not: true, Pattern: p.existsPattern()}
	}
	if f, ok := aggregateFuncs[k]; ok {
		return p.aggregate(t, f)
	}
	def, _ := p.funcs.Keyword(k) // isBuiltinStart checked it is declared
	name := algebra.Builtin(def.Name)
	if !p.peek().is("(") {
		p.expected("'(' after " + k)
	}
	var args []algebra.Expr
	if name == algebra.BuiltinBound {
		p.expect("(")
		args = []algebra.Expr{&algebra.VarExpr{Var: p.variable()}}
		p.expect(")")
	} else {
		args = p.expressionList()
	}
	if err := def.CheckArity(len(args)); err != nil {
		p.failAt(t, "%v", err)
	}
	if name == algebra.BuiltinRegex && len(args) == 3 {
		// Flags written as a literal are checked here, so a typo is a
		// positioned error instead of a FILTER that is silently false on
		// every row.
		if c, ok := args[2].(*algebra.ConstExpr); ok {
			for _, f := range c.Term.Value {
				if !strings.ContainsRune("smixq", f) {
					p.failAt(t, "REGEX flag %q is not one of s, m, i, x, q", f)
				}
			}
		}
	}
	return &algebra.BuiltinExpr{Name: name, Args: args}
}

// existsPattern parses the group of [NOT] EXISTS: a WHERE pattern, where
// aggregates are not allowed.
func (p *parser) existsPattern() algebra.Op {
	saved, savedDepth := p.aggs, p.aggDepth
	p.aggs, p.aggDepth = nil, 0
	op := p.groupGraphPattern()
	p.aggs, p.aggDepth = saved, savedDepth
	return op
}

// aggregate parses Aggregate and registers it with the current query level,
// returning the variable that stands for it (§18.2.4.1).
func (p *parser) aggregate(t token, f algebra.AggregateFunc) algebra.Expr {
	if p.aggs == nil {
		p.failAt(t, "aggregate %s is not allowed here", f)
	}
	if p.aggDepth > 0 {
		p.failAt(t, "aggregate %s is nested inside another aggregate", f)
	}
	p.aggDepth++
	a := &algebra.Aggregate{Func: f}
	p.expect("(")
	a.Distinct = p.acceptWord("DISTINCT")
	if f == algebra.AggCount && p.accept("*") {
		a.Star = true
	} else {
		a.Expr = p.expression()
	}
	if f == algebra.AggGroupConcat {
		a.Separator = " "
		if p.accept(";") {
			p.expectWord("SEPARATOR")
			p.expect("=")
			st := p.peek()
			if st.kind != tokString {
				p.expected("string after SEPARATOR =")
			}
			p.nextTok()
			a.Separator = st.text
		}
	}
	p.expect(")")
	p.aggDepth--
	key := a.String()
	if v, ok := p.aggs.byKey[key]; ok {
		return &algebra.VarExpr{Var: v}
	}
	v := p.freshAggVar()
	p.aggs.byKey[key] = v
	p.aggs.bindings = append(p.aggs.bindings, algebra.AggregateBinding{Var: v, Aggregate: a})
	return &algebra.VarExpr{Var: v}
}

// freeVars returns the variables an expression uses outside EXISTS patterns.
func freeVars(e algebra.Expr) []algebra.Var {
	var out []algebra.Var
	var walk func(algebra.Expr)
	walk = func(e algebra.Expr) {
		switch e := e.(type) {
		case *algebra.VarExpr:
			out = append(out, e.Var)
		case *algebra.FuncExpr:
			for _, a := range e.Args {
				walk(a)
			}
		case *algebra.BuiltinExpr:
			for _, a := range e.Args {
				walk(a)
			}
		case *algebra.BinaryExpr:
			walk(e.Left)
			walk(e.Right)
		case *algebra.UnaryExpr:
			walk(e.Arg)
		case *algebra.InExpr:
			walk(e.Arg)
			for _, a := range e.List {
				walk(a)
			}
		}
	}
	walk(e)
	return out
}
