package pmnf

import (
	"math/rand/v2"
	"testing"
)

// Synthetic series for the recovery and Extra-P tests: PMNF functions with
// known exponents, measured with relative noise and 5 repetitions per
// point. The recovery test and the Extra-P comparison score the same
// series, so both tools' figures refer to the same inputs.

// synth is one synthetic call path: its generating exponents (one per
// parameter) and its measurements.
type synth struct {
	want   []Exponent
	mult   bool // two parameters: c1·f(p)·g(n) rather than c1·f(p) + c2·g(n)
	points []Point
	// truth is the noise-free value at each point, termVals each
	// generating term's contribution to it.
	truth    []float64
	termVals [][]float64
}

// design is a measurement design: the parameters' names and values (the
// points are their full grid), the noise range and how many call paths.
type design struct {
	name   string
	params []string
	values [][]float64
	lo, hi float64
	n      int
	// exps is the set the generating exponents are drawn from; nil is
	// Extra-P's whole search space (DefaultExponents).
	exps []Exponent
}

// noisy returns 5 repetitions of v with uniform relative noise ±nz.
func noisy(rng *rand.Rand, v, nz float64) []float64 {
	out := make([]float64, 5)
	for i := range out {
		out[i] = v * (1 + nz*(2*rng.Float64()-1))
	}
	return out
}

// generate draws d.n functions c0 + c1·p^i·log2(p)^j (one parameter) or,
// alternating, c0 + c1·f(p)·g(n) and c0 + c1·f(p) + c2·g(n) (two), with
// exponents drawn uniformly from Extra-P's search space, c0 in [1, 100)
// and every term 2–20 times c0 at the largest coordinate (a call path
// that scales); each function's noise level is drawn from [d.lo, d.hi].
func generate(seed uint64, d design) []synth {
	rng := rand.New(rand.NewPCG(seed, uint64(len(d.params))))
	grid := [][]float64{{}}
	for _, vs := range d.values {
		var next [][]float64
		for _, g := range grid {
			for _, v := range vs {
				next = append(next, append(append([]float64(nil), g...), v))
			}
		}
		grid = next
	}
	last := make([]float64, len(d.values))
	for i, vs := range d.values {
		last[i] = vs[len(vs)-1]
	}
	out := make([]synth, d.n)
	for k := range out {
		s := &out[k]
		exps := d.exps
		if exps == nil {
			exps = DefaultExponents
		}
		for range d.params {
			s.want = append(s.want, exps[rng.IntN(len(exps))])
		}
		c0 := 1 + rng.Float64()*99
		s.mult = len(d.params) == 1 || k%2 == 0
		// coef[i] scales term i; one term for a product, one per parameter
		// for a sum.
		var coef []float64
		if s.mult {
			at := 1.0
			for i, e := range s.want {
				at *= e.eval(last[i])
			}
			coef = []float64{c0 * (2 + rng.Float64()*18) / at}
		} else {
			for i, e := range s.want {
				coef = append(coef, c0*(2+rng.Float64()*18)/e.eval(last[i]))
			}
		}
		nz := d.lo + rng.Float64()*(d.hi-d.lo)
		s.termVals = make([][]float64, len(coef))
		for _, x := range grid {
			v := c0
			if s.mult {
				t := coef[0]
				for i, e := range s.want {
					t *= e.eval(x[i])
				}
				v += t
				s.termVals[0] = append(s.termVals[0], t)
			} else {
				for i, e := range s.want {
					t := coef[i] * e.eval(x[i])
					v += t
					s.termVals[i] = append(s.termVals[i], t)
				}
			}
			s.truth = append(s.truth, v)
			s.points = append(s.points, Point{X: x, Values: noisy(rng, v, nz)})
		}
	}
	return out
}

func norm(e Exponent) Exponent {
	if e.Num == 0 {
		return Exponent{0, 1, e.Log}
	}
	g := gcd(e.Num, e.Den)
	return Exponent{e.Num / g, e.Den / g, e.Log}
}

// recovered scores a model against its generating exponents: exact when
// every parameter's fastest-growing term has exactly the generating
// exponents, near when its polynomial exponent is within 1/4 of the
// generating one (whatever its logarithm), which is how the Extra-P papers
// count a lead-order term that is "close".
func recovered(m *Model, want []Exponent) (exact, near bool) {
	exact, near = true, true
	if len(m.Params) == 1 && len(m.Terms) != 1 {
		return false, false
	}
	for i, w := range want {
		g, ok := m.Growth(i)
		if !ok {
			return false, false
		}
		w, g = norm(w), norm(g)
		exact = exact && w == g
		if d := w.Poly() - g.Poly(); d < -0.25 || d > 0.25 {
			near = false
		}
	}
	return exact, near
}

type recovery struct{ n, exact, near int }

func (r *recovery) add(m *Model, want []Exponent) {
	r.n++
	e, n := recovered(m, want)
	if e {
		r.exact++
	}
	if n {
		r.near++
	}
}

func (r recovery) pct() (float64, float64) {
	return 100 * float64(r.exact) / float64(r.n), 100 * float64(r.near) / float64(r.n)
}

func fitAll(t *testing.T, md *Modeler, d design, cases []synth) []*Model {
	t.Helper()
	out := make([]*Model, len(cases))
	for i, c := range cases {
		m, err := md.Fit(d.params, c.points)
		if err != nil {
			t.Fatalf("%s case %d: %v", d.name, i, err)
		}
		out[i] = m
	}
	return out
}
