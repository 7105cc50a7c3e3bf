package pmnf

import "testing"

// designs are the measurement designs both the recovery test and the
// Extra-P comparison use. The Extra-P search space holds neighbours as
// close as p^(3/4) and p^(4/5), which a few percent of noise cannot
// separate on a handful of points; the near figure (lead-order polynomial
// exponent within 1/4) is reported beside the exact one. Besides the
// short designs (6 values of p, a 5×5 grid) there are the ones a user
// who wants the exponents would measure: p in powers of two up to 4,096,
// and 7 values of each parameter.
var designs = []struct {
	design
	wantExact, wantNear float64 // percent, asserted for perfkb
	// extrap: whether TestAgainstExtraP models this design with Extra-P
	// too (Extra-P takes about half a CPU-minute per design): 0 no, 1 yes,
	// 2 only with PERFKB_EXTRAP_FULL set (the longer designs).
	extrap int
}{
	{design{"one parameter, 1% noise, p=2..64", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64}}, 0.01, 0.01, 300}, 96, 99, 0},
	{design{"one parameter, 1-5% noise, p=2..64", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64}}, 0.01, 0.05, 300}, 85, 95, 1},
	{design{"one parameter, 1-5% noise, p=2..512", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64, 128, 256, 512}}, 0.01, 0.05, 300}, 88, 97, 0},
	{design{"one parameter, 1-5% noise, p=2..4096", []string{"p"}, [][]float64{pow2(1, 12)}, 0.01, 0.05, 300}, 92, 99, 2},
	{design{"two parameters, 1% noise, 5x5", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.01, 200}, 88, 97, 0},
	{design{"two parameters, 1-5% noise, 5x5", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.05, 200}, 62, 90, 1},
	{design{"two parameters, 1-5% noise, 7x7 (2..128 each)", []string{"p", "n"}, [][]float64{pow2(1, 7), pow2(1, 7)}, 0.01, 0.05, 200}, 80, 95, 2},
}

// pow2 lists 2^a .. 2^b.
func pow2(a, b int) []float64 {
	var out []float64
	for k := a; k <= b; k++ {
		out = append(out, float64(int(1)<<k))
	}
	return out
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
