// STATUS: stable

// Package algebra holds the SPARQL 1.1 algebra: the contract between the
// parser (package query/syntax) and the evaluator (package query/eval).
//
//	query text ──syntax.ParseQuery──▶ *Query{Pattern Op, …} ──eval──▶ solutions
//	update text ─syntax.ParseUpdate─▶ *Update{[]UpdateOp}    ──eval──▶ store delta
//
// The types follow the W3C SPARQL 1.1 Query Language, section 18 (the
// "Definition" numbers in the comments refer to it), and SPARQL 1.1 Update
// section 3. Three sealed interfaces make the tree:
//
//   - Op: graph patterns and solution modifiers (BGP, Path, Join, LeftJoin,
//     Filter, Union, Minus, Graph, Extend, Table, Group, Project, Distinct,
//     Reduced, OrderBy, Slice, Service);
//   - Expr: expressions (constants, variables, function and built-in calls,
//     operators, IN, EXISTS);
//   - PathExpr: property paths.
//
// Constants are kb.Term values; variables are Var; a pattern position is a
// Node holding either. Every node prints itself in SSE (the S-expression
// syntax of Jena's ARQ) through String, which is the golden format of the
// parser tests:
//
//	(project (?x)
//	  (filter (> ?v 10)
//	    (bgp (triple ?x <http://ex/p> ?v))))
//
// The parser delivers the algebra already translated (§18.2): group graph
// patterns simplified (a Join with the empty BGP removed), blank nodes of
// WHERE clauses turned into non-distinguished variables, aggregates moved into
// Group, and solution modifiers applied in the order of §18.2.4–18.2.5.
// The types hold no evaluation state; optimisers and evaluators build their
// own structures from them.
package algebra
