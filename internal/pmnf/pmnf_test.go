package pmnf

import (
	"math"
	"testing"
)

func closeTo(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestLstsq(t *testing.T) {
	// y = [1 3 2] at x = [1 2 3]: slope Sxy/Sxx = 1/2, intercept 2 - 1/2·2 = 1.
	c := lstsq([]float64{1, 1, 1, 2, 1, 3}, []float64{1, 3, 2}, 3, 2)
	if !closeTo(c[0], 1, 1e-12) || !closeTo(c[1], 0.5, 1e-12) {
		t.Errorf("lstsq = %v, want [1 0.5]", c)
	}
	// Square and exact: 2a + b = 5, a - b = 1 → a = 2, b = 1.
	c = lstsq([]float64{2, 1, 1, -1}, []float64{5, 1}, 2, 2)
	if !closeTo(c[0], 2, 1e-12) || !closeTo(c[1], 1, 1e-12) {
		t.Errorf("lstsq = %v, want [2 1]", c)
	}
}

// TestFitSingleHand checks Extra-P's selection on three points with the
// search space cut to the linear term, against costs computed by hand.
func TestFitSingleHand(t *testing.T) {
	md := &Modeler{Exponents: []Exponent{{1, 1, 0}}}
	pts := func(ys ...float64) []Point {
		var out []Point
		for i, y := range ys {
			out = append(out, Point{X: []float64{float64(i + 1)}, Values: []float64{y}})
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		ys       []float64
		constant bool
		c0, c1   float64
		smape    float64
		rss      float64
		ar2      float64
	}{
		// mean 2; SMAPE (1/3·2 + 1/5·2 + 0)/3·100; the linear
		// hypothesis's leave-one-out SMAPE is (1.2 + 0.6667 + 0.8571)/3·100
		// = 90.8, so the constant wins.
		{name: "constant wins", ys: []float64{1, 3, 2}, constant: true, c0: 2, smape: (2.0/3 + 2.0/5) / 3 * 100, rss: 2, ar2: 1},
		// Leave out x=1: y = 2.5x - 1, predicts 1.5; x=2: y = 2.25x - 0.25,
		// predicts 4.25; x=3: y = 2x, predicts 6. SMAPE (0.5/3.5·2 +
		// 0.25/8.25·2 + 0.5/12.5·2)/3·100, RSS 0.25 + 0.0625 + 0.25; all
		// points: slope 4.5/2, c0 = 25/6 - 4.5; AR2 = 1 - RSS/TSS·2/1 with
		// TSS = (13/6)² + (1/6)² + (14/6)².
		{name: "linear wins", ys: []float64{2, 4, 6.5}, c0: 25.0/6 - 4.5, c1: 2.25,
			smape: (0.5/3.5*2 + 0.25/8.25*2 + 0.5/12.5*2) / 3 * 100, rss: 0.5625,
			ar2: 1 - 0.5625/((169.0+1+196)/36)*2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := md.Fit([]string{"p"}, pts(tc.ys...))
			if err != nil {
				t.Fatal(err)
			}
			if m.IsConstant() != tc.constant {
				t.Fatalf("model %s: constant = %v, want %v", m, m.IsConstant(), tc.constant)
			}
			if !closeTo(m.Constant, tc.c0, 1e-9) || (!tc.constant && !closeTo(m.Terms[0].Coefficient, tc.c1, 1e-9)) {
				t.Errorf("model %s, want c0 %g c1 %g", m, tc.c0, tc.c1)
			}
			if !closeTo(m.SMAPE, tc.smape, 1e-9) || !closeTo(m.RSS, tc.rss, 1e-9) || !closeTo(m.AR2, tc.ar2, 1e-9) {
				t.Errorf("SMAPE %g RSS %g AR2 %g, want %g %g %g", m.SMAPE, m.RSS, m.AR2, tc.smape, tc.rss, tc.ar2)
			}
		})
	}
}

func TestFitExact(t *testing.T) {
	md := &Modeler{}
	ps := []float64{2, 4, 8, 16, 32, 64}
	for _, tc := range []struct {
		name string
		e    Exponent
		c0   float64
		c1   float64
	}{
		{"p log p", Exponent{1, 1, 1}, 3, 0.5},
		{"sqrt p", Exponent{1, 2, 0}, 10, 2},
		{"p^2", Exponent{2, 1, 0}, 1, 0.01},
		{"log^2 p", Exponent{0, 1, 2}, 5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pts []Point
			for _, p := range ps {
				pts = append(pts, Point{X: []float64{p}, Values: []float64{tc.c0 + tc.c1*tc.e.eval(p)}})
			}
			m, err := md.Fit([]string{"p"}, pts)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Terms) != 1 || m.Terms[0].Factors[0].Exp != tc.e || !closeTo(m.Constant, tc.c0, 1e-9) || !closeTo(m.Terms[0].Coefficient, tc.c1, 1e-9) {
				t.Errorf("model %s, want %g + %g·%s", m, tc.c0, tc.c1, tc.e.Format("p"))
			}
			if v := m.Eval([]float64{1024}); !closeTo(v, tc.c0+tc.c1*tc.e.eval(1024), 1e-9) {
				t.Errorf("Eval(1024) = %g", v)
			}
		})
	}
	// Constant data: the constant model, exactly.
	m, err := md.Fit([]string{"p"}, []Point{{X: []float64{1}, Values: []float64{4, 4}}, {X: []float64{2}, Values: []float64{4}}, {X: []float64{4}, Values: []float64{4}}})
	if err != nil || !m.IsConstant() || m.Constant != 4 || m.RSS != 0 {
		t.Errorf("constant data: %v %v", m, err)
	}
}

func TestMeasureMedian(t *testing.T) {
	md := &Modeler{Median: true}
	if v := md.measure([]float64{5, 1, 100}); v != 5 {
		t.Errorf("median = %g, want 5", v)
	}
	if v := (&Modeler{}).measure([]float64{5, 1, 100, 2}); v != 27 {
		t.Errorf("mean = %g, want 27", v)
	}
}
