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
