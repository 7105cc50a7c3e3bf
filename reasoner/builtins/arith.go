package builtins

import "github.com/perfkb/perfkb/kb"

// arithmetic registers a builtin f(?a, ?b, ?c) that binds (or checks) ?c.
// As in Jena, two integers give an integer (xsd:int or xsd:long) and any
// floating operand gives an xsd:double; non-numbers make the call fail.
func arithmetic(name string, ints func(a, b int64) (int64, bool), floats func(a, b float64) (float64, bool)) {
	register(&Builtin{Name: name, MinArgs: 3, MaxArgs: 3, Outputs: last,
		Body: func(c *Call) (bool, error) {
			x, ok1 := NumberOf(c.Args[0])
			y, ok2 := NumberOf(c.Args[1])
			if !ok1 || !ok2 {
				return false, nil
			}
			var out kb.Term
			if x.IsInt && y.IsInt {
				v, ok := ints(x.Int, y.Int)
				if !ok {
					return false, nil
				}
				out = IntLiteral(v)
			} else {
				v, ok := floats(x.AsFloat(), y.AsFloat())
				if !ok {
					return false, nil
				}
				out = DoubleLiteral(v)
			}
			return c.Bind(2, out), nil
		}})
}

func init() {
	arithmetic("sum", func(a, b int64) (int64, bool) { return a + b, true },
		func(a, b float64) (float64, bool) { return a + b, true })
	arithmetic("difference", func(a, b int64) (int64, bool) { return a - b, true },
		func(a, b float64) (float64, bool) { return a - b, true })
	arithmetic("product", func(a, b int64) (int64, bool) { return a * b, true },
		func(a, b float64) (float64, bool) { return a * b, true })
	// quotient of two integers is integer division, as in Jena.
	arithmetic("quotient", func(a, b int64) (int64, bool) {
		if b == 0 {
			return 0, false
		}
		return a / b, true
	},
		func(a, b float64) (float64, bool) { return a / b, b != 0 })

	// min(?a, ?b, ?c) and max(?a, ?b, ?c) bind ?c to the smaller (larger)
	// argument itself, keeping its datatype.
	pick := func(name string, wantFirst func(c int) bool) {
		register(&Builtin{Name: name, MinArgs: 3, MaxArgs: 3, Outputs: last,
			Body: func(c *Call) (bool, error) {
				cmp, ok := Compare(c.Args[0], c.Args[1])
				if !ok {
					return false, nil
				}
				if wantFirst(cmp) {
					return c.Bind(2, c.Args[0]), nil
				}
				return c.Bind(2, c.Args[1]), nil
			}})
	}
	pick("min", func(c int) bool { return c <= 0 })
	pick("max", func(c int) bool { return c >= 0 })

	// addOne(?a, ?b): ?b = ?a + 1.
	register(&Builtin{Name: "addOne", MinArgs: 2, MaxArgs: 2, Outputs: last,
		Body: func(c *Call) (bool, error) {
			x, ok := NumberOf(c.Args[0])
			if !ok {
				return false, nil
			}
			if x.IsInt {
				return c.Bind(1, IntLiteral(x.Int+1)), nil
			}
			return c.Bind(1, DoubleLiteral(x.Float+1)), nil
		}})
}
