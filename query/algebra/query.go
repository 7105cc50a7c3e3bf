package algebra

// QueryForm is the kind of a query (§16).
type QueryForm uint8

// The query forms.
const (
	FormSelect QueryForm = iota + 1
	FormConstruct
	FormAsk
	FormDescribe
)

// String returns the form's keyword.
func (f QueryForm) String() string {
	switch f {
	case FormSelect:
		return "SELECT"
	case FormConstruct:
		return "CONSTRUCT"
	case FormAsk:
		return "ASK"
	case FormDescribe:
		return "DESCRIBE"
	}
	return "invalid query form"
}

// Prefix is one PREFIX declaration of the prologue.
type Prefix struct {
	Prefix string // without the colon; "" for the default prefix
	IRI    string
}

// Dataset is the RDF dataset named by FROM and FROM NAMED (§13.2). Default
// holds the IRIs merged into the default graph, Named the named graphs.
type Dataset struct {
	Default []string
	Named   []string
}

// Query is a parsed and translated SPARQL query.
//
// Pattern is the complete algebra expression, with the solution modifiers
// already applied per §18.2.4 and §18.2.5, from the inside out: Group (and
// aggregates), HAVING (Filter), SELECT expressions (Extend), trailing VALUES
// (Join), OrderBy, Project, Distinct or Reduced, Slice. For SELECT the top
// Project keeps exactly Vars; for CONSTRUCT, ASK and DESCRIBE there is no
// Project.
type Query struct {
	Form QueryForm
	// Pattern is the algebra to evaluate.
	Pattern Op
	// Vars are the result variables of SELECT, in order (for SELECT * the
	// distinguished in-scope variables, in order of first appearance). For
	// DESCRIBE, the variables to describe.
	Vars []Var
	// Star is set for SELECT * and DESCRIBE *.
	Star bool
	// Distinct and Reduced repeat the SELECT modifiers (already in Pattern).
	Distinct, Reduced bool
	// Template is the CONSTRUCT template (§16.2). Blank node terms in it are
	// labels local to the template: evaluation mints fresh blank nodes for
	// each solution. Triples with an unbound variable or an invalid term
	// (literal subject, …) are skipped.
	Template []TriplePattern
	// Describe lists the resources of DESCRIBE (IRIs and variables); with
	// Star every distinguished variable is described.
	Describe []Node
	// Dataset is nil when the query has no FROM or FROM NAMED.
	Dataset *Dataset
	// BaseIRI is the base in effect at the end of the prologue (used by the
	// IRI() function); "" if none.
	BaseIRI string
	// Prefixes are the prologue's PREFIX declarations, in order.
	Prefixes []Prefix
	// Where is the translated WHERE pattern as it occurs inside Pattern
	// (the same Op value), and WhereText its source text with braces;
	// federation replaces the one and forwards the other. Both are unset
	// for queries not parsed from SPARQL text (RDQL).
	Where     Op
	WhereText string
	// OrderText is the SELECT's ORDER BY clause as written ("" without
	// one), for pushing top-k queries down to sites.
	OrderText string
	// DescribeAt, when not empty, makes DESCRIBE fetch the descriptions of
	// its resources from these SERVICE endpoints (a fan-out: see
	// federation.FanOut) and merge them, instead of reading them from the
	// dataset; DescribeLocal adds the dataset's own descriptions.
	DescribeAt    []*Service
	DescribeLocal bool
}

// String prints the query's algebra in SSE, preceded for CONSTRUCT and
// DESCRIBE by their template or resources.
func (q *Query) String() string { return sseQuery(q) }
