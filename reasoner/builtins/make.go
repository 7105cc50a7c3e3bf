package builtins

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/perfkb/perfkb/kb"

	"github.com/perfkb/perfkb/ontology"
)

// Skolem returns the blank node makeSkolem binds for the given values: the
// same values always give the same node.
func Skolem(values []kb.Term) kb.Term {
	h := sha256.New()
	for _, v := range values {
		h.Write([]byte(v.String()))
		h.Write([]byte{0})
	}
	return kb.Blank("sk" + hex.EncodeToString(h.Sum(nil)[:12]))
}

func init() {
	// makeTemp(?x): binds ?x to a new blank node.
	register(&Builtin{Name: "makeTemp", MinArgs: 1, MaxArgs: 1, Outputs: first,
		Body: func(c *Call) (bool, error) { return c.Bind(0, c.Env.NewBlank()), nil }})
	// makeSkolem(?x, ?v1 ... ?vn): binds ?x to a blank node that is a
	// function of the values, so firing twice makes one node.
	register(&Builtin{Name: "makeSkolem", MinArgs: 2, MaxArgs: -1, Outputs: first,
		Body: func(c *Call) (bool, error) { return c.Bind(0, Skolem(c.Args[1:])), nil }})
	// makeInstance(?x, ?p, [?t,] ?v): binds ?v to a blank node that is the
	// one value of ?p for ?x (a skolem of x, p and the optional type t).
	register(&Builtin{Name: "makeInstance", MinArgs: 3, MaxArgs: 4, Outputs: last,
		Body: func(c *Call) (bool, error) {
			n := len(c.Args)
			key := append([]kb.Term{kb.IRI("urn:x-perfkb:makeInstance")}, c.Args[:n-1]...)
			return c.Bind(n-1, Skolem(key)), nil
		}})
	// now(?x): binds ?x to the current xsd:dateTime.
	register(&Builtin{Name: "now", MinArgs: 1, MaxArgs: 1, Outputs: first,
		Body: func(c *Call) (bool, error) {
			return c.Bind(0, kb.Literal(c.Env.Now().UTC().Format(time.RFC3339Nano), ontology.XSDDateTime)), nil
		}})
}
