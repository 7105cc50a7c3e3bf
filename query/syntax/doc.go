// Package syntax parses SPARQL 1.1 queries and updates, and legacy RDQL,
// straight into the algebra of package query/algebra.
//
//	text ──lexer──▶ tokens ──recursive descent──▶ algebra.Query / algebra.Update
//	                              │
//	                 translation (§18.2) and static checks (§18, grammar notes)
//
// ParseQuery and ParseUpdate cover the whole SPARQL 1.1 Query and Update
// grammar: prologue (BASE with RFC 3986 resolution, PREFIX), the four query
// forms, dataset clauses, every graph pattern (OPTIONAL, UNION, MINUS, GRAPH,
// SERVICE, FILTER, BIND, inline VALUES, subqueries, property paths with their
// precedence), expressions with all built-ins and XSD casts, aggregates with
// GROUP BY / HAVING / ORDER BY, LIMIT/OFFSET and trailing VALUES, and every
// update operation. SPARQL 1.2 adds triple terms <<( s p o )>>, reified
// triples << s p o ~ r >>, annotations {| … |}, VERSION and base
// directions ("…"@en--ltr); triple terms with variables are translated
// away as triple12.go explains.
//
// Translation follows §18.2: blank nodes of WHERE patterns become
// non-distinguished variables; collections expand to rdf:first/rdf:rest;
// simple paths become triples and the rest Path operators; FILTERs of a group
// wrap the group (and become the LeftJoin condition of an OPTIONAL);
// aggregates move into a Group and are referred to by '.'-variables; modifiers
// are applied in the order of §18.2.4–18.2.5.
//
// Static checks: variables assigned by SELECT … AS, BIND and GROUP BY … AS
// must not already be in scope; with GROUP BY or aggregates, SELECT may only
// use grouped variables; aggregates are not allowed in WHERE or GROUP BY and
// may not nest; VALUES rows must match their variables; a blank node label
// may not be shared by two basic graph patterns; updates reject blank nodes in
// DELETE forms, variables in DATA blocks and INSERT DATA labels shared between
// operations; built-ins and casts are checked for arity; nesting is bounded.
//
// Errors are *textpos.Error values, "source:line:col: expected X, found Y"
// (the source is Options.Source), whose InvalidInput method marks them as
// the user's fault.
//
// ParseRDQL reads the RDQL of the dissertation's Fig. 6.29 (SELECT … WHERE
// (s p o) … AND expr USING prefix FOR <iri>) and yields the same algebra as its
// SPARQL translation; LooksLikeRDQL tells the two languages apart.
package syntax
