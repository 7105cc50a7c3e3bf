package algebra

import (
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// Var is a SPARQL query variable, named without its leading '?' or '$'.
//
// Two families of names are reserved for variables the parser invents; both
// are excluded from SELECT * and never appear in results:
//   - names starting with '?' stand for blank nodes and anonymous nodes ([],
//     collections, path sequences) in query patterns, which SPARQL evaluates
//     like variables (§18.2.1; Jena prints them ??name);
//   - names starting with '.' hold aggregate values (§18.2.4.1) and unnamed
//     GROUP BY keys (Jena prints them ?.0).
type Var string

// String returns the variable in SPARQL syntax, "?name".
func (v Var) String() string { return "?" + string(v) }

// IsDistinguished reports whether v is an ordinary, user-visible variable
// (not a blank-node or aggregate variable invented by the parser).
func (v Var) IsDistinguished() bool {
	return v != "" && v[0] != '?' && v[0] != '.'
}

// Node is a position in a triple or quad pattern: either a constant RDF term
// or a variable. Exactly one of Term and Var is set; the zero Node is "no
// node" (used, for instance, for the default graph in a QuadPattern).
// Node is comparable.
type Node struct {
	Term kb.Term // constant; zero when the node is a variable
	Var  Var     // variable; "" when the node is a constant
}

// TermNode returns a constant node.
func TermNode(t kb.Term) Node { return Node{Term: t} }

// VarNode returns a variable node.
func VarNode(v Var) Node { return Node{Var: v} }

// IsVar reports whether n is a variable.
func (n Node) IsVar() bool { return n.Var != "" }

// IsZero reports whether n is the zero Node (neither term nor variable).
func (n Node) IsZero() bool { return n.Var == "" && n.Term.IsZero() }

// String prints the node as in SSE: ?x, <iri>, "lit"^^<dt>, _:b.
func (n Node) String() string {
	var b strings.Builder
	writeNode(&b, n)
	return b.String()
}

// TriplePattern is a triple whose positions may be variables (§18.1.3). In
// CONSTRUCT and update templates, blank node terms stand for fresh blank nodes
// minted per solution; in WHERE patterns the parser has already turned blank
// nodes into non-distinguished variables.
type TriplePattern struct {
	S, P, O Node
}

// String prints the pattern as SSE: (triple S P O).
func (t TriplePattern) String() string {
	var b strings.Builder
	writeTriple(&b, t)
	return b.String()
}

// QuadPattern is a triple pattern in a graph. G is the zero Node for the
// default graph, otherwise an IRI term or a variable (GRAPH ?g { … } in
// update templates).
type QuadPattern struct {
	G       Node
	S, P, O Node
}

// Triple returns the triple part of the quad pattern.
func (q QuadPattern) Triple() TriplePattern { return TriplePattern{S: q.S, P: q.P, O: q.O} }

// String prints the quad as SSE: (quad G S P O), with _ for the default graph.
func (q QuadPattern) String() string {
	var b strings.Builder
	writeQuad(&b, q)
	return b.String()
}
