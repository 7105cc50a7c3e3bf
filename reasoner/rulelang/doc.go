// Package rulelang parses rule files written in Apache Jena's rule syntax
// into an AST. It knows nothing about evaluation: the reasoner compiles the
// AST into join plans.
//
// Grammar (Jena's, with perfkb's @define extension):
//
//	file      = { directive | rule } .
//	directive = "@prefix" PNAME IRI "."
//	          | "@include" IRI "."            // <RDFS>, <OWL>, <PERFONTO> or a path
//	          | "@define" NAME node "." .     // named constant (perfkb extension)
//	rule      = "[" [ NAME ":" ] bare "]" | bare "." .
//	bare      = clauses "->" clauses .        // "<-" (backward) is rejected
//	clauses   = clause { [","] clause } .
//	clause    = "(" node node node ")" | NAME "(" [ node { [","] node } ] ")" .
//	node      = VAR | IRI | QNAME | STRING [ "^^" (IRI|QNAME) | "@" LANG ]
//	          | NUMBER | NAME "(" args ")" | NAME .   // bare NAME = @define'd constant
//
// Comments run from "#" or "//" to the end of the line. Commas between
// clauses and arguments are optional, as in Jena. The prefixes rdf, rdfs,
// owl, xsd and perfonto are predefined.
//
// Named constants: "@define BIG_MESSAGES_THRESHOLD 65536." makes the bare
// name BIG_MESSAGES_THRESHOLD stand for the number 65536 wherever a node may
// appear, later in the same file. The value may be any node (number, string,
// typed literal, IRI, qname). Options.Defines overrides a file's @define, so
// a threshold can be changed without editing the file (perfkb reason
// --define NAME=VALUE). An undefined bare name is an error with its position.
//
// Numbers follow Jena: an integer is an xsd:int literal and a number with a
// fraction is xsd:float; perfkb also reads integers beyond 32 bits
// (xsd:integer) and exponents such as 3E8 (xsd:double), which Jena would
// leave as plain strings. Comparisons are by value across numeric types.
//
// Errors carry file:line:column; Parse returns all of them (a textpos.ErrorList)
// together with the rules it could parse.
package rulelang
