package pmnf

import "testing"

// designs are the measurement designs both the recovery test and the
// Extra-P comparison use. The Extra-P search space holds neighbours as
// close as p^(3/4) and p^(4/5), which a few percent of noise cannot
// separate on a handful of points; the near figure (lead-order polynomial
// exponent within 1/4) is reported beside the exact one.
var designs = []struct {
	design
	wantExact, wantNear float64 // percent, asserted for perfkb
}{
	{design{"one parameter, 1% noise, p=2..64", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64}}, 0.01, 0.01, 300}, 96, 99},
	{design{"one parameter, 1-5% noise, p=2..64", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64}}, 0.01, 0.05, 300}, 85, 95},
	{design{"one parameter, 1-5% noise, p=2..512", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64, 128, 256, 512}}, 0.01, 0.05, 300}, 88, 97},
	{design{"two parameters, 1% noise, 5x5", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.01, 200}, 88, 97},
	{design{"two parameters, 1-5% noise, 5x5", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.05, 200}, 62, 85},
}

const synthSeed = 20261127

// TestRecoverGeneratingExponents fits the synthetic series of every design
// and counts the call paths whose generating exponents the model has.
func TestRecoverGeneratingExponents(t *testing.T) {
	for _, tc := range designs {
		t.Run(tc.name, func(t *testing.T) {
			cases := generate(synthSeed, tc.design)
			var r recovery
			for i, m := range fitAll(t, &Modeler{}, tc.design, cases) {
				r.add(m, cases[i].want)
			}
			exact, near := r.pct()
			t.Logf("%s: %d functions, 5 repetitions: exact exponents %.1f%%, lead-order polynomial exponent within 1/4 %.1f%%", tc.name, r.n, exact, near)
			if exact < tc.wantExact || near < tc.wantNear {
				t.Errorf("recovered %.1f%% exactly (want >= %.0f%%), %.1f%% within 1/4 (want >= %.0f%%)", exact, tc.wantExact, near, tc.wantNear)
			}
		})
	}
}
