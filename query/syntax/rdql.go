package syntax

import (
	"regexp"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
)

// RDQL (W3C Member Submission, 2004) is the query language of Jena 1/2 that
// the dissertation's Fig. 6.29 uses:
//
//	SELECT ?regionsummary
//	WHERE (?regionsummary perfonto:inProcessingUnit ?processingunit)
//	      (?processingunit perfonto:inNode "gsr410")
//	      …
//	AND (?value >= 3E8)
//	USING perfonto FOR <http://www.par.univie.ac.at/project/scalea/perfonto#>
//
// ParseRDQL translates it to the algebra its SPARQL equivalent produces:
// SELECT ?vars [FROM <src>] WHERE { triples FILTER(expr) … } with the USING
// prefixes as PREFIX declarations. Operators map to SPARQL: == and EQ to =,
// != and NE to !=, =~ /re/flags to REGEX, !~ to !REGEX; the bit operators
// and &function calls have no SPARQL counterpart and are rejected.

// rdqlDefaultPrefixes are predeclared, as in Jena's RDQL.
var rdqlDefaultPrefixes = []algebra.Prefix{
	{Prefix: "rdf", IRI: rdfNS},
	{Prefix: "rdfs", IRI: ontology.RDFSNamespace},
	{Prefix: "xsd", IRI: xsdNS},
	{Prefix: "owl", IRI: ontology.OWLNamespace},
}

var rdqlDetect = regexp.MustCompile(`(?is)^\s*SELECT\b[^{]*?\bWHERE\s*\(`)

// LooksLikeRDQL reports whether src looks like an RDQL query rather than
// SPARQL: a SELECT whose WHERE clause starts with a parenthesised triple
// pattern, and no '{' anywhere outside strings and IRIs.
func LooksLikeRDQL(src string) bool {
	stripped := stripComments(src)
	return rdqlDetect.MatchString(stripped) && !strings.Contains(stripped, "{")
}

// stripComments removes '#' and '//' line comments that are not inside IRIs
// or strings (good enough for detection).
func stripComments(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		inIRI, quote := false, byte(0)
		cut := len(line)
	scan:
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case quote != 0:
				if c == '\\' {
					i++
				} else if c == quote {
					quote = 0
				}
			case inIRI:
				if c == '>' {
					inIRI = false
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '<' && i+1 < len(line) && line[i+1] != '=' && line[i+1] != ' ':
				inIRI = true
			case c == '#' || (c == '/' && i+1 < len(line) && line[i+1] == '/'):
				cut = i
				break scan
			}
		}
		b.WriteString(line[:cut])
		b.WriteByte('\n')
	}
	return b.String()
}

// tokRegex is the RDQL pattern literal /re/flags: text is the pattern,
// local the flags.
const tokRegex tokKind = 100

// tokenizeRDQL lexes RDQL, reading a pattern literal after =~, ~~ and !~.
func tokenizeRDQL(src string) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1, rdql: true}
	var toks []token
	for {
		if n := len(toks); n > 0 && (toks[n-1].is("=~") || toks[n-1].is("!~") || toks[n-1].is("~~")) {
			l.skipSpace()
			if t, ok, err := l.scanPatternLiteral(); err != nil {
				return nil, err
			} else if ok {
				toks = append(toks, t)
				continue
			}
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		if t.is("~") && l.peekByte(0) == '~' {
			l.advance(1)
			t.text, t.end = "~~", l.pos
		}
		toks = append(toks, t)
		if t.kind == tokEOF {
			return toks, nil
		}
	}
}

// scanPatternLiteral scans /re/flags or m<d>re<d>flags.
func (l *lexer) scanPatternLiteral() (token, bool, error) {
	t := token{line: l.line, col: l.col, off: l.pos}
	i := l.pos
	if i < len(l.src) && l.src[i] == 'm' && i+1 < len(l.src) && !isLetter(l.src[i+1]) && !isDigit(l.src[i+1]) && l.src[i+1] != ' ' {
		i++
	}
	if i >= len(l.src) || (l.src[i] != '/' && i == l.pos) {
		return t, false, nil
	}
	delim := l.src[i]
	var b strings.Builder
	j := i + 1
	for ; j < len(l.src) && l.src[j] != delim; j++ {
		if l.src[j] == '\\' && j+1 < len(l.src) && l.src[j+1] == delim {
			j++
		}
		if l.src[j] == '\n' {
			return t, false, l.errorf(t.line, t.col, "unterminated pattern literal")
		}
		b.WriteByte(l.src[j])
	}
	if j >= len(l.src) {
		return t, false, l.errorf(t.line, t.col, "unterminated pattern literal")
	}
	j++
	k := j
	for k < len(l.src) && isLetter(l.src[k]) {
		k++
	}
	flags := l.src[j:k]
	l.advance(k - l.pos)
	t.kind, t.text, t.local, t.end = tokRegex, b.String(), flags, l.pos
	return t, true, nil
}

// ParseRDQL parses an RDQL query and translates it to the algebra of its
// SPARQL equivalent.
func ParseRDQL(src string, opts Options) (*algebra.Query, error) {
	toks, err := tokenizeRDQL(src)
	if err != nil {
		return nil, located(err, opts)
	}
	p := newParser(toks, src, opts)
	var q *algebra.Query
	if err := run(func() { q = p.rdqlQuery() }); err != nil {
		return nil, located(err, opts)
	}
	return q, nil
}

// rdqlQuery parses Query ::= SelectClause SourceClause? TriplePatternClause
// ConstraintClause? PrefixesClause?.
func (p *parser) rdqlQuery() *algebra.Query {
	for _, pr := range rdqlDefaultPrefixes {
		p.prefixes[pr.Prefix] = pr.IRI
	}
	// The USING clause comes last but governs every prefixed name: read it
	// first.
	end := len(p.toks) - 1
	for i, t := range p.toks {
		if t.isWord("USING") {
			end = i
			p.pos = i + 1
			p.rdqlPrefixes()
			if p.peek().kind != tokEOF {
				p.expected("end of query")
			}
			break
		}
	}
	toks := p.toks
	p.toks = append(toks[:end:end], token{kind: tokEOF, line: toks[end].line, col: toks[end].col, off: toks[end].off, end: toks[end].off})
	p.pos = 0

	q := &algebra.Query{Form: algebra.FormSelect}
	p.expectWord("SELECT")
	var vars []algebra.Var
	if p.accept("*") {
		q.Star = true
	} else {
		for {
			vars = append(vars, p.variable())
			p.accept(",")
			if p.peek().kind != tokVar {
				break
			}
		}
	}
	if p.acceptWord("SOURCE") || p.acceptWord("FROM") {
		q.Dataset = &algebra.Dataset{}
		for {
			q.Dataset.Default = append(q.Dataset.Default, p.rdqlURI())
			p.accept(",")
			if !isIRIStart(p.peek()) {
				break
			}
		}
	}
	p.expectWord("WHERE")
	p.startBlock()
	var triples []algebra.TriplePattern
	for {
		triples = append(triples, p.rdqlTriple())
		p.accept(",")
		if !p.peek().is("(") {
			break
		}
	}
	p.endBlock()
	var op algebra.Op = &algebra.BGP{Triples: triples}
	var filters []algebra.Expr
	if p.acceptWord("AND") {
		for {
			filters = append(filters, p.rdqlExpression())
			if !p.accept(",") && !p.acceptWord("AND") {
				break
			}
		}
	}
	if p.peek().kind != tokEOF {
		p.expected("AND, USING or end of query")
	}
	if len(filters) > 0 {
		op = &algebra.Filter{Exprs: filters, Input: op}
	}
	if q.Star {
		vars = distinguished(algebra.InScope(op))
	}
	q.Vars = vars
	q.Pattern = &algebra.Project{Vars: vars, Input: op}
	q.BaseIRI = p.base
	q.Prefixes = p.prefixList
	return q
}

// rdqlPrefixes parses PrefixDecl ( ','? PrefixDecl )* where
// PrefixDecl ::= Identifier 'FOR' QuotedURI.
func (p *parser) rdqlPrefixes() {
	for {
		t := p.peek()
		if t.kind != tokWord {
			p.expected("prefix name after USING")
		}
		p.nextTok()
		p.expectWord("FOR")
		it := p.peek()
		if it.kind != tokIRI {
			p.expected("quoted IRI <…> after FOR")
		}
		p.nextTok()
		iri := p.resolve(it)
		p.prefixes[t.text] = iri
		p.prefixList = append(p.prefixList, algebra.Prefix{Prefix: t.text, IRI: iri})
		p.accept(",")
		if p.peek().kind != tokWord {
			return
		}
	}
}

// rdqlURI parses URI ::= QuotedURI | QName.
func (p *parser) rdqlURI() string {
	if !isIRIStart(p.peek()) {
		p.expected("IRI")
	}
	return p.iri()
}

// rdqlTriple parses '(' VarOrURI ','? VarOrURI ','? VarOrConst ')'.
func (p *parser) rdqlTriple() algebra.TriplePattern {
	p.expect("(")
	s := p.varOrIri()
	p.accept(",")
	pr := p.varOrIri()
	p.accept(",")
	var o algebra.Node
	switch t := p.peek(); {
	case t.kind == tokVar:
		o = algebra.VarNode(p.variable())
	case isIRIStart(t):
		o = algebra.TermNode(kb.IRI(p.iri()))
	case isLiteralStart(t):
		o = algebra.TermNode(p.literal())
	default:
		p.expected("variable, IRI or literal")
	}
	p.expect(")")
	return algebra.TriplePattern{S: s, P: pr, O: o}
}

// rdqlExpression parses an RDQL Expression (C-like precedence).
func (p *parser) rdqlExpression() algebra.Expr {
	p.enter()
	defer p.leave()
	left := p.rdqlAnd()
	for p.accept("||") {
		left = &algebra.BinaryExpr{Op: algebra.OpOr, Left: left, Right: p.rdqlAnd()}
	}
	return left
}

func (p *parser) rdqlAnd() algebra.Expr {
	left := p.rdqlStringEquality()
	for p.accept("&&") {
		left = &algebra.BinaryExpr{Op: algebra.OpAnd, Left: left, Right: p.rdqlStringEquality()}
	}
	return left
}

// rdqlStringEquality parses NumericalLogical ( EQ | NE | =~ | !~ … )*.
func (p *parser) rdqlStringEquality() algebra.Expr {
	left := p.rdqlEquality()
	for {
		t := p.peek()
		switch {
		case t.isWord("EQ"):
			p.nextTok()
			left = &algebra.BinaryExpr{Op: algebra.OpEqual, Left: left, Right: p.rdqlEquality()}
		case t.isWord("NE"):
			p.nextTok()
			left = &algebra.BinaryExpr{Op: algebra.OpNotEqual, Left: left, Right: p.rdqlEquality()}
		case t.is("=~") || t.is("~~") || t.is("!~"):
			p.nextTok()
			pt := p.peek()
			if pt.kind != tokRegex {
				p.expected("pattern literal /…/ after " + t.text)
			}
			p.nextTok()
			args := []algebra.Expr{left, &algebra.ConstExpr{Term: kb.String(pt.text)}}
			if pt.local != "" {
				args = append(args, &algebra.ConstExpr{Term: kb.String(pt.local)})
			}
			left = &algebra.BuiltinExpr{Name: algebra.BuiltinRegex, Args: args}
			if t.is("!~") {
				left = &algebra.UnaryExpr{Op: algebra.OpNot, Arg: left}
			}
		default:
			return left
		}
	}
}

// rdqlEquality parses RelationalExpression ( ( '==' | '!=' ) RelationalExpression )?.
func (p *parser) rdqlEquality() algebra.Expr {
	left := p.rdqlRelational()
	t := p.peek()
	switch {
	case t.is("==") || t.is("="):
		p.nextTok()
		return &algebra.BinaryExpr{Op: algebra.OpEqual, Left: left, Right: p.rdqlRelational()}
	case t.is("!="):
		p.nextTok()
		return &algebra.BinaryExpr{Op: algebra.OpNotEqual, Left: left, Right: p.rdqlRelational()}
	case t.is("|") || t.is("^") || t.is("&"):
		p.failAt(t, "RDQL bit operator %q is not supported", t.text)
	}
	return left
}

func (p *parser) rdqlRelational() algebra.Expr {
	left := p.rdqlAdditive()
	t := p.peek()
	if t.kind == tokPunct {
		if op, ok := relationalOps[t.text]; ok && t.text != "=" && t.text != "!=" {
			p.nextTok()
			return &algebra.BinaryExpr{Op: op, Left: left, Right: p.rdqlAdditive()}
		}
		if t.text == "<<" || t.text == ">>" {
			p.failAt(t, "RDQL shift operator %q is not supported", t.text)
		}
	}
	return left
}

func (p *parser) rdqlAdditive() algebra.Expr {
	left := p.rdqlMultiplicative()
	for {
		t := p.peek()
		switch {
		case t.is("+") || t.is("-"):
			p.nextTok()
			op := algebra.OpAdd
			if t.text == "-" {
				op = algebra.OpSub
			}
			left = &algebra.BinaryExpr{Op: op, Left: left, Right: p.rdqlMultiplicative()}
		case isSignedNumber(t):
			p.nextTok()
			op := algebra.OpAdd
			if t.text[0] == '-' {
				op = algebra.OpSub
			}
			unsigned := t
			unsigned.text = t.text[1:]
			left = &algebra.BinaryExpr{Op: op, Left: left, Right: &algebra.ConstExpr{Term: numberTerm(unsigned)}}
		default:
			return left
		}
	}
}

func (p *parser) rdqlMultiplicative() algebra.Expr {
	left := p.rdqlUnary()
	for {
		t := p.peek()
		switch {
		case t.is("*"):
			p.nextTok()
			left = &algebra.BinaryExpr{Op: algebra.OpMul, Left: left, Right: p.rdqlUnary()}
		case t.is("/"):
			p.nextTok()
			left = &algebra.BinaryExpr{Op: algebra.OpDiv, Left: left, Right: p.rdqlUnary()}
		case t.is("%"):
			p.failAt(t, "RDQL remainder operator %% is not supported")
		default:
			return left
		}
	}
}

func (p *parser) rdqlUnary() algebra.Expr {
	t := p.peek()
	switch {
	case t.is("!"):
		p.nextTok()
		p.enter()
		defer p.leave()
		return &algebra.UnaryExpr{Op: algebra.OpNot, Arg: p.rdqlUnary()}
	case t.is("-"):
		p.nextTok()
		p.enter()
		defer p.leave()
		return &algebra.UnaryExpr{Op: algebra.OpMinus, Arg: p.rdqlUnary()}
	case t.is("+"):
		p.nextTok()
		p.enter()
		defer p.leave()
		return &algebra.UnaryExpr{Op: algebra.OpPlus, Arg: p.rdqlUnary()}
	case t.is("~"):
		p.failAt(t, "RDQL bit operator ~ is not supported")
	case t.is("&"):
		p.failAt(t, "RDQL function calls (&name) are not supported")
	case t.is("("):
		p.nextTok()
		e := p.rdqlExpression()
		p.expect(")")
		return e
	case t.kind == tokVar:
		return &algebra.VarExpr{Var: p.variable()}
	case isIRIStart(t):
		return &algebra.ConstExpr{Term: kb.IRI(p.iri())}
	case isLiteralStart(t):
		return &algebra.ConstExpr{Term: p.literal()}
	case t.isWord("null"):
		p.failAt(t, "RDQL null has no SPARQL counterpart")
	}
	p.expected("expression")
	return nil
}
