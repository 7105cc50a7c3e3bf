// Package eval evaluates SPARQL algebra (package algebra) over a
// kb.Dataset: the planner, the evaluator and the function library.
//
// Plan. compile turns the algebra into physical nodes. Basic graph patterns
// are ordered greedily from the store's counts (kb.Dataset.Count) and the
// variables already bound, and matched by index nested loops; FILTERs over a
// BGP are pushed to the earliest pattern that binds their variables. A join
// feeds each left solution into its right side (sideways information
// passing) when that is equivalent to the bottom-up semantics of §18 (no
// filter, BIND or OPTIONAL on the right can observe the extra bindings);
// otherwise, and always for subqueries, GROUP, modifiers and SERVICE, the
// right side is evaluated once, materialised with a hash index and joined
// by value. Evaluation is push-based, so LIMIT and ASK stop early.
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
// Values. value.go, functions.go, cast.go and datetime.go implement XSD
// numeric promotion, effective boolean value, = and < with the SPARQL
// error semantics (ErrType), ORDER BY ordering, every SPARQL 1.1 builtin
// and the XSD casts with canonical lexical forms.
//
// Update evaluates the operations of a request over an overlay of the
// store and applies the net change with one atomic kb.Dataset.Apply.
package eval
