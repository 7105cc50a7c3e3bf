package syntax

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/textpos"
)

// Options configure parsing.
type Options struct {
	// BaseIRI is the initial base IRI against which relative IRIs are
	// resolved (a BASE declaration in the text overrides it). Empty means
	// relative IRIs are kept as written.
	BaseIRI string
	// Context, when set, stops parsing when it ends (a request's deadline):
	// a huge query text must not outlast its time limit.
	Context context.Context
	// Functions declares the functions calls may name: the built-in
	// keywords with their arities, casts and extension functions by IRI.
	// Nil means function.Builtin(). A keyword it does not declare, a wrong
	// number of arguments, or an undeclared IRI in a namespace it closes is
	// a positioned error.
	Functions *function.Registry
	// Source names the text in error positions (a file name); empty for a
	// text with no name.
	Source string
}

// Namespaces used by the parser.
const (
	rdfNS      = ontology.RDFNamespace
	xsdNS      = ontology.XSDNamespace
	rdfType    = ontology.RDFType
	rdfFirst   = ontology.RDFFirst
	rdfRest    = ontology.RDFRest
	rdfNil     = ontology.RDFNil
	xsdInteger = ontology.XSDInteger
	xsdDecimal = ontology.XSDDecimal
	xsdDouble  = ontology.XSDDouble
	xsdBoolean = ontology.XSDBoolean
)

// maxNestDepth bounds the nesting of groups, expressions, paths and
// collections so that hostile input cannot overflow the stack.
const maxNestDepth = 500

// bailout is the panic value used to abandon parsing at the first error.
type bailout struct{ err *textpos.Error }

// stopped unwinds the parser when its context ends; unlike bailout it is
// not the user's input being invalid.
type stopped struct{ err error }

// parser is a recursive-descent parser over a pre-lexed token slice.
type parser struct {
	toks  []token
	pos   int
	src   string
	ctx   context.Context // nil: none
	steps uint32

	base       string
	prefixes   map[string]string
	prefixList []algebra.Prefix

	fresh int // counter for invented variables and blank nodes
	depth int

	// bnodeBlock maps a blank node label of a WHERE pattern to the BGP block
	// it was first used in (labels may not cross blocks).
	bnodeBlock map[string]int
	block      int // last block number handed out
	curBlock   int // block being parsed; 0 between blocks

	// dataBlank maps INSERT DATA blank node labels to the operation that
	// used them (labels may not be shared between operations); opIndex is the
	// index of the update operation being parsed.
	dataBlank map[string]int
	opIndex   int

	// aggs collects the aggregates of the query level being parsed; nil where
	// aggregates are not allowed.
	aggs *aggScope
	// aggDepth is >0 while parsing the argument of an aggregate.
	aggDepth int

	funcs *function.Registry

	// templateTTs are the triple terms with variables of the template
	// parsed last (see triple12.go).
	templateTTs []tripleTermVar
}

// aggScope collects the aggregates of one SELECT level.
type aggScope struct {
	bindings []algebra.AggregateBinding
	byKey    map[string]algebra.Var
}

func newParser(toks []token, src string, opts Options) *parser {
	funcs := opts.Functions
	if funcs == nil {
		funcs = function.Builtin()
	}
	return &parser{
		funcs:      funcs,
		toks:       toks,
		src:        src,
		ctx:        opts.Context,
		base:       opts.BaseIRI,
		prefixes:   map[string]string{},
		bnodeBlock: map[string]int{},
	}
}

// run calls f, turning a bailout panic into an error.
func run(f func()) (err error) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case bailout:
			err = r.err
		case stopped:
			err = r.err
		default:
			panic(r)
		}
	}()
	f()
	return nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekN(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) nextTok() token {
	if p.ctx != nil {
		if p.steps++; p.steps&8191 == 0 {
			if err := p.ctx.Err(); err != nil {
				panic(stopped{fmt.Errorf("parsing stopped: %w", err)})
			}
		}
	}
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

// failAt stops parsing with an error at t.
func (p *parser) failAt(t token, format string, args ...any) {
	panic(bailout{errorAt(t.line, t.col, format, args...)})
}

// expected stops parsing with "expected what, found <next token>".
func (p *parser) expected(what string) {
	t := p.peek()
	p.failAt(t, "expected %s, found %s", what, t.describe())
}

// expect consumes the punctuation s or fails.
func (p *parser) expect(s string) token {
	if !p.peek().is(s) {
		p.expected("'" + s + "'")
	}
	return p.nextTok()
}

// expectWord consumes the keyword w or fails.
func (p *parser) expectWord(w string) token {
	if !p.peek().isWord(w) {
		p.expected(w)
	}
	return p.nextTok()
}

// accept consumes the punctuation s if it is next.
func (p *parser) accept(s string) bool {
	if p.peek().is(s) {
		p.pos++
		return true
	}
	return false
}

// acceptWord consumes the keyword w if it is next.
func (p *parser) acceptWord(w string) bool {
	if p.peek().isWord(w) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxNestDepth {
		p.failAt(p.peek(), "exceeded maximum nesting depth %d", maxNestDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// freshVar invents a non-distinguished variable for an anonymous node.
func (p *parser) freshVar() algebra.Var {
	v := algebra.Var("?" + strconv.Itoa(p.fresh))
	p.fresh++
	return v
}

// freshBlank invents a blank node label no query text can write.
func (p *parser) freshBlank() kb.Term {
	t := kb.Blank(".b" + strconv.Itoa(p.fresh))
	p.fresh++
	return t
}

// freshAggVar invents a variable for an aggregate or unnamed group key.
func (p *parser) freshAggVar() algebra.Var {
	v := algebra.Var("." + strconv.Itoa(p.fresh))
	p.fresh++
	return v
}

// ---- Prologue ----

// prologue parses ( BaseDecl | PrefixDecl )*.
func (p *parser) prologue() {
	for {
		switch t := p.peek(); {
		case t.isWord("BASE"):
			p.nextTok()
			it := p.peek()
			if it.kind != tokIRI {
				p.expected("IRI after BASE")
			}
			p.nextTok()
			p.base = p.resolve(it)
		case t.isWord("VERSION"):
			// SPARQL 1.2 VersionDecl: a short string naming the version
			// the query is written for; any version is read the same way.
			p.nextTok()
			st := p.peek()
			if st.kind != tokString || strings.HasPrefix(p.src[st.off:], `"""`) || strings.HasPrefix(p.src[st.off:], "'''") {
				p.expected("version string (like \"1.2\") after VERSION")
			}
			p.nextTok()
		case t.isWord("PREFIX"):
			p.nextTok()
			nt := p.peek()
			if nt.kind != tokPName || nt.local != "" {
				p.expected("prefix name (like ex:) after PREFIX")
			}
			p.nextTok()
			it := p.peek()
			if it.kind != tokIRI {
				p.expected("IRI after PREFIX " + nt.text + ":")
			}
			p.nextTok()
			iri := p.resolve(it)
			p.prefixes[nt.text] = iri
			p.prefixList = append(p.prefixList, algebra.Prefix{Prefix: nt.text, IRI: iri})
		default:
			return
		}
	}
}

// resolve resolves an IRIREF token against the base.
func (p *parser) resolve(t token) string {
	return resolveIRI(p.base, t.text)
}

// ---- Terms ----

// isIRIStart reports whether t starts an iri (IRIREF or prefixed name).
func isIRIStart(t token) bool { return t.kind == tokIRI || t.kind == tokPName }

// iri parses iri ::= IRIREF | PrefixedName.
func (p *parser) iri() string {
	t := p.peek()
	switch t.kind {
	case tokIRI:
		p.nextTok()
		return p.resolve(t)
	case tokPName:
		p.nextTok()
		ns, ok := p.prefixes[t.text]
		if !ok {
			p.failAt(t, "undefined prefix %q", t.text+":")
		}
		return ns + t.local
	}
	p.expected("IRI")
	return ""
}

// isLiteralStart reports whether t starts an RDF, numeric or boolean literal.
func isLiteralStart(t token) bool {
	switch t.kind {
	case tokString, tokInteger, tokDecimal, tokDouble:
		return true
	case tokWord:
		return t.isWord("true") || t.isWord("false")
	}
	return false
}

// literal parses RDFLiteral | NumericLiteral | BooleanLiteral.
func (p *parser) literal() kb.Term {
	t := p.nextTok()
	switch t.kind {
	case tokString:
		switch nt := p.peek(); {
		case nt.kind == tokLang:
			p.nextTok()
			if lang, dir, ok := strings.Cut(nt.text, "--"); ok {
				if dir != "ltr" && dir != "rtl" {
					p.failAt(nt, "base direction %q is not ltr or rtl", dir)
				}
				return kb.DirLangLiteral(t.text, lang, dir)
			}
			return kb.LangLiteral(t.text, nt.text)
		case nt.is("^^"):
			p.nextTok()
			if !isIRIStart(p.peek()) {
				p.expected("datatype IRI after '^^'")
			}
			return kb.Literal(t.text, p.iri())
		}
		return kb.String(t.text)
	case tokInteger:
		return kb.Literal(t.text, xsdInteger)
	case tokDecimal:
		return kb.Literal(t.text, xsdDecimal)
	case tokDouble:
		return kb.Literal(t.text, xsdDouble)
	case tokWord:
		if t.isWord("true") {
			return kb.Literal("true", xsdBoolean)
		}
		if t.isWord("false") {
			return kb.Literal("false", xsdBoolean)
		}
	}
	p.pos--
	p.expected("literal")
	return kb.Term{}
}

// variable parses Var.
func (p *parser) variable() algebra.Var {
	t := p.peek()
	if t.kind != tokVar {
		p.expected("variable")
	}
	p.nextTok()
	return algebra.Var(t.text)
}

// varOrIri parses VarOrIri.
func (p *parser) varOrIri() algebra.Node {
	if p.peek().kind == tokVar {
		return algebra.VarNode(p.variable())
	}
	if !isIRIStart(p.peek()) {
		p.expected("variable or IRI")
	}
	return algebra.TermNode(kb.IRI(p.iri()))
}

// ParseQuery parses a SPARQL 1.1 query and translates it to the algebra,
// running the static checks of SPARQL 1.1 section 18 and the grammar notes.
// Errors are *textpos.Error values carrying source, line and column.
func ParseQuery(src string, opts Options) (*algebra.Query, error) {
	toks, err := tokenizeContext(opts.Context, src, false)
	if err != nil {
		return nil, located(err, opts)
	}
	p := newParser(toks, src, opts)
	var q *algebra.Query
	if err := run(func() { q = p.queryUnit() }); err != nil {
		return nil, located(err, opts)
	}
	return q, nil
}

// ParseUpdate parses a SPARQL 1.1 Update request and translates its WHERE
// patterns to the algebra, running the static checks of SPARQL 1.1 Update.
// Errors are *textpos.Error values carrying source, line and column.
func ParseUpdate(src string, opts Options) (*algebra.Update, error) {
	toks, err := tokenizeContext(opts.Context, src, false)
	if err != nil {
		return nil, located(err, opts)
	}
	p := newParser(toks, src, opts)
	var u *algebra.Update
	if err := run(func() { u = p.updateUnit() }); err != nil {
		return nil, located(err, opts)
	}
	return u, nil
}

// keywordText returns the upper-case keyword if t is a word.
func keywordText(t token) string {
	if t.kind != tokWord {
		return ""
	}
	return strings.ToUpper(t.text)
}
