package rulelang

import (
	"sort"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/textpos"
)

// NodeKind says what a Node is.
type NodeKind uint8

// The node kinds.
const (
	// NodeVar is a variable (?name).
	NodeVar NodeKind = iota + 1
	// NodeTerm is a constant RDF term: an IRI or a literal.
	NodeTerm
	// NodeFunctor is a structured value name(args) in a triple's object.
	NodeFunctor
)

// Node is a position in a triple pattern or an argument of a call.
type Node struct {
	Kind    NodeKind
	Var     string  // NodeVar: the name without '?'
	Term    kb.Term // NodeTerm
	Functor *Call   // NodeFunctor
	Pos     textpos.Position
}

// String renders the node in rule syntax with full IRIs.
func (n Node) String() string {
	switch n.Kind {
	case NodeVar:
		return "?" + n.Var
	case NodeTerm:
		return n.Term.String()
	case NodeFunctor:
		return n.Functor.String()
	}
	return "<invalid node>"
}

// Call is a builtin call (a clause) or a functor (a node): name(args).
type Call struct {
	Name string
	Args []Node
	Pos  textpos.Position
}

// String renders name(args).
func (c *Call) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	return c.Name + "(" + strings.Join(args, " ") + ")"
}

// Clause is one element of a rule body or head: a triple pattern or a call.
type Clause struct {
	Triple *[3]Node // set for a triple pattern
	Call   *Call    // set for a builtin call
	Pos    textpos.Position
}

// String renders the clause in rule syntax.
func (c Clause) String() string {
	if c.Triple != nil {
		return "(" + c.Triple[0].String() + " " + c.Triple[1].String() + " " + c.Triple[2].String() + ")"
	}
	return c.Call.String()
}

// Rule is a forward rule: when every body clause holds, the head clauses
// are asserted (triples) or run (calls).
type Rule struct {
	Name string // empty for unnamed rules
	Body []Clause
	Head []Clause
	Pos  textpos.Position
}

// Label is the rule's name, or "rule@file:line:col" for an unnamed rule.
func (r *Rule) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return "rule@" + r.Pos.String()
}

// String renders the rule in rule syntax with full IRIs.
func (r *Rule) String() string {
	var b strings.Builder
	b.WriteByte('[')
	if r.Name != "" {
		b.WriteString(r.Name)
		b.WriteString(": ")
	}
	for i, c := range r.Body {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.String())
	}
	b.WriteString(" -> ")
	for i, c := range r.Head {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.String())
	}
	b.WriteByte(']')
	return b.String()
}

// SPARQLRule is a rule written as a SPARQL CONSTRUCT query (as
// Stardog's and SHACL-AF's SPARQL rules are), for what Jena rules cannot
// say: aggregates over groups (GROUP BY, MAX, AVG, COUNT …). The engine
// evaluates it over the store after the rules it depends on and keeps
// its output in step with its input.
type SPARQLRule struct {
	Name string // empty for unnamed rules
	// Query is the query text: PREFIX lines for the file's prefixes, then
	// the rule's CONSTRUCT with the file's constants written in.
	Query string
	Pos   textpos.Position
	// anchors map Query back to the file: each is where a stretch of
	// Query starts and where that stretch stands in the file (see FilePos).
	anchors []anchor
}

// anchor is where a stretch of a SPARQL rule's query text starts, in the
// query (line and column) and in the file. A verbatim stretch is the
// file's text as written; the other kind is a constant written in, whose
// every character maps to the constant's name.
type anchor struct {
	q        textpos.Position
	file     textpos.Position
	verbatim bool
}

// FilePos maps a line and column of r.Query (as a SPARQL error gives
// them) to the position of that character in the rule file. Positions in
// the PREFIX lines that come before the rule's own text map to the rule.
func (r *SPARQLRule) FilePos(line, col int) textpos.Position {
	i := sort.Search(len(r.anchors), func(i int) bool {
		a := r.anchors[i].q
		return a.Line > line || a.Line == line && a.Column > col
	}) - 1
	if i < 0 {
		return r.Pos
	}
	a := r.anchors[i]
	p := a.file
	switch {
	case !a.verbatim:
	case line == a.q.Line:
		p.Column += col - a.q.Column
	default:
		// A verbatim stretch keeps the file's line breaks, and a line that
		// starts inside it is the file's line from its first column.
		p.Line += line - a.q.Line
		p.Column = col
	}
	return p
}

// Label is the rule's name, or "rule@file:line:col" for an unnamed rule.
func (r *SPARQLRule) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return "rule@" + r.Pos.String()
}

// RuleSet is the result of parsing a file with its includes.
type RuleSet struct {
	Rules []*Rule
	// SPARQLRules are the rules written as SPARQL CONSTRUCT queries, in
	// file order.
	SPARQLRules []*SPARQLRule
	// Files lists the files read, the top one first, then includes in the
	// order they were read.
	Files []string
}
