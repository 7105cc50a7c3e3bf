package rulelang

import (
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
	// QueryLine is the line of Query where the rule's own text starts
	// (after the PREFIX lines), to map a query error back to the file.
	QueryLine int
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
