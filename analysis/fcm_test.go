package analysis

import (
	"math"
	"testing"
)

// TestFuzzyCMeansHand checks the 2-cluster case of points 0, 1, 9, 10 (m =
// 2) against hand computation.
func TestFuzzyCMeansHand(t *testing.T) {
	pts := [][]float64{{0}, {1}, {9}, {10}}
	// One round from centers 0 and 10: point 0 and 10 sit on a center
	// (membership 1); point 1: d² = 1 and 81, u = 1/(1 + 1/81) = 81/82;
	// point 9 mirrors it. New center 1: Σu²x/Σu² =
	// (1·0 + (81/82)²·1 + (1/82)²·9 + 0·10) / (1 + (81/82)² + (1/82)²).
	u, c, err := FuzzyCMeans(pts, 2, 2, 0, 1, [][]float64{{0}, {10}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := 81.0/82, 1.0/82
	wantC := (a*a + b*b*9) / (1 + a*a + b*b)
	if math.Abs(u[1][0]-a) > 1e-12 || math.Abs(u[1][1]-b) > 1e-12 || u[0][0] != 1 || u[3][1] != 1 {
		t.Errorf("memberships after one round %v", u)
	}
	if math.Abs(c[0][0]-wantC) > 1e-12 || math.Abs(c[1][0]-(10-wantC)) > 1e-12 {
		t.Errorf("centers after one round %v, want %g and %g", c, wantC, 10-wantC)
	}
	// Converged: by symmetry the centers are x and 10 − x, where x solves
	// x = (u0²·0 + u1²·1 + v1²·9 + v0²·10) / (u0² + u1² + v1² + v0²) with
	// u_p = 1/(1 + ((p−x)/(10−x−p))²) for point p's membership in the
	// first cluster and v_p = 1 − u_p; bisection on that equation, written
	// out here independently of FuzzyCMeans, gives x.
	f := func(x float64) float64 {
		num, den := 0.0, 0.0
		for _, p := range []float64{0, 1, 9, 10} {
			d1, d2 := (p-x)*(p-x), (p-(10-x))*(p-(10-x))
			up := d2 / (d1 + d2)
			num += up * up * p
			den += up * up
		}
		return num/den - x
	}
	lo, hi := 0.0, 2.0 // f(0) > 0, f(2) < 0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	u, c, err = FuzzyCMeans(pts, 2, 2, 1e-12, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	lowC, highC := min(c[0][0], c[1][0]), max(c[0][0], c[1][0])
	if math.Abs(lowC-lo) > 1e-6 || math.Abs(highC-(10-lo)) > 1e-6 {
		t.Errorf("converged centers %v, want %g and %g", c, lo, 10-lo)
	}
	for j, row := range u {
		if s := row[0] + row[1]; math.Abs(s-1) > 1e-12 {
			t.Errorf("point %d memberships sum to %g", j, s)
		}
	}
	if _, _, err := FuzzyCMeans(pts, 5, 2, 0.01, 10, nil); err == nil {
		t.Error("5 clusters of 4 points accepted")
	}
	if _, _, err := FuzzyCMeans(pts, 2, 1, 0.01, 10, nil); err == nil {
		t.Error("fuzziness 1 accepted")
	}
}
