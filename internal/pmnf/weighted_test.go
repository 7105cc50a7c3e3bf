package pmnf

import (
	"math"
	"reflect"
	"testing"
)

// reps returns 4 repetitions whose mean is exactly v and whose relative
// spread is s: v·(1−s), v·(1+s), v·(1−s/2), v·(1+s/2).
func reps(v, s float64) []float64 {
	return []float64{v * (1 - s), v * (1 + s), v * (1 - s/2), v * (1 + s/2)}
}

// TestSelectRepetitionsExact fits series whose means are exactly a PMNF
// function (the repetitions spread around them differently at each point):
// the generating hypothesis fits with χ² = 0 and must win with its
// coefficients.
func TestSelectRepetitionsExact(t *testing.T) {
	ps := []float64{2, 4, 8, 16, 32, 64}
	ns := []float64{10, 20, 40, 80, 160}
	for _, tc := range []struct {
		name   string
		params []string
		f      func(x []float64) float64
		want   *Model
	}{
		{"3 + 2·p^(1/2)·log2(p)", []string{"p"}, func(x []float64) float64 { return 3 + 2*math.Sqrt(x[0])*math.Log2(x[0]) },
			&Model{Constant: 3, Terms: []Term{{2, []Factor{{0, Exponent{1, 2, 1}}}}}}},
		{"40 + 0.01·p^3", []string{"p"}, func(x []float64) float64 { return 40 + 0.01*x[0]*x[0]*x[0] },
			&Model{Constant: 40, Terms: []Term{{0.01, []Factor{{0, Exponent{3, 1, 0}}}}}}},
		{"5 + 0.5·p·n^(1/2)", []string{"p", "n"}, func(x []float64) float64 { return 5 + 0.5*x[0]*math.Sqrt(x[1]) },
			&Model{Constant: 5, Terms: []Term{{0.5, []Factor{{0, Exponent{1, 1, 0}}, {1, Exponent{1, 2, 0}}}}}}},
		{"5 + 2·p^(1/3) + 0.1·n^2", []string{"p", "n"}, func(x []float64) float64 { return 5 + 2*math.Cbrt(x[0]) + 0.1*x[1]*x[1] },
			&Model{Constant: 5, Terms: []Term{{2, []Factor{{0, Exponent{1, 3, 0}}}}, {0.1, []Factor{{1, Exponent{2, 1, 0}}}}}}},
		{"1 + 3·n·log2(n) + 0.2·p^(1/4)·n·log2(n)", []string{"p", "n"},
			func(x []float64) float64 {
				return 1 + 3*x[1]*math.Log2(x[1]) + 0.2*math.Pow(x[0], 0.25)*x[1]*math.Log2(x[1])
			},
			&Model{Constant: 1, Terms: []Term{{3, []Factor{{1, Exponent{1, 1, 1}}}}, {0.2, []Factor{{0, Exponent{1, 4, 0}}, {1, Exponent{1, 1, 1}}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pts []Point
			k := 0
			for _, p := range ps {
				if len(tc.params) == 1 {
					pts = append(pts, Point{X: []float64{p}, Values: reps(tc.f([]float64{p}), 0.01+0.005*float64(k%4))})
					k++
					continue
				}
				for _, n := range ns {
					x := []float64{p, n}
					pts = append(pts, Point{X: x, Values: reps(tc.f(x), 0.01+0.005*float64(k%4))})
					k++
				}
			}
			m, err := (&Modeler{Select: SelectRepetitions}).Fit(tc.params, pts)
			if err != nil {
				t.Fatal(err)
			}
			if hyp, coefs := sameModel(m, tc.want, 1, 1e-6); !hyp || !coefs {
				tc.want.Params = tc.params
				t.Errorf("got %s, want %s", m, tc.want)
			}
		})
	}
}

// TestSelectRepetitionsWeights checks the weighting on three points with
// the search space cut to the linear term, against weighted least squares
// and χ² computed in closed form: weights r/ȳ² (the pooled variance only
// scales χ²), BIC = χ² + k·ln 3.
func TestSelectRepetitionsWeights(t *testing.T) {
	// Means 1, 3, 2.2 at x = 1, 2, 3, two repetitions each.
	pts := []Point{
		{X: []float64{1}, Values: []float64{0.9, 1.1}},
		{X: []float64{2}, Values: []float64{2.7, 3.3}},
		{X: []float64{3}, Values: []float64{2.09, 2.31}},
	}
	xs, ys := []float64{1, 2, 3}, []float64{1, 3, 2.2}
	// Pooled relative variance: Σ squared deviations / ȳ² over the
	// points, divided by the 3 degrees of freedom.
	cv2 := (0.02/1 + 0.18/9 + 2*0.11*0.11/(2.2*2.2)) / 3
	w := make([]float64, 3)
	var sw, swx, swy float64
	for i := range w {
		w[i] = 2 / (ys[i] * ys[i]) / cv2
		sw += w[i]
		swx += w[i] * xs[i]
		swy += w[i] * ys[i]
	}
	mx, my := swx/sw, swy/sw
	var sxx, sxy float64
	for i := range w {
		sxx += w[i] * (xs[i] - mx) * (xs[i] - mx)
		sxy += w[i] * (xs[i] - mx) * (ys[i] - my)
	}
	c1 := sxy / sxx
	c0 := my - c1*mx
	chiLin, chiConst := 0.0, 0.0
	for i := range w {
		d := ys[i] - c0 - c1*xs[i]
		chiLin += w[i] * d * d
		chiConst += w[i] * (ys[i] - my) * (ys[i] - my)
	}
	linWins := chiLin+2*math.Log(3) < chiConst+math.Log(3)
	t.Logf("weighted fit %.6g + %.6g·p: BIC %.4g (linear), %.4g (constant %.6g)", c0, c1, chiLin+2*math.Log(3), chiConst+math.Log(3), my)
	m, err := (&Modeler{Select: SelectRepetitions, Exponents: []Exponent{{1, 1, 0}}}).Fit([]string{"p"}, pts)
	if err != nil {
		t.Fatal(err)
	}
	if linWins {
		if len(m.Terms) != 1 || !closeTo(m.Constant, c0, 1e-12) || !closeTo(m.Terms[0].Coefficient, c1, 1e-12) {
			t.Errorf("got %s, want %.15g + %.15g·p", m, c0, c1)
		}
	} else if !m.IsConstant() || !closeTo(m.Constant, my, 1e-12) {
		t.Errorf("got %s, want the constant %.15g", m, my)
	}
	// The unweighted fit differs (slope 0.6): the weighting is what is
	// being checked.
	if closeTo(c1, 0.6, 1e-3) {
		t.Fatalf("weighted slope %g equals the unweighted one: the case does not test the weights", c1)
	}
}

// TestSelectRepetitionsFallback: without a spread to weight by (one
// repetition, or identical repetitions), the selection is Extra-P's.
func TestSelectRepetitionsFallback(t *testing.T) {
	for _, r := range []int{1, 2} {
		var pts []Point
		for i, p := range []float64{2, 4, 8, 16, 32} {
			v := make([]float64, r)
			for j := range v {
				v[j] = 7 + 0.3*p + float64(i%2)*0.1
			}
			pts = append(pts, Point{X: []float64{p}, Values: v})
		}
		got, err := (&Modeler{Select: SelectRepetitions}).Fit([]string{"p"}, pts)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := (&Modeler{}).Fit([]string{"p"}, pts)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d repetitions: got %s, want Extra-P's selection %s", r, got, want)
		}
	}
}
