package pmnf

import "testing"

func TestFormulaRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		m    *Model
		text string
		x    []float64
		want float64 // hand-computed value at x
	}{
		{&Model{Params: []string{"p"}, Constant: 2, Terms: []Term{{Coefficient: 0.5, Factors: []Factor{{0, Exponent{1, 1, 1}}}}}},
			"f(p) = 2 + 0.5*p^(1)*log2(p)^(1)", []float64{16}, 2 + 0.5*16*4},
		{&Model{Params: []string{"p"}, Constant: -1.25, Terms: []Term{{Coefficient: 8, Factors: []Factor{{0, Exponent{-1, 2, 0}}}}}},
			"f(p) = -1.25 + 8*p^(-1/2)", []float64{64}, -1.25 + 8.0/8},
		{&Model{Params: []string{"p"}, Constant: 3, Terms: []Term{{Coefficient: 1, Factors: []Factor{{0, Exponent{0, 1, 2}}}}}},
			"f(p) = 3 + 1*log2(p)^(2)", []float64{8}, 3 + 9},
		{&Model{Params: []string{"p", "n"}, Constant: 1, Terms: []Term{{Coefficient: 2, Factors: []Factor{{0, Exponent{1, 2, 0}}, {1, Exponent{1, 1, 0}}}}, {Coefficient: 0.1, Factors: []Factor{{1, Exponent{2, 1, 0}}}}}},
			"f(p,n) = 1 + 2*p^(1/2)*n^(1) + 0.1*n^(2)", []float64{4, 10}, 1 + 2*2*10 + 0.1*100},
	} {
		if got := tc.m.Formula(); got != tc.text {
			t.Errorf("Formula() = %q, want %q", got, tc.text)
		}
		back, err := ParseFormula(tc.text)
		if err != nil {
			t.Fatalf("ParseFormula(%q): %v", tc.text, err)
		}
		if back.Formula() != tc.text {
			t.Errorf("round trip of %q gives %q", tc.text, back.Formula())
		}
		if v := back.Eval(tc.x); v != tc.want {
			t.Errorf("%q at %v = %g, want %g", tc.text, tc.x, v, tc.want)
		}
	}
	for _, bad := range []string{"", "3 + 2*p^(1)", "f(p) = x", "f(p) = 1 + 2*q^(1)", "f(p) = 1 + 2*p^(a/b)", "f(p) = 1 + 2*p^1"} {
		if _, err := ParseFormula(bad); err == nil {
			t.Errorf("ParseFormula(%q) accepted", bad)
		}
	}
}
