package builtins

import (
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// PrintText renders print() arguments: plain strings bare, other terms in
// N-Triples, separated by spaces.
func PrintText(args []kb.Term) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a.IsLiteral() && a.Datatype == ontology.XSDString {
			parts[i] = a.Value
		} else if a.IsZero() {
			parts[i] = "?"
		} else {
			parts[i] = a.String()
		}
	}
	return strings.Join(parts, " ")
}

func removeAction(silent bool) func(c *Call) error {
	return func(c *Call) error {
		for _, a := range c.Args {
			n, ok := NumberOf(a)
			if !ok || !n.IsInt {
				return fmt.Errorf("%s: argument %s is not a body clause index", c.Name, a)
			}
			if err := c.Env.Remove(int(n.Int), silent); err != nil {
				return err
			}
		}
		return nil
	}
}

func init() {
	// print(...): writes its arguments on one line (body or head).
	printLine := func(c *Call) error { c.Env.Print(PrintText(c.Args)); return nil }
	register(&Builtin{Name: "print", MinArgs: 0, MaxArgs: -1, Deferred: true,
		Body: func(c *Call) (bool, error) { return true, printLine(c) },
		Head: printLine})
	// remove(n ...): removes the triples that matched body clauses n ...;
	// the removal is visible to later rule firings.
	register(&Builtin{Name: "remove", MinArgs: 1, MaxArgs: -1, Head: removeAction(false)})
	// drop(n ...): as remove. (In Jena, drop hides the removal from the
	// rule engine; perfkb's engine keeps no consequences that depend on it,
	// so both delete the triple.)
	register(&Builtin{Name: "drop", MinArgs: 1, MaxArgs: -1, Head: removeAction(true)})
}
