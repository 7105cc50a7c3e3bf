package algebra

import "github.com/perfkb/perfkb/kb"

// Op is a SPARQL algebra operator (a graph pattern or solution modifier,
// SPARQL 1.1 §18.2 and §18.5). It is sealed: the implementations are the
// pointer types of this package (*BGP, *Path, *Join, *LeftJoin, *Filter,
// *Union, *Minus, *Graph, *Extend, *Table, *Group, *Project, *Distinct,
// *Reduced, *OrderBy, *Slice, *Service). A subquery is simply a nested
// *Project (possibly under modifiers).
//
// String prints the operator in SSE, the format of Jena's qparse --print=op,
// which is the golden format of the parser tests.
type Op interface {
	op()
	String() string
}

// BGP is a basic graph pattern: a set of triple patterns matched together
// (§18.2.2.1). Blank nodes have already been replaced by non-distinguished
// variables. An empty BGP matches once with the empty solution.
type BGP struct {
	Triples []TriplePattern
}

// Path matches a property path between Subject and Object (§18.2.2.4,
// evaluated per §18.5 ArbitraryLengthPath / ZeroLengthPath / NPS).
type Path struct {
	Subject Node
	Path    PathExpr
	Object  Node
}

// Join is Join(Left, Right) (§18.5).
type Join struct {
	Left, Right Op
}

// LeftJoin is LeftJoin(Left, Right, expr) from OPTIONAL (§18.2.2.6, §18.5).
// Exprs is the conjunction of the FILTERs found at the top level of the
// OPTIONAL group, evaluated over the merged solution; empty means true.
type LeftJoin struct {
	Left, Right Op
	Exprs       []Expr
}

// Filter is Filter(expr, Input) (§18.2.2.7): a solution passes if the
// effective boolean value of every expression in Exprs is true (the
// expressions are a conjunction; errors count as false).
type Filter struct {
	Exprs []Expr
	Input Op
}

// Union is Union(Left, Right) (§18.5).
type Union struct {
	Left, Right Op
}

// Minus is Minus(Left, Right) (§18.5): solutions of Left not compatible with
// any solution of Right sharing at least one variable.
type Minus struct {
	Left, Right Op
}

// Graph is Graph(Name, Input) from GRAPH (§18.5): Name is an IRI term or a
// variable ranging over the named graphs.
type Graph struct {
	Name  Node
	Input Op
}

// Extend is Extend(Input, Var, Expr) from BIND and SELECT expressions
// (§18.2.2.5, §18.2.4.4): Var is bound to Expr's value, or left unbound when
// Expr raises an error.
type Extend struct {
	Input Op
	Var   Var
	Expr  Expr
}

// Table is an inline solution sequence (VALUES, §18.2.4.3, §10.2). Each row
// has one term per variable of Vars; the zero kb.Term means UNDEF. The table
// with no variables and one empty row is the join identity ("unit", Z in the
// spec); the table with no rows matches nothing.
type Table struct {
	Vars []Var
	Rows [][]kb.Term
}

// Unit returns the join identity: one solution binding nothing.
func Unit() *Table { return &Table{Rows: [][]kb.Term{{}}} }

// IsUnit reports whether t is the join identity.
func (t *Table) IsUnit() bool { return len(t.Vars) == 0 && len(t.Rows) == 1 }

// Group is Group(exprlist, Input) together with the aggregations computed over
// each group (§18.2.4.1, §18.5 Group/Aggregation/AggregateJoin).
//
// Each output solution binds the key variables (Keys[i].Var, bound to the
// key value, left unbound if it was an error) and the aggregate variables
// (Aggregates[i].Var). Without keys, the whole input is one group (which
// exists even when the input is empty: COUNT(*) gives 0).
type Group struct {
	Keys       []GroupKey
	Aggregates []AggregateBinding
	Input      Op
}

// GroupKey is one GROUP BY condition. For GROUP BY ?x, Var is "x" and Expr is
// the VarExpr ?x; for GROUP BY (expr AS ?v), Var is "v"; for a bare
// expression GROUP BY (str(?x)), Var is a fresh '.'-variable the rest of the
// query cannot name.
type GroupKey struct {
	Var  Var
	Expr Expr
}

// AggregateBinding binds Var (a '.'-variable such as ".0") to the value of the
// aggregate over each group. Expressions above the Group (SELECT
// expressions, HAVING, ORDER BY) refer to the aggregate through Var.
type AggregateBinding struct {
	Var       Var
	Aggregate *Aggregate
}

// AggregateFunc names a set function (§18.5 Aggregates).
type AggregateFunc string

// The SPARQL 1.1 aggregates.
const (
	AggCount       AggregateFunc = "COUNT"
	AggSum         AggregateFunc = "SUM"
	AggMin         AggregateFunc = "MIN"
	AggMax         AggregateFunc = "MAX"
	AggAvg         AggregateFunc = "AVG"
	AggSample      AggregateFunc = "SAMPLE"
	AggGroupConcat AggregateFunc = "GROUP_CONCAT"
)

// Aggregate is one aggregate call, e.g. COUNT(DISTINCT ?x) or
// GROUP_CONCAT(?n; SEPARATOR=", ").
type Aggregate struct {
	Func     AggregateFunc
	Distinct bool
	// Star is set for COUNT(*) (Expr is then nil).
	Star bool
	Expr Expr
	// Separator is GROUP_CONCAT's separator; the parser sets the default " "
	// when none is given.
	Separator string
}

// Project is Project(Input, Vars) (§18.2.5.2): keeps only Vars. A subquery is
// a Project in the middle of a pattern.
type Project struct {
	Vars  []Var
	Input Op
}

// Distinct is Distinct(Input) (§18.2.5.3).
type Distinct struct {
	Input Op
}

// Reduced is Reduced(Input) (§18.2.5.4): duplicates may be removed.
type Reduced struct {
	Input Op
}

// OrderBy is OrderBy(Input, conditions) (§18.2.5.1): solutions sorted by the
// conditions in order (§15.1 ordering of terms, unbound first).
type OrderBy struct {
	Conditions []OrderCondition
	Input      Op
}

// OrderCondition is one ORDER BY key.
type OrderCondition struct {
	Expr Expr
	Desc bool
}

// Slice is Slice(Input, Offset, Limit) (§18.2.5.5). Offset 0 means none;
// Limit -1 means no limit (LIMIT 0 is a real limit of zero).
type Slice struct {
	Offset int64
	Limit  int64
	Input  Op
}

// Service is SERVICE [SILENT] endpoint { pattern } (SPARQL 1.1 Federated
// Query). Endpoint is an IRI term or a variable. Input is the translated
// inner pattern; Text is the source text of the group graph pattern
// including its braces, as written in the query (prefixed names not
// expanded), for forwarding to the remote endpoint when easier; Prefixes and
// base are those of the enclosing Query.
type Service struct {
	Silent   bool
	Endpoint Node
	Input    Op
	Text     string
	// Partial marks a fan-out branch (perfkb query --sites): when the call
	// fails the branch contributes no solutions and the failure is only
	// reported, so the answer is that of the other sites.
	Partial bool
	// Suffix is appended to the query forwarded to the endpoint: solution
	// modifiers that a fan-out pushes down (ORDER BY … LIMIT n), only
	// when they give the same answer.
	Suffix string
}

func (*BGP) op()      {}
func (*Path) op()     {}
func (*Join) op()     {}
func (*LeftJoin) op() {}
func (*Filter) op()   {}
func (*Union) op()    {}
func (*Minus) op()    {}
func (*Graph) op()    {}
func (*Extend) op()   {}
func (*Table) op()    {}
func (*Group) op()    {}
func (*Project) op()  {}
func (*Distinct) op() {}
func (*Reduced) op()  {}
func (*OrderBy) op()  {}
func (*Slice) op()    {}
func (*Service) op()  {}
