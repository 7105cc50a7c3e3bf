// Package eval evaluates SPARQL algebra (package algebra) over a
// kb.Dataset: the planner, the evaluator and the function library.
//
// Plan. Package opt decides the plan: it orders each basic graph pattern
// from the store's counts (kb.Dataset.Count, PredicateStats) and the
// variables already bound, places FILTER conjuncts, and marks the
// operators that must be evaluated on their own (scope analysis); its
// statistics come from planStats. compile then turns opt's annotated
// algebra into physical nodes and follows its decisions: BGPs are matched
// by index nested loops in opt's order with each filter after its
// pattern; a join feeds each left solution into its right side (sideways
// information passing) unless opt marked the right side isolated, which
// is then evaluated once, materialised with a hash index and joined by
// value. A right side (join, OPTIONAL) or EXISTS pattern that is a BGP is
// fed rows at first and, past a threshold set from its estimated size,
// evaluated once alone (opt.Plan.Alone) and hashed on the shared
// variables' IDs: a hash join, hash left join or hash semi/anti-join
// (hashjoin.go; over a store with in-memory lookups only small patterns
// are hashed). ORDER BY sorts runs in parallel and merges them, checking
// for cancellation as it goes (sort.go). Options.NoOptimize runs the
// algebra as written. Evaluation is push-based, so LIMIT and ASK stop
// early.
//
// Data. Solutions are slices of kb.ID indexed by variable slot; terms are
// resolved (and cached) only where a function needs a value. Computed terms
// the store does not hold get temporary IDs from a per-query dictionary;
// reads never intern into the store.
//
// Memory. Options.QueryMemory bounds what one query's buffering operators
// hold at once (budget.go): GROUP BY state, ORDER BY rows (top-k with a
// LIMIT), DISTINCT seen sets, hash-join, MINUS and sub-select tables,
// VALUES, property-path visited sets, CONSTRUCT/DESCRIBE graphs and
// computed terms each charge an estimate of what they keep and release it
// when their run ends; past the bound the query fails with a *LimitError.
// Options.MemoryPool bounds the queries sharing it (a server's) together.
// Operators that stream (joins, filters, COUNT) charge nothing, so only
// the deadline ends them.
//
// Values. Numbers are query/function's Numeric (decoding, kinds,
// canonical lexical forms), shared with extension functions; value.go,
// functions.go, cast.go and datetime.go implement XSD numeric promotion
// and arithmetic, effective boolean value, = and < with the SPARQL
// error semantics (ErrType), ORDER BY ordering, every SPARQL 1.1 builtin
// and the XSD casts with canonical lexical forms. Which functions exist
// and their arities is declared once in query/function (Options.Functions,
// function.Builtin by default); a call is resolved to its implementation
// when the query is compiled, never looked up per row.
//
// Update evaluates the operations of a request over an overlay of the
// store and applies the net change with one atomic kb.Dataset.Apply.
package eval
