package builtins

import "github.com/perfkb/perfkb/kb"

func init() {
	test2 := func(name string, f func(a, b kb.Term) bool) {
		register(&Builtin{Name: name, MinArgs: 2, MaxArgs: 2,
			Body: func(c *Call) (bool, error) { return f(c.Args[0], c.Args[1]), nil }})
	}
	ordered := func(want func(int) bool) func(a, b kb.Term) bool {
		return func(a, b kb.Term) bool {
			c, ok := Compare(a, b)
			return ok && want(c)
		}
	}
	// equal(?x, ?y): semantically equal (numbers by value).
	test2("equal", SameValue)
	// notEqual(?x, ?y): not semantically equal.
	test2("notEqual", func(a, b kb.Term) bool { return !SameValue(a, b) })
	// lessThan, greaterThan, le, ge: numbers (or dateTimes) by value; false
	// when the arguments are not comparable.
	test2("lessThan", ordered(func(c int) bool { return c < 0 }))
	test2("greaterThan", ordered(func(c int) bool { return c > 0 }))
	test2("le", ordered(func(c int) bool { return c <= 0 }))
	test2("ge", ordered(func(c int) bool { return c >= 0 }))
}
