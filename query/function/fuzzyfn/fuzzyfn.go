// Package fuzzyfn offers the fuzzy-set membership functions and modifiers
// of internal/fuzzy (Appendix F of the dissertation) as SPARQL extension
// functions in function.Namespace, the ones the rule language has as
// builtins (reasoner/builtins/fuzzy.go), so a query can grade values the
// way the monitoring rules do:
//
//	PREFIX pf: <urn:x-perfkb:function#>
//	SELECT ?m ?mu WHERE { ?m perfonto:hasMetricValue ?v
//	  BIND (pf:fuzzyTriangle(?v, 10, 20, 30) AS ?mu) FILTER (?mu > 0.5) }
//
// The membership functions take the crisp value first, then the set's
// parameters, and return the degree as an xsd:double rounded to 12
// decimal places (as the rule builtins do, so that float noise such as
// 0.5000000000000004 does not reach results). A non-numeric argument or
// parameters out of order (the set is empty) are expression errors: a
// FILTER on the degree is false, a BIND leaves its variable unbound.
package fuzzyfn

import (
	"math"

	"github.com/perfkb/perfkb/internal/fuzzy"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/function"
)

// membership is one fuzzy set shape: its name and parameter count.
type membership struct {
	name   string
	params int
	doc    string
	f      func(x float64, p []float64) float64
}

var memberships = []membership{
	{"fuzzyTriangle", 3, "triangular set (a, b, c), F.3", func(x float64, p []float64) float64 { return fuzzy.Triangle(x, p[0], p[1], p[2]) }},
	{"fuzzyTrapezoid", 4, "trapezoidal set (a, b, c, d), F.4", func(x float64, p []float64) float64 { return fuzzy.Trapezoid(x, p[0], p[1], p[2], p[3]) }},
	{"fuzzyShoulderLeft", 2, "left shoulder (a, b): 1 up to a, falling to 0 at b", func(x float64, p []float64) float64 { return fuzzy.ShoulderLeft(x, p[0], p[1]) }},
	{"fuzzyShoulderRight", 2, "right shoulder (a, b): 0 up to a, rising to 1 at b", func(x float64, p []float64) float64 { return fuzzy.ShoulderRight(x, p[0], p[1]) }},
	{"fuzzyS", 2, "S-function (a, b), F.7", func(x float64, p []float64) float64 { return fuzzy.S(x, p[0], p[1]) }},
	{"fuzzyZ", 2, "Z-function (a, b), F.8", func(x float64, p []float64) float64 { return fuzzy.Z(x, p[0], p[1]) }},
	{"fuzzyBell", 3, "generalized bell (a, b, c), F.5", func(x float64, p []float64) float64 { return fuzzy.Bell(x, p[0], p[1], p[2]) }},
	{"fuzzySigmoid", 2, "sigmoid (a, c), F.6", func(x float64, p []float64) float64 { return fuzzy.Sigmoid(x, p[0], p[1]) }},
	{"fuzzyGaussian", 2, "Gaussian (sigma, c), F.9", func(x float64, p []float64) float64 { return fuzzy.Gaussian(x, p[0], p[1]) }},
}

// Register declares the fuzzy functions in r (a clone: the shared
// registries are frozen).
func Register(r *function.Registry) error {
	for _, m := range memberships {
		if err := r.Register(function.Def{Name: function.Namespace + m.name, Min: m.params + 1, Max: m.params + 1,
			Doc: "membership degree of x in the " + m.doc, Call: membershipCall(m)}); err != nil {
			return err
		}
	}
	degreeFns := []function.Def{
		{Name: function.Namespace + "fuzzyVery", Min: 1, Max: 1, Doc: "the hedge very, mu squared (F.14)",
			Call: degreeCall(func(mu []float64) float64 { return fuzzy.Very(mu[0]) })},
		{Name: function.Namespace + "fuzzySomewhat", Min: 1, Max: 1, Doc: "the hedge somewhat (more or less), the square root of mu",
			Call: degreeCall(func(mu []float64) float64 { return fuzzy.Somewhat(mu[0]) })},
		{Name: function.Namespace + "fuzzyExtremely", Min: 1, Max: 1, Doc: "the hedge extremely, mu cubed",
			Call: degreeCall(func(mu []float64) float64 { return fuzzy.Extremely(mu[0]) })},
		{Name: function.Namespace + "fuzzyNot", Min: 1, Max: 1, Doc: "the fuzzy complement, 1 - mu (F.12)",
			Call: degreeCall(func(mu []float64) float64 { return fuzzy.Not(mu[0]) })},
		{Name: function.Namespace + "fuzzyAnd", Min: 1, Max: function.Variadic, Doc: "fuzzy intersection, the smallest degree (F.10)",
			Call: degreeCall(func(mu []float64) float64 { return fold(mu, fuzzy.And) })},
		{Name: function.Namespace + "fuzzyOr", Min: 1, Max: function.Variadic, Doc: "fuzzy union, the largest degree (F.11)",
			Call: degreeCall(func(mu []float64) float64 { return fold(mu, fuzzy.Or) })},
	}
	for _, d := range degreeFns {
		if err := r.Register(d); err != nil {
			return err
		}
	}
	return nil
}

func fold(mu []float64, f func(a, b float64) float64) float64 {
	v := mu[0]
	for _, m := range mu[1:] {
		v = f(v, m)
	}
	return v
}

// number decodes a numeric argument.
func number(t kb.Term, i int) (float64, error) {
	n, ok := function.ParseNumeric(t)
	if !ok {
		return 0, function.Errorf("argument %d is not a number: %s", i+1, t)
	}
	return n.Float64(), nil
}

func membershipCall(m membership) function.Func {
	return func(args []kb.Term) (kb.Term, error) {
		var buf [4]float64
		p := buf[:m.params]
		x, err := number(args[0], 0)
		if err != nil {
			return kb.Term{}, err
		}
		for i := range p {
			if p[i], err = number(args[i+1], i+1); err != nil {
				return kb.Term{}, err
			}
		}
		return degree(m.name, m.f(x, p))
	}
}

func degreeCall(f func(mu []float64) float64) function.Func {
	return func(args []kb.Term) (kb.Term, error) {
		var buf [8]float64
		mu := buf[:0]
		for i, a := range args {
			v, err := number(a, i)
			if err != nil {
				return kb.Term{}, err
			}
			mu = append(mu, v)
		}
		return degree("fuzzy", f(mu))
	}
}

// degree is the result literal; NaN, which the membership functions
// return for parameters out of order, is an expression error.
func degree(name string, mu float64) (kb.Term, error) {
	if math.IsNaN(mu) {
		return kb.Term{}, function.Errorf("%s: parameters out of order", name)
	}
	return function.Double(math.Round(mu*1e12) / 1e12), nil
}
