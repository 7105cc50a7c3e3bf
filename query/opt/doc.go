// Package opt is the query optimizer: it takes SPARQL algebra (package
// algebra) and store statistics (the Stats interface) and decides how the
// evaluator (package eval) runs it, returning the decisions as a Plan —
// annotated algebra:
//
//   - Filter placement. The conjuncts of a FILTER over a join or OPTIONAL
//     move into the side that always binds their variables (§18 semantics
//     are kept: a conjunct moves only where every one of its variables has
//     the same binding, or none, as above the join). A FILTER over a basic
//     graph pattern is fused into it and each conjunct placed after the
//     first triple pattern that binds its last variable.
//   - Join ordering. The triple patterns of a BGP (and of a join of BGPs,
//     merged into one) are ordered from the store's counts and, when the
//     store has them, per-predicate distinct subjects and objects; past
//     maxExactOrder patterns a heap-based greedy order keeps planning
//     O(n log n). Planning stops when the context ends.
//   - Scope analysis. The evaluator feeds each solution of a join's left
//     side into its right side (sideways information passing). Plan.Isolated
//     marks the operators where that could change the answer of the
//     bottom-up semantics of §18 — a FILTER, BIND or OPTIONAL inside that
//     would see a variable bound from outside — and subqueries, GROUP,
//     modifiers and SERVICE; those are evaluated on their own and joined by
//     value.
//   - Anti-joins. MINUS { BGP } becomes FILTER NOT EXISTS { BGP } over its
//     left side (guarded by BOUND when the left side may leave every
//     shared variable unbound, dropped when it shares none), so the
//     evaluator runs it as an anti-join placed with the other filters.
//   - Alone forms. The BGP right side of a join or an OPTIONAL and a BGP
//     EXISTS pattern are also planned with nothing bound on entry
//     (Plan.Alone), for the evaluator's hash joins.
//
// Options.NoOptimize runs the algebra as written: triple patterns in
// syntactic order, every FILTER at the end of its group, and every
// operator that is not a BGP, path or VALUES table evaluated on its own
// under a join (joined by value). The W3C suites run both ways.
//
// Plan.String prints the plan (perfkb query --explain shows it); the
// data-driven tests in testdata/*.test hold reviewed plans.
package opt
