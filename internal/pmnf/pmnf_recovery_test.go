package pmnf

import (
	"os"
	"strconv"
	"testing"
)

// designs are the measurement designs both the recovery test and the
// Extra-P comparison use. The Extra-P search space holds neighbours as
// close as p^(3/4) and p^(4/5), which a few percent of noise cannot
// separate on a handful of points; the near figure (lead-order polynomial
// exponent within 1/4) is reported beside the exact one. Besides the
// short designs (6 values of p, a 5×5 grid) there are the ones a user
// who wants the exponents would measure: p in powers of two up to 4,096,
// and 7 values of each parameter.
//
// The "documented" designs follow the synthetic evaluation of the Extra-P
// authors' sparse modeler (Ritter et al., "Learning Cost-Effective
// Sampling Strategies for Empirical Performance Modeling", IPDPS 2020;
// its extended evaluation, extended_evaluation.pdf in
// github.com/anonymous117/paper, §2): exponents drawn from I = {0,1,2,3}
// and J = {0,1,2} rather than the whole search space, x = 4, 8, 16, 32, 64
// and y = 10, 20, 30, 40, 50, every measurement multiplied by 1 + v·n with
// v uniform in [−1, 1] (the noise model generate uses), repetitions
// averaged as Extra-P does. (i, j) = (0, 0) is left out (a second
// constant) and so is (3, 2), which Extra-P 4.2's search space lacks.
// That evaluation counts "identical" models and ones with only the
// lead-order term right; at ±5 % noise and 4 repetitions it reports 76.5 %
// identical functions for one parameter (5 points) and 56.5 % identical
// plus 10.7 % lead-order-only for two parameters on the 5×5 grid (§4.1,
// §4.2). Extra-P 4.2.5 recovers 81.7 % and 54.0 % exactly on these two
// designs at 1–5 % noise (TestAgainstExtraP with PERFKB_EXTRAP_FULL=1):
// the documented methodology does not give 95 % exact recovery either.
var designs = []struct {
	design
	wantExact, wantNear float64 // percent, asserted for perfkb's default (Extra-P's) selection
	repExact, repNear   float64 // the same for SelectRepetitions
	// extrap: whether TestAgainstExtraP models this design with Extra-P
	// too (Extra-P takes about half a CPU-minute per design): 0 no, 1 yes,
	// 2 only with PERFKB_EXTRAP_FULL set (the longer and the documented
	// designs).
	extrap int
}{
	{design{"one parameter, 1% noise, p=2..64", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64}}, 0.01, 0.01, 300, nil}, 96, 99, 96, 99, 0},
	{design{"one parameter, 1-5% noise, p=2..64", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64}}, 0.01, 0.05, 300, nil}, 85, 95, 89, 95, 1},
	{design{"one parameter, 1-5% noise, p=2..512", []string{"p"}, [][]float64{{2, 4, 8, 16, 32, 64, 128, 256, 512}}, 0.01, 0.05, 300, nil}, 88, 97, 90, 97, 0},
	{design{"one parameter, 1-5% noise, p=2..4096", []string{"p"}, [][]float64{pow2(1, 12)}, 0.01, 0.05, 300, nil}, 92, 99, 91, 99, 2},
	{design{"two parameters, 1% noise, 5x5", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.01, 200, nil}, 88, 97, 94, 99, 0},
	{design{"two parameters, 1-5% noise, 5x5", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.05, 200, nil}, 62, 90, 82, 95, 1},
	{design{"two parameters, 1-5% noise, 7x7 (2..128 each)", []string{"p", "n"}, [][]float64{pow2(1, 7), pow2(1, 7)}, 0.01, 0.05, 200, nil}, 80, 95, 90, 96, 2},
	{design{"documented one parameter, 1-5% noise, x=4..64", []string{"x"}, [][]float64{{4, 8, 16, 32, 64}}, 0.01, 0.05, 300, documentedExponents}, 78, 92, 80, 92, 2},
	{design{"documented two parameters, 1-5% noise, 5x5", []string{"x", "y"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 30, 40, 50}}, 0.01, 0.05, 200, documentedExponents}, 51, 69, 70, 81, 2},
}

// documentedExponents is I × J of the documented designs, in
// DefaultExponents' notation.
var documentedExponents = []Exponent{{0, 1, 1}, {0, 1, 2}, {1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {2, 1, 0}, {2, 1, 1}, {2, 1, 2}, {3, 1, 0}, {3, 1, 1}}

// pow2 lists 2^a .. 2^b.
func pow2(a, b int) []float64 {
	var out []float64
	for k := a; k <= b; k++ {
		out = append(out, float64(int(1)<<k))
	}
	return out
}

const synthSeed = 20261127

// seed is the generator's seed: synthSeed, or PERFKB_SYNTH_SEED to
// measure on series the floors were not read from (held out); held is
// whether it is such a seed.
func seed(t *testing.T) (s uint64, held bool) {
	v := os.Getenv("PERFKB_SYNTH_SEED")
	if v == "" {
		return synthSeed, false
	}
	s, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("PERFKB_SYNTH_SEED=%q: %v", v, err)
	}
	return s, true
}

// TestRecoverGeneratingExponents fits the synthetic series of every design
// with both selections and counts the call paths whose generating
// exponents the model has. The floors are the figures measured on
// synthSeed, rounded down by about three points; with PERFKB_SYNTH_SEED
// (held-out series) the figures are printed, not checked.
func TestRecoverGeneratingExponents(t *testing.T) {
	s, held := seed(t)
	for _, tc := range designs {
		t.Run(tc.name, func(t *testing.T) {
			cases := generate(s, tc.design)
			for _, sel := range []struct {
				name              string
				md                *Modeler
				wantExact, wantNr float64
			}{
				{"Extra-P selection", &Modeler{}, tc.wantExact, tc.wantNear},
				{"SelectRepetitions", &Modeler{Select: SelectRepetitions}, tc.repExact, tc.repNear},
			} {
				var r recovery
				for i, m := range fitAll(t, sel.md, tc.design, cases) {
					r.add(m, cases[i].want)
				}
				exact, near := r.pct()
				t.Logf("%s, seed %d, %s: %d functions, 5 repetitions: exact exponents %.1f%%, lead-order polynomial exponent within 1/4 %.1f%%",
					tc.name, s, sel.name, r.n, exact, near)
				if !held && (exact < sel.wantExact || near < sel.wantNr) {
					t.Errorf("%s: recovered %.1f%% exactly (want >= %.0f%%), %.1f%% within 1/4 (want >= %.0f%%)", sel.name, exact, sel.wantExact, near, sel.wantNr)
				}
			}
		})
	}
}
