package builtins

import (
	"math"

	"github.com/perfkb/perfkb/internal/fuzzy"
	"github.com/perfkb/perfkb/kb"
)

// Fuzzy membership builtins (Appendix F, Fig. 6.7 of the dissertation).
// Each takes numeric arguments and binds (or checks) its last argument to
// the membership degree as an xsd:double:
//
//	fuzzyTriangle(?x, a, b, c, ?mu)          F.3
//	fuzzyTrapezoid(?x, a, b, c, d, ?mu)      F.4
//	fuzzyShoulderLeft(?x, a, b, ?mu)         ABLE Shoulder(a, b, Left)
//	fuzzyShoulderRight(?x, a, b, ?mu)        ABLE Shoulder(a, b, Right)
//	fuzzyS(?x, a, b, ?mu)                    F.7
//	fuzzyZ(?x, a, b, ?mu)                    F.8
//	fuzzyVery(?mu, ?mu2)                     F.14, mu2 = mu²
//
// A non-numeric argument or parameters out of order make the call fail
// (the rule does not fire). Degrees are rounded to 12 decimal places so
// that the float noise of an edge such as (2.1-2)/0.2 = 0.5000000000000004
// does not reach the stored lexical form ("0.5").
func init() {
	fuzzyFunc("fuzzyTriangle", 3, func(x float64, p []float64) float64 { return fuzzy.Triangle(x, p[0], p[1], p[2]) })
	fuzzyFunc("fuzzyTrapezoid", 4, func(x float64, p []float64) float64 { return fuzzy.Trapezoid(x, p[0], p[1], p[2], p[3]) })
	fuzzyFunc("fuzzyShoulderLeft", 2, func(x float64, p []float64) float64 { return fuzzy.ShoulderLeft(x, p[0], p[1]) })
	fuzzyFunc("fuzzyShoulderRight", 2, func(x float64, p []float64) float64 { return fuzzy.ShoulderRight(x, p[0], p[1]) })
	fuzzyFunc("fuzzyS", 2, func(x float64, p []float64) float64 { return fuzzy.S(x, p[0], p[1]) })
	fuzzyFunc("fuzzyZ", 2, func(x float64, p []float64) float64 { return fuzzy.Z(x, p[0], p[1]) })
	fuzzyFunc("fuzzyVery", 0, func(x float64, _ []float64) float64 { return fuzzy.Very(x) })
}

// fuzzyFunc registers name(?x, params..., ?mu).
func fuzzyFunc(name string, params int, f func(x float64, p []float64) float64) {
	n := params + 2
	register(&Builtin{Name: name, MinArgs: n, MaxArgs: n, Outputs: last,
		Body: func(c *Call) (bool, error) {
			var buf [4]float64
			p := buf[:params]
			x, ok := NumberOf(c.Args[0])
			if !ok {
				return false, nil
			}
			for i := range p {
				v, ok := NumberOf(c.Args[i+1])
				if !ok {
					return false, nil
				}
				p[i] = v.AsFloat()
			}
			mu := f(x.AsFloat(), p)
			if math.IsNaN(mu) {
				return false, nil
			}
			return c.Bind(n-1, degreeLiteral(mu)), nil
		}})
}

func degreeLiteral(mu float64) kb.Term {
	return DoubleLiteral(math.Round(mu*1e12) / 1e12)
}
