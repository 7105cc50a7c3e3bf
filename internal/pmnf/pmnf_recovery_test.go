package pmnf

import (
	"math/rand/v2"
	"testing"
)

// The recovery test draws PMNF functions with known exponents, measures
// them with noise and repetitions, and checks that Fit finds the
// generating exponents. Exponents are drawn from Extra-P's search space
// (DefaultExponents), which holds neighbours as close as p^(3/4) and
// p^(4/5): at a few percent of noise two neighbours fit the data about
// equally well, so besides exact recovery the test counts a "neighbour"
// recovery: the lead-order term's polynomial exponent within 1/4 of the
// generating one (whatever its logarithm), as the Extra-P papers count a
// lead-order term that is "close".

func norm(e Exponent) Exponent {
	if e.Num == 0 {
		return Exponent{0, 1, e.Log}
	}
	g := gcd(e.Num, e.Den)
	return Exponent{e.Num / g, e.Den / g, e.Log}
}

type recovery struct{ n, exact, near int }

func (r recovery) pct() (float64, float64) {
	return 100 * float64(r.exact) / float64(r.n), 100 * float64(r.near) / float64(r.n)
}

func (r *recovery) add(want Exponent, got Exponent, ok bool) {
	r.n++
	if !ok {
		return
	}
	want, got = norm(want), norm(got)
	if want == got {
		r.exact++
	}
	if d := want.Poly() - got.Poly(); d >= -0.25 && d <= 0.25 {
		r.near++
	}
}

// noisy returns 5 repetitions of v with uniform relative noise ±nz.
func noisy(rng *rand.Rand, v, nz float64) []float64 {
	out := make([]float64, 5)
	for i := range out {
		out[i] = v * (1 + nz*(2*rng.Float64()-1))
	}
	return out
}

// recoverSingle fits n single-parameter functions c0 + c1·p^i·log2(p)^j;
// the term is 2–20 times c0 at the largest p (a call path that scales),
// the noise of each function is drawn from [lo, hi].
func recoverSingle(t *testing.T, seed uint64, n int, ps []float64, lo, hi float64) recovery {
	rng := rand.New(rand.NewPCG(seed, 1))
	md := &Modeler{}
	var r recovery
	for k := 0; k < n; k++ {
		e := DefaultExponents[rng.IntN(len(DefaultExponents))]
		c0 := 1 + rng.Float64()*99
		c1 := c0 * (2 + rng.Float64()*18) / e.eval(ps[len(ps)-1])
		nz := lo + rng.Float64()*(hi-lo)
		var pts []Point
		for _, p := range ps {
			pts = append(pts, Point{X: []float64{p}, Values: noisy(rng, c0+c1*e.eval(p), nz)})
		}
		m, err := md.Fit([]string{"p"}, pts)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := m.Growth(0)
		r.add(e, g, ok && len(m.Terms) == 1)
	}
	return r
}

// recoverTwo fits n two-parameter functions, half multiplicative
// c0 + c1·f(p)·g(n), half additive c0 + c1·f(p) + c2·g(n), on a 5×5 grid;
// both parameters' exponents must be found.
func recoverTwo(t *testing.T, seed uint64, n int, lo, hi float64) recovery {
	rng := rand.New(rand.NewPCG(seed, 2))
	md := &Modeler{}
	ps := []float64{4, 8, 16, 32, 64}
	ns := []float64{10, 20, 40, 80, 160}
	var r recovery
	for k := 0; k < n; k++ {
		ep := DefaultExponents[rng.IntN(len(DefaultExponents))]
		en := DefaultExponents[rng.IntN(len(DefaultExponents))]
		c0 := 1 + rng.Float64()*99
		mult := k%2 == 0
		pm, nm := ep.eval(ps[4]), en.eval(ns[4])
		c1 := c0 * (2 + rng.Float64()*18) / (pm * nm)
		c2 := 0.0
		if !mult {
			c1 = c0 * (2 + rng.Float64()*18) / pm
			c2 = c0 * (2 + rng.Float64()*18) / nm
		}
		nz := lo + rng.Float64()*(hi-lo)
		var pts []Point
		for _, p := range ps {
			for _, x := range ns {
				v := c0 + c1*ep.eval(p)*en.eval(x)
				if !mult {
					v = c0 + c1*ep.eval(p) + c2*en.eval(x)
				}
				pts = append(pts, Point{X: []float64{p, x}, Values: noisy(rng, v, nz)})
			}
		}
		m, err := md.Fit([]string{"p", "n"}, pts)
		if err != nil {
			t.Fatal(err)
		}
		gp, okp := m.Growth(0)
		gn, okn := m.Growth(1)
		var both recovery
		both.add(ep, gp, okp)
		both.add(en, gn, okn)
		r.n++
		if both.exact == 2 {
			r.exact++
		}
		if both.near == 2 {
			r.near++
		}
	}
	return r
}

func TestRecoverGeneratingExponents(t *testing.T) {
	for _, tc := range []struct {
		name      string
		two       bool
		ps        []float64
		lo, hi    float64
		n         int
		wantExact float64 // percent, asserted
		wantNear  float64
	}{
		{name: "one parameter, 1% noise, p=2..64", ps: []float64{2, 4, 8, 16, 32, 64}, lo: 0.01, hi: 0.01, n: 300, wantExact: 97, wantNear: 99},
		{name: "one parameter, 1-5% noise, p=2..64", ps: []float64{2, 4, 8, 16, 32, 64}, lo: 0.01, hi: 0.05, n: 300, wantExact: 85, wantNear: 95},
		{name: "one parameter, 1-5% noise, p=2..512", ps: []float64{2, 4, 8, 16, 32, 64, 128, 256, 512}, lo: 0.01, hi: 0.05, n: 300, wantExact: 90, wantNear: 97},
		{name: "two parameters, 1% noise, 5x5", two: true, lo: 0.01, hi: 0.01, n: 200, wantExact: 90, wantNear: 97},
		{name: "two parameters, 1-5% noise, 5x5", two: true, lo: 0.01, hi: 0.05, n: 200, wantExact: 65, wantNear: 85},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r recovery
			if tc.two {
				r = recoverTwo(t, 20261127, tc.n, tc.lo, tc.hi)
			} else {
				r = recoverSingle(t, 20261127, tc.n, tc.ps, tc.lo, tc.hi)
			}
			exact, near := r.pct()
			t.Logf("%s: %d functions, 5 repetitions: exact exponents %.1f%%, lead-order polynomial exponent within 1/4 %.1f%%", tc.name, r.n, exact, near)
			if exact < tc.wantExact || near < tc.wantNear {
				t.Errorf("recovered %.1f%% exactly (want >= %.0f%%), %.1f%% within 1/4 (want >= %.0f%%)", exact, tc.wantExact, near, tc.wantNear)
			}
		})
	}
}
