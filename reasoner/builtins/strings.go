package builtins

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

func concat(args []kb.Term) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(Lexical(a))
	}
	return b.String()
}

func init() {
	// strConcat(?a1 ... ?an, ?t): ?t is the plain literal of the
	// arguments' lexical forms (IRIs as their IRI text) concatenated.
	register(&Builtin{Name: "strConcat", MinArgs: 1, MaxArgs: -1, Outputs: last,
		Body: func(c *Call) (bool, error) {
			n := len(c.Args)
			return c.Bind(n-1, kb.String(concat(c.Args[:n-1]))), nil
		}})
	// uriConcat(?a1 ... ?an, ?t): as strConcat, binding an IRI.
	register(&Builtin{Name: "uriConcat", MinArgs: 1, MaxArgs: -1, Outputs: last,
		Body: func(c *Call) (bool, error) {
			n := len(c.Args)
			return c.Bind(n-1, kb.IRI(concat(c.Args[:n-1]))), nil
		}})
	// regex(?text, pattern [, ?m1 ... ?mn]): the whole lexical form of ?text
	// matches pattern (Go RE2 syntax); ?mi bind to the capture groups.
	register(&Builtin{Name: "regex", MinArgs: 2, MaxArgs: -1,
		Outputs: func(n int) []int {
			out := make([]int, 0, n)
			for i := 2; i < n; i++ {
				out = append(out, i)
			}
			return out
		},
		CheckConst: func(i int, t kb.Term) error {
			if i != 1 {
				return nil
			}
			if _, err := regexp.Compile(Lexical(t)); err != nil {
				return fmt.Errorf("regex: %w", err)
			}
			return nil
		},
		Body: func(c *Call) (bool, error) {
			if !c.Args[0].IsLiteral() && !c.Args[0].IsIRI() {
				return false, nil
			}
			re, err := c.Env.Regexp(anchored(Lexical(c.Args[1])))
			if err != nil {
				return false, err
			}
			m := re.FindStringSubmatch(Lexical(c.Args[0]))
			if m == nil {
				return false, nil
			}
			for i := 2; i < len(c.Args); i++ {
				group := ""
				if i-1 < len(m) {
					group = m[i-1]
				}
				if !c.Bind(i, kb.String(group)) {
					return false, nil
				}
			}
			return true, nil
		}})
}

// anchored makes a regex builtin's pattern match the whole lexical form.
func anchored(pattern string) string { return "^(?:" + pattern + ")$" }
