package builtins

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

const rdfsLiteral = ontology.RDFSLiteral

// isDType reports whether literal l belongs to datatype dt: its own
// datatype, rdfs:Literal, or a numeric supertype (an xsd:int is also an
// xsd:integer and an xsd:decimal).
func isDType(l, dt kb.Term) bool {
	if !l.IsLiteral() || !dt.IsIRI() {
		return false
	}
	if dt.Value == rdfsLiteral || l.Datatype == dt.Value {
		return true
	}
	n, ok := NumberOf(l)
	if !ok || !n.IsInt {
		return false
	}
	return dt.Value == ontology.XSDInteger || dt.Value == ontology.XSDDecimal
}

func init() {
	test1 := func(name string, f func(t kb.Term) bool) {
		register(&Builtin{Name: name, MinArgs: 1, MaxArgs: 1,
			Body: func(c *Call) (bool, error) { return f(c.Args[0]), nil }})
	}
	isFunctor := func(t kb.Term) bool { return t.IsLiteral() && t.Datatype == FunctorDatatype }
	test1("isLiteral", func(t kb.Term) bool { return t.IsLiteral() && !isFunctor(t) })
	test1("notLiteral", func(t kb.Term) bool { return !t.IsLiteral() || isFunctor(t) })
	test1("isBNode", kb.Term.IsBlank)
	test1("notBNode", func(t kb.Term) bool { return !t.IsBlank() })
	test1("isFunctor", isFunctor)
	test1("notFunctor", func(t kb.Term) bool { return !isFunctor(t) })

	register(&Builtin{Name: "isDType", MinArgs: 2, MaxArgs: 2,
		Body: func(c *Call) (bool, error) { return isDType(c.Args[0], c.Args[1]), nil }})
	register(&Builtin{Name: "notDType", MinArgs: 2, MaxArgs: 2,
		Body: func(c *Call) (bool, error) { return !isDType(c.Args[0], c.Args[1]), nil }})

	// bound(?x ...) / unbound(?x ...): every argument is (un)bound. In a
	// forward rule every body variable is bound once the triple patterns
	// match, so these run last.
	register(&Builtin{Name: "bound", MinArgs: 1, MaxArgs: -1, Deferred: true, Outputs: all,
		Body: func(c *Call) (bool, error) {
			for i := range c.Args {
				if !c.Bound(i) {
					return false, nil
				}
			}
			return true, nil
		}})
	register(&Builtin{Name: "unbound", MinArgs: 1, MaxArgs: -1, Deferred: true, Outputs: all,
		Body: func(c *Call) (bool, error) {
			for i := range c.Args {
				if c.Bound(i) {
					return false, nil
				}
			}
			return true, nil
		}})

	// noValue(?s, ?p [, ?o]): no triple (s p o) is in the data, asserted or
	// inferred so far. Non-monotonic: it runs after the triple patterns.
	register(&Builtin{Name: "noValue", MinArgs: 2, MaxArgs: 3, Deferred: true,
		Body: func(c *Call) (bool, error) {
			var o kb.Term
			if len(c.Args) == 3 {
				o = c.Args[2]
			}
			found, err := c.Env.Exists(c.Args[0], c.Args[1], o)
			return !found, err
		}})
}

// all lets a builtin accept unbound arguments in every position.
func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
