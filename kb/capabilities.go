package kb

import "context"

// Optional capabilities of a Dataset (or, for CommitReporter, of a
// BulkWriter). Each is declared here, once, beside Dataset: the query
// engine and the loaders type-assert a store to these interfaces to take a
// fast path, and kb/kbtest checks the contract of every capability a store
// declares. A store that has none of them is still a complete Dataset; the
// callers fall back to the Dataset methods.

// TermTable is implemented by stores that decode an ID from memory without
// a context or an error path (an array or arena lookup). The query
// evaluator decodes result IDs through it instead of caching decoded terms
// per query.
//
// Contract: when TermOf(id) reports true, the term is the one Resolve(id)
// returns. It reports false for the zero ID and for an ID the store never
// issued; it may also report false for an issued ID it does not hold in
// memory, and the caller then calls Resolve. The returned strings may share
// the store's memory and must not be modified.
type TermTable interface {
	TermOf(id ID) (Term, bool)
}

// QuadScanner is implemented by stores that can walk matches without
// allocating an iterator. The query evaluator prefers QuadSource, then
// QuadScanner, then Match.
//
// Contract: ScanQuads calls fn with each quad matching p — the same quads,
// each once, as Match(ctx, p) yields — until fn returns false, after which
// it calls fn no more and returns nil. fn may call back into the store
// (nested-loop joins do), so an implementation must not hold a lock that a
// nested call or a waiting writer could deadlock on. Like Match, the scan
// sees a snapshot as of the call.
type QuadScanner interface {
	ScanQuads(ctx context.Context, p Pattern, fn func(Quad) bool) error
}

// QuadSource is implemented by in-memory stores that keep their quads in
// per-position buckets (kbtest's reference store).
//
// Contract: MatchQuads returns a read-only slice that holds every quad
// matching p and perhaps others (the caller keeps those p.Matches), or
// ok=false to have the caller use Match for this pattern. The slice stays
// valid and unchanged while the caller iterates, even if the store is
// written meanwhile, and the caller may call the store while iterating. A
// QuadSource also promises that a pattern with a bound position costs about
// one array or hash lookup, so the evaluator builds no probe indexes of its
// own over it.
type QuadSource interface {
	MatchQuads(p Pattern) (quads []Quad, ok bool)
}

// MemoryLookups is implemented by stores whose lookups with a bound
// position may cost about a binary search in memory (the native stores with
// their in-memory read side). When MemoryLookups reports true, the query
// evaluator asks the store for every probe instead of building probe
// indexes and star-join caches of its own, which would cost more than they
// save. It is a cost hint only: the answers of the store are the same
// either way, so kbtest has nothing to check beyond the Dataset suite.
type MemoryLookups interface {
	MemoryLookups() bool
}

// GraphLast is implemented by stores whose matches with the graph unbound
// come grouped by triple, as from an index that keys the graph last (the
// native stores' SPOG, POSG and OSPG). The query evaluator then drops a
// triple repeated in another graph of the union default graph by comparing
// it with the match before, instead of keeping a set of every triple the
// scan has seen, which for a scan of the whole store was a third of what a
// busy server allocated.
//
// Contract: when GraphLast reports true, Match (and ScanQuads, for a
// QuadScanner) with p.G == Any yields the quads that share a subject,
// predicate and object one after another, also after writes.
type GraphLast interface {
	GraphLast() bool
}

// PredicateStats is implemented by stores that know, per predicate, how
// many distinct subjects and objects its quads have; the query planner
// orders joins by the fan-out they imply.
//
// Contract: PredicateDistinct(p) returns those counts over all graphs,
// possibly approximate, or ok=false when the store does not know. When ok
// is true both counts are at least 1 and at most the number of quads with
// predicate p; for a predicate with no quads ok is false.
type PredicateStats interface {
	PredicateDistinct(p ID) (subjects, objects int64, ok bool)
}

// ConcurrentInterner is implemented by stores whose Intern may run on many
// goroutines at once. Load then parses N-Triples and N-Quads and interns
// their terms on every core, straight from its read buffers, without
// copying each term first.
//
// Contract: when InternsConcurrently reports true, concurrent Intern calls
// are safe and consistent (the same term gets the same ID on every
// goroutine, distinct terms distinct IDs), and the store keeps copies of
// the strings of the terms it stores, never the strings themselves: the
// caller may overwrite the bytes under a term's strings once Intern
// returns.
type ConcurrentInterner interface {
	InternsConcurrently() bool
}

// CommitReporter is implemented by a BulkWriter whose Commit takes long
// enough to report progress (stores that stage a load and write it at
// Commit).
//
// Contract: after SetCommitProgress(fn), Commit calls fn as it writes with
// done ≤ total and done never decreasing; the last call of a successful
// Commit that wrote quads has done == total.
type CommitReporter interface {
	// SetCommitProgress makes Commit call fn as it writes.
	SetCommitProgress(fn func(done, total int64))
}

// TermAdder is implemented by a BulkWriter that interns the terms of a load
// itself, in bulk, when it commits: a store whose dictionary lives in a
// database server would otherwise pay a round trip per Intern batch and a
// lookup per term. Loaders hand such a writer quads of terms instead of
// calling Intern and Add.
//
// Contract: AddTerms(ctx, quads) stages the same quads as Add(ctx,
// InternQuads(ctx, ds, quads)) would, a zero graph meaning DefaultGraph;
// the slice and the terms' strings may be reused by the caller after it
// returns. Commit makes the quads and their terms visible together; Abort
// (or a failed Commit) leaves the dictionary's visible data and the quads
// as they were. AddTerms and Add may be mixed in one load.
type TermAdder interface {
	AddTerms(ctx context.Context, quads []TermQuad) error
}

// BGPMatcher is implemented by stores that answer a whole basic graph
// pattern with one request (kb/pg: one SQL join over its quads table)
// instead of one Match per pattern and partial solution. The query
// evaluator hands it the BGPs of two or more patterns.
//
// Contract: MatchBGP calls fn once per solution of q — the same solutions,
// with the same multiplicity, as matching the patterns one after another
// with Match and joining on the variables — with vals[v] the ID bound to
// variable v, until fn returns false; it returns nil then. vals is reused
// between calls. Solutions come in no particular order. A store may leave
// out the solutions that fail one of q.Numeric; it must keep every other.
type BGPMatcher interface {
	MatchBGP(ctx context.Context, q BGP, fn func(vals []ID) bool) error
}

// BGP is a basic graph pattern of IDs for BGPMatcher.
type BGP struct {
	// Patterns are the triple patterns; each position is a constant or a
	// variable numbered from 0 to Vars-1. Every variable occurs in some
	// pattern.
	Patterns [][3]BGPTerm
	Vars     int
	// Graphs are the graphs a pattern matches in: one of them, or any
	// graph when Graphs is {Any}. Exclude lists graphs never matched.
	Graphs  []ID
	Exclude []ID
	// Distinct makes a triple that is in several of the graphs match a
	// pattern once (the union default graph), not once per graph.
	Distinct bool
	// Numeric are comparisons of variables with numbers that the caller
	// applies to every solution afterwards (a FILTER such as ?v >= 3E8).
	// A store may use them to leave out solutions early, but only those
	// the comparison rejects under SPARQL's rules (§17.3): a variable bound
	// to a non-numeric term fails every comparison; one bound to a numeric
	// literal passes or fails by its value. A store that cannot tell keeps
	// the solution.
	Numeric []BGPNumeric
}

// BGPNumeric is the comparison Var Op Value of a BGP's Numeric hints; Op is
// one of "<", "<=", ">", ">=", "=".
type BGPNumeric struct {
	Var   int
	Op    string
	Value float64
}

// BGPExplainer is implemented by a BGPMatcher that can say how it answers
// a BGP (kb/pg: the SQL statement), for query plans (--explain).
type BGPExplainer interface {
	ExplainBGP(q BGP) string
}

// BGPTerm is a position of a BGP pattern: the constant ID, or, when ID is
// Any, the variable Var.
type BGPTerm struct {
	ID  ID
	Var int
}

// ChangeReporter is implemented by stores that know, as they apply a
// delta, which of its quads change the store. A caller that must be able
// to take a write back (the rule service's undo log) then records only
// those, without asking the store about each quad first.
//
// Contract: ApplyChanges(ctx, d) applies d as Apply(ctx, d) does, and on
// success returns the quads whose presence it changed, each once: in Add
// the quads of d.Add that were not stored before, in Remove the quads of
// d.Remove that were stored before and are not in d.Add. On error it
// changes nothing and returns an empty Delta.
type ChangeReporter interface {
	ApplyChanges(ctx context.Context, d Delta) (Delta, error)
}
