package kb

import "context"

// Capabilities of stores whose lookups cross a network (kb/pg): each
// lookup the query evaluator sends costs a round trip, so the evaluator
// sends fewer, larger requests to them.

// RoundTripLookups is implemented by stores whose every lookup is a
// request to a server, costing about what scanning a thousand matches
// does. When RoundTripLookups reports true, the query evaluator stops
// feeding an OPTIONAL, EXISTS, MINUS or join pattern one row at a time
// after a few rows and evaluates it once, alone, hashing its solutions
// instead. It is a cost hint only: the answers are the same either way.
type RoundTripLookups interface {
	RoundTripLookups() bool
}

// ClosureMatcher is implemented by stores that follow a predicate's edges
// to a fixed point in one request (kb/pg: a recursive SQL query), which a
// property path p+ or p* otherwise walks with one lookup per node.
//
// Contract: MatchClosure calls visit once for each distinct node reachable
// from q.Start by one or more edges of q.Pred — from subject to object, or
// from object to subject when q.Inverse — among the quads in q.Graphs (in
// any graph but those in q.Except when q.Graphs is {Any}), in no
// particular order, until visit
// returns false; it returns nil then. q.Start is visited only when a
// cycle leads back to it.
type ClosureMatcher interface {
	MatchClosure(ctx context.Context, q Closure, visit func(ID) bool) error
}

// Closure is a request to a ClosureMatcher.
type Closure struct {
	Start, Pred ID
	Inverse     bool
	Graphs      []ID
	// Except are graphs whose quads a walk over {Any} leaves out: the
	// union default graph does not hold perfkb's bookkeeping graphs.
	Except []ID
}

// ClosureCounter is implemented by stores that count, in one request, the
// pairs a join of a BGP with a property path p+ or p* yields (kb/pg: one
// recursive SQL statement), which the query evaluator otherwise builds
// with one closure request per solution of the BGP.
//
// Contract: CountClosure returns the sum, over the solutions of q.Left
// (as BGPMatcher.MatchBGP gives them, with their multiplicity and
// q.NotExists applied), of the number of distinct nodes reachable
// from the solution's q.StartVar by one or more edges of q.Pred — from
// subject to object, or object to subject when q.Inverse — among the
// quads of q.Graphs (any graph but q.Except when q.Graphs is {Any}); with
// q.WithZero the start node itself counts too, once. q.Start is unused.
type ClosureCounter interface {
	CountClosure(ctx context.Context, q ClosureCount) (int64, error)
}

// ClosureCount is a request to a ClosureCounter.
type ClosureCount struct {
	Closure
	Left      BGP
	NotExists []BGPNotExists
	StartVar  int
	WithZero  bool
}

// BGPNotExists is a FILTER NOT EXISTS over triple patterns that a
// ClosureCounter or BGPAggregator applies to each solution of a BGP: the
// solution is kept only when Patterns, with the solution's variables
// substituted, match nothing in the BGP's graphs. Variables numbered
// below the BGP's Vars are the BGP's; those from Vars on are the
// pattern's own (existential). MatchBGP never receives them.
type BGPNotExists struct {
	Patterns [][3]BGPTerm
}

// BGPAggregator is implemented by stores that group a BGP's solutions and
// compute aggregates over them in one request (kb/pg: GROUP BY on term
// IDs in SQL), so that only the groups, not every solution, reach the
// query evaluator.
//
// Contract: AggregateBGP partitions the solutions of q.BGP (as MatchBGP
// gives them, with q.NotExists applied) by the IDs of the variables
// q.Keys and calls fn once per non-empty group, in no particular order,
// with the key IDs and one BGPAggValue per q.Aggs, until fn returns false.
// Every value it reports is exact: where it cannot give a value exactly
// (a SUM, AVG, MIN or MAX over a group holding a value that is not a
// finite xsd:double literal, a MIN or MAX whose extreme value several
// distinct terms share) it sets Exact false for that value, and the
// caller computes the query its own way.
type BGPAggregator interface {
	AggregateBGP(ctx context.Context, q BGPAggregate, fn func(keys []ID, vals []BGPAggValue) bool) error
}

// BGPAggregate is a request to a BGPAggregator.
type BGPAggregate struct {
	BGP
	NotExists []BGPNotExists
	Keys      []int
	Aggs      []BGPAgg
}

// BGPAgg is one aggregate of a BGPAggregate: Func is COUNT (of the
// solutions: every variable of a BGP is bound), SUM, AVG, MIN or MAX of
// the variable Var.
type BGPAgg struct {
	Func string
	Var  int
}

// BGPAggValue is a group's value of a BGPAgg: Count, the group's
// solutions, for every aggregate; Sum, the sum of the values for SUM and
// AVG; Term, the ID of the least or greatest value for MIN and MAX.
type BGPAggValue struct {
	Exact bool
	Count int64
	Sum   float64
	Term  ID
}

// PushdownExplainer is implemented by a ClosureCounter and BGPAggregator
// that can say how it answers a request (kb/pg: the SQL statement), for
// query plans (--explain).
type PushdownExplainer interface {
	ExplainClosureCount(q ClosureCount) string
	ExplainAggregate(q BGPAggregate) string
}
