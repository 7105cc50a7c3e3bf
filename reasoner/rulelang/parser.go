package rulelang

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// Well-known namespaces, predefined as prefixes (as Jena does for rdf,
// rdfs, owl and xsd).
const (
	RDF      = ontology.RDFNamespace
	RDFS     = ontology.RDFSNamespace
	OWL      = ontology.OWLNamespace
	XSD      = ontology.XSDNamespace
	PERFONTO = ontology.Namespace
)

// DefaultPrefixes are the prefixes every file starts with.
var DefaultPrefixes = ontology.CommonPrefixMap()

// Resolver returns the text of an included file. name is what the @include
// directive names inside <...> (a path, or a shipped set such as RDFS);
// from is the including file. It returns the file name to report positions
// against.
type Resolver func(name, from string) (file string, src []byte, err error)

// Options configure Parse.
type Options struct {
	// Resolve reads included files; nil makes every @include an error.
	Resolve Resolver
	// Defines sets named constants (NAME -> node text such as "65536" or
	// "perfonto:BigMessage"); they override the files' @define.
	Defines map[string]string
	// Prefixes adds predefined prefixes.
	Prefixes map[string]string
	// Included, when not nil, holds the files already parsed by earlier
	// Parse calls of the same load (see reasoner.LoadSources); they are
	// skipped like a repeated include, and the files this call reads are
	// added to it.
	Included map[string]bool
}

// maxIncludeDepth bounds nested @include chains.
const maxIncludeDepth = 32

// Parse parses a rule file and the files it includes. It returns every rule
// it could parse and, when there were errors, an textpos.ErrorList sorted by
// position.
func Parse(file string, src []byte, opts Options) (*RuleSet, error) {
	rs := &RuleSet{}
	var errs textpos.ErrorList
	overrides := map[string]Node{}
	for name, text := range opts.Defines {
		n, err := ParseNode("--define "+name, text, opts.Prefixes)
		if err != nil {
			errs = append(errs, err.(textpos.ErrorList)...)
			continue
		}
		overrides[name] = n
	}
	p := &parser{opts: opts, set: rs, errs: &errs, overrides: overrides}
	p.parseFile(file, string(src), nil)
	errs.Sort()
	return rs, errs.Err()
}

// ParseNode parses a single node (for example a --define value).
func ParseNode(file, text string, prefixes map[string]string) (Node, error) {
	var errs textpos.ErrorList
	p := &parser{errs: &errs, opts: Options{Prefixes: prefixes}}
	fp := p.newFileParser(file, text)
	n, ok := fp.node()
	if ok && fp.tok.kind != tEOF {
		fp.errorf(fp.tok.pos, "unexpected %s after the value", fp.tok.describe())
		ok = false
	}
	if !ok || len(errs) > 0 {
		if len(errs) == 0 {
			errs.Add(textpos.Position{Source: file, Line: 1, Column: 1}, "invalid value")
		}
		return Node{}, errs
	}
	return n, nil
}

type parser struct {
	opts      Options
	set       *RuleSet
	errs      *textpos.ErrorList
	overrides map[string]Node
	// included holds every file already parsed: each is read once however
	// often it is included, so repeated or diamond-shaped includes cost
	// one copy of each file, not one per path to it (without this, 18
	// levels of diamonds expand to 2^18 copies).
	included map[string]bool
}

// fileParser parses one file; prefixes and @define are file-scoped.
type fileParser struct {
	*parser
	lex      *lexer
	tok      token
	file     string
	prefixes map[string]string
	defines  map[string]Node
	stack    []string // include chain, for cycle detection
}

func (p *parser) newFileParser(file, src string) *fileParser {
	fp := &fileParser{parser: p, file: file, prefixes: map[string]string{}, defines: map[string]Node{}}
	for k, v := range DefaultPrefixes {
		fp.prefixes[k] = v
	}
	for k, v := range p.opts.Prefixes {
		fp.prefixes[k] = v
	}
	fp.lex = newLexer(file, src, p.errs)
	fp.tok = fp.lex.next()
	return fp
}

func (p *parser) parseFile(file, src string, stack []string) {
	if p.included == nil {
		p.included = p.opts.Included
		if p.included == nil {
			p.included = map[string]bool{}
		}
	}
	p.included[file] = true
	fp := p.newFileParser(file, src)
	fp.stack = append(append([]string(nil), stack...), file)
	p.set.Files = append(p.set.Files, file)
	fp.parseAll()
}

// errSync aborts the current statement; the parser skips to the next one.
var errSync = errors.New("sync")

func (fp *fileParser) errorf(pos textpos.Position, format string, args ...any) {
	fp.errs.Add(pos, format, args...)
}

func (fp *fileParser) fail(pos textpos.Position, format string, args ...any) {
	fp.errorf(pos, format, args...)
	panic(errSync)
}

func (fp *fileParser) next() { fp.tok = fp.lex.next() }

func (fp *fileParser) expect(k tokenKind, context string) token {
	t := fp.tok
	if t.kind == tIllegal && k != tIllegal {
		panic(errSync) // the lexer reported it
	}
	if t.kind != k {
		fp.fail(t.pos, "expected %s %s, found %s", k, context, t.describe())
	}
	fp.next()
	return t
}

// parseAll: file = { directive | rule } .
func (fp *fileParser) parseAll() {
	for fp.tok.kind != tEOF {
		fp.statement()
	}
}

func (fp *fileParser) statement() {
	defer func() {
		if r := recover(); r != nil {
			if r != errSync {
				panic(r)
			}
			fp.sync()
		}
	}()
	switch fp.tok.kind {
	case tDirective:
		fp.directive()
	case tLBrack:
		fp.bracketRule()
	case tIllegal:
		fp.next()
	default:
		fp.bareRule()
	}
}

// sync skips to the start of the next statement: past the ']' closing the
// current rule, or to a directive or '[' at the top level.
func (fp *fileParser) sync() {
	depth := 0
	for fp.tok.kind != tEOF {
		switch fp.tok.kind {
		case tLBrack:
			if depth == 0 && fp.tok.pos.Column == 1 {
				return
			}
			depth++
		case tRBrack:
			depth--
			if depth <= 0 {
				fp.next()
				return
			}
		case tDirective:
			if depth <= 0 {
				return
			}
		case tDot:
			if depth <= 0 {
				fp.next()
				return
			}
		}
		fp.next()
	}
}

// directive = "@prefix" PNAME IRI "." | "@include" IRI "." | "@define" NAME node "." .
func (fp *fileParser) directive() {
	d := fp.tok
	fp.next()
	switch d.text {
	case "prefix":
		name := fp.expect(tName, "(a prefix such as eg:) after @prefix")
		if !strings.HasSuffix(name.text, ":") || strings.Count(name.text, ":") != 1 {
			fp.fail(name.pos, "expected a prefix name ending in ':', found %q", name.text)
		}
		iri := fp.expect(tIRI, "after the prefix name")
		fp.prefixes[strings.TrimSuffix(name.text, ":")] = iri.text
		fp.expect(tDot, "to end @prefix")
	case "include":
		target := fp.expect(tIRI, "(<file> or <RDFS>, <OWL>, <PERFONTO>) after @include")
		fp.expect(tDot, "to end @include")
		fp.include(target)
	case "define":
		name := fp.expect(tName, "(a constant name) after @define")
		if strings.Contains(name.text, ":") {
			fp.fail(name.pos, "constant name %q must not contain ':'", name.text)
		}
		value, ok := fp.node()
		if !ok {
			panic(errSync)
		}
		if value.Kind == NodeVar {
			fp.fail(value.Pos, "@define %s: the value must be a constant, not a variable", name.text)
		}
		if _, dup := fp.defines[name.text]; dup {
			fp.errorf(name.pos, "constant %s is already defined in this file", name.text)
		}
		fp.defines[name.text] = value
		fp.expect(tDot, "to end @define")
	default:
		fp.fail(d.pos, "unknown directive @%s (want @prefix, @include or @define)", d.text)
	}
}

func (fp *fileParser) include(target token) {
	if fp.opts.Resolve == nil {
		fp.errorf(target.pos, "@include <%s>: includes are not available here", target.text)
		return
	}
	if len(fp.stack) >= maxIncludeDepth {
		fp.errorf(target.pos, "@include <%s>: includes nested more than %d deep", target.text, maxIncludeDepth)
		return
	}
	file, src, err := fp.opts.Resolve(target.text, fp.file)
	if err != nil {
		fp.errorf(target.pos, "@include <%s>: %v", target.text, err)
		return
	}
	for _, f := range fp.stack {
		if f == file {
			fp.errorf(target.pos, "@include <%s>: include cycle (%s)", target.text, strings.Join(append(fp.stack, file), " -> "))
			return
		}
	}
	if fp.included[file] {
		return
	}
	fp.parser.parseFile(file, string(src), fp.stack)
}

// bracketRule = "[" [ NAME ":" ] bare "]" .
func (fp *fileParser) bracketRule() {
	open := fp.tok
	fp.next()
	r := &Rule{Pos: open.pos}
	if fp.tok.kind == tName && strings.HasSuffix(fp.tok.text, ":") && strings.Count(fp.tok.text, ":") == 1 {
		r.Name = strings.TrimSuffix(fp.tok.text, ":")
		fp.next()
	}
	if fp.tok.kind == tName && strings.EqualFold(fp.tok.text, "CONSTRUCT") {
		fp.sparqlRule(open, r.Name)
		return
	}
	fp.ruleBody(r, tRBrack)
	fp.expect(tRBrack, "to close the rule opened at "+open.pos.String())
	fp.set.Rules = append(fp.set.Rules, r)
}

// bareRule = clauses "->" clauses "." .
func (fp *fileParser) bareRule() {
	r := &Rule{Pos: fp.tok.pos}
	fp.ruleBody(r, tDot)
	fp.expect(tDot, "to end the rule")
	fp.set.Rules = append(fp.set.Rules, r)
}

func (fp *fileParser) ruleBody(r *Rule, end tokenKind) {
	r.Body = fp.clauses(false, end)
	switch fp.tok.kind {
	case tArrow:
		fp.next()
	case tBackArrow:
		fp.fail(fp.tok.pos, "backward rules (<-) are not supported: perfkb runs forward rules only; write the rule as body -> head")
	default:
		fp.fail(fp.tok.pos, "expected '->' between the rule body and head, found %s", fp.tok.describe())
	}
	r.Head = fp.clauses(true, end)
	if len(r.Head) == 0 {
		fp.errorf(fp.tok.pos, "rule %s has an empty head", r.Label())
	}
}

// clauses = clause { [","] clause } .
func (fp *fileParser) clauses(head bool, end tokenKind) []Clause {
	var out []Clause
	for {
		if fp.tok.kind == tComma {
			fp.next()
			continue
		}
		switch fp.tok.kind {
		case tLParen:
			out = append(out, fp.tripleClause())
		case tName:
			name := fp.tok
			fp.next()
			if fp.tok.kind != tLParen {
				fp.fail(name.pos, "expected '(' after builtin name %q (a clause is a triple pattern (s p o) or a call name(args))", name.text)
			}
			c := fp.call(name)
			out = append(out, Clause{Call: c, Pos: name.pos})
		case tLBrack:
			if head {
				fp.fail(fp.tok.pos, "a rule nested in a head (a backward rule) is not supported")
			}
			fp.fail(fp.tok.pos, "unexpected '[' inside a rule body (missing ']' before it?)")
		default:
			return out
		}
		if fp.tok.kind == end || fp.tok.kind == tArrow || fp.tok.kind == tBackArrow || fp.tok.kind == tEOF {
			return out
		}
	}
}

// triple = "(" node [","] node [","] node ")" .
func (fp *fileParser) tripleClause() Clause {
	open := fp.tok
	fp.next()
	var nodes [3]Node
	for i := 0; i < 3; i++ {
		if fp.tok.kind == tComma {
			fp.next()
		}
		if fp.tok.kind == tRParen {
			fp.fail(fp.tok.pos, "triple pattern has %d elements, want 3 (subject predicate object)", i)
		}
		n, ok := fp.node()
		if !ok {
			panic(errSync)
		}
		nodes[i] = n
	}
	if fp.tok.kind == tComma {
		fp.next()
	}
	if fp.tok.kind != tRParen {
		fp.fail(fp.tok.pos, "expected ')' to close the triple pattern opened at %s, found %s", open.pos, fp.tok.describe())
	}
	fp.next()
	for i, what := range [3]string{"subject", "predicate", "object"} {
		n := nodes[i]
		if n.Kind == NodeTerm && n.Term.IsLiteral() && i == 1 {
			fp.errorf(n.Pos, "a literal cannot be a %s", what)
		}
		if n.Kind == NodeFunctor && i != 2 {
			fp.errorf(n.Pos, "a functor can only be an object")
		}
	}
	return Clause{Triple: &nodes, Pos: open.pos}
}

// call = NAME "(" [ node { [","] node } ] ")" ; the name is already read.
func (fp *fileParser) call(name token) *Call {
	fp.expect(tLParen, "after "+name.text)
	c := &Call{Name: name.text, Pos: name.pos}
	for {
		if fp.tok.kind == tComma {
			fp.next()
			continue
		}
		if fp.tok.kind == tRParen {
			fp.next()
			return c
		}
		n, ok := fp.node()
		if !ok {
			panic(errSync)
		}
		c.Args = append(c.Args, n)
	}
}

// node parses one node; ok is false after an error was reported.
func (fp *fileParser) node() (Node, bool) {
	t := fp.tok
	switch t.kind {
	case tVar:
		fp.next()
		return Node{Kind: NodeVar, Var: t.text, Pos: t.pos}, true
	case tIRI:
		fp.next()
		return Node{Kind: NodeTerm, Term: kb.IRI(t.text), Pos: t.pos}, true
	case tString:
		fp.next()
		switch fp.tok.kind {
		case tDTSep:
			fp.next()
			dt := fp.tok
			var iri string
			switch dt.kind {
			case tIRI:
				iri = dt.text
			case tName:
				var ok bool
				if iri, ok = fp.expandQName(dt); !ok {
					return Node{}, false
				}
			default:
				fp.errorf(dt.pos, "expected a datatype IRI after '^^', found %s", dt.describe())
				return Node{}, false
			}
			fp.next()
			return Node{Kind: NodeTerm, Term: kb.Literal(t.text, iri), Pos: t.pos}, true
		case tLang:
			lang := fp.tok
			fp.next()
			return Node{Kind: NodeTerm, Term: kb.LangLiteral(t.text, lang.text), Pos: t.pos}, true
		}
		return Node{Kind: NodeTerm, Term: kb.String(t.text), Pos: t.pos}, true
	case tNumber:
		fp.next()
		return Node{Kind: NodeTerm, Term: NumberLiteral(t.text), Pos: t.pos}, true
	case tName:
		fp.next()
		if fp.tok.kind == tLParen && !strings.HasSuffix(t.text, ":") {
			c := fp.call(t)
			return Node{Kind: NodeFunctor, Functor: c, Pos: t.pos}, true
		}
		if strings.Contains(t.text, ":") {
			iri, ok := fp.expandQName(t)
			if !ok {
				return Node{}, false
			}
			return Node{Kind: NodeTerm, Term: kb.IRI(iri), Pos: t.pos}, true
		}
		if n, ok := fp.overrides[t.text]; ok {
			n.Pos = t.pos
			return n, true
		}
		if n, ok := fp.defines[t.text]; ok {
			n.Pos = t.pos
			return n, true
		}
		fp.errorf(t.pos, "undefined name %s (define it with \"@define %s value.\", or use a prefixed name or <IRI>)", t.text, t.text)
		return Node{}, false
	}
	if t.kind != tIllegal { // the lexer reported illegal tokens
		fp.errorf(t.pos, "expected a variable, IRI, prefixed name, literal or number, found %s", t.describe())
	}
	return Node{}, false
}

func (fp *fileParser) expandQName(t token) (string, bool) {
	prefix, local, _ := strings.Cut(t.text, ":")
	ns, ok := fp.prefixes[prefix]
	if !ok {
		fp.errorf(t.pos, "unknown prefix %q in %s (declare it with @prefix %s: <IRI>.)", prefix, t.text, prefix)
		return "", false
	}
	return ns + local, true
}

// NumberLiteral returns the literal a number token stands for, as Jena's
// rule parser does: an integer is xsd:int and a number with a fraction is
// xsd:float. Where Jena falls back to a plain string, perfkb keeps a number:
// xsd:integer for integers beyond 32 bits, xsd:double for exponents ("3E8").
func NumberLiteral(text string) kb.Term {
	text = strings.TrimPrefix(text, "+")
	if strings.ContainsAny(text, "eE") {
		return kb.Literal(text, ontology.XSDDouble)
	}
	if strings.Contains(text, ".") {
		return kb.Literal(text, ontology.XSDFloat)
	}
	if v, err := strconv.ParseInt(text, 10, 64); err == nil && v >= math.MinInt32 && v <= math.MaxInt32 {
		return kb.Literal(text, ontology.XSDInt)
	}
	return kb.Literal(text, ontology.XSDInteger)
}

// FileResolver returns a Resolver that reads @include paths relative to the
// including file, and hands names for which shipped returns true to it.
func FileResolver(readFile func(string) ([]byte, error), shipped func(name string) (string, []byte, bool)) Resolver {
	return func(name, from string) (string, []byte, error) {
		if shipped != nil {
			if file, src, ok := shipped(name); ok {
				return file, src, nil
			}
		}
		path := name
		if !filepath.IsAbs(path) && from != "" {
			path = filepath.Join(filepath.Dir(from), path)
		}
		src, err := readFile(path)
		if err != nil {
			return "", nil, fmt.Errorf("cannot read %s: %w", path, err)
		}
		return path, src, nil
	}
}
