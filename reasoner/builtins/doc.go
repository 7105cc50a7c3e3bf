// Package builtins is the registry of rule builtins: the functions a Jena
// rule calls in its body (tests and bindings such as greaterThan, sum,
// makeSkolem) or head (actions such as print and remove).
//
// A builtin is one Builtin value registered from one of this package's init
// functions (the table is fixed when the program starts):
//
//	func init() {
//		register(&Builtin{Name: "isLiteral", MinArgs: 1, MaxArgs: 1,
//			Body: func(c *Call) (bool, error) { return c.Args[0].IsLiteral(), nil }})
//	}
//
// Builtins see terms, not store IDs; an unbound variable argument is the
// zero kb.Term, which a builtin may bind with Call.Bind. The engine
// reaches them only through Lookup. Names and semantics follow Jena's
// builtins (org.apache.jena.reasoner.rulesys.builtins); numbers compare by
// value across the XSD numeric types.
package builtins
