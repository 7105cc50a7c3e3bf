package pmnf

import "math"

// lstsqSVD solves min ‖a·x − b‖ for a row-major n×k matrix a the way
// numpy.linalg.lstsq does, which is how Extra-P fits a hypothesis'
// coefficients: singular values at or below rcond times the largest are
// treated as zero and the minimum-norm solution over the rest is returned,
// with the rank that leaves. rcond < 0 is numpy's rcond=-1 (LAPACK's
// machine precision, 2⁻⁵³); rcond = 0 is numpy's default rcond=None,
// machine epsilon times max(n, k). The cut matters where the columns'
// scales differ by more than about 10¹⁴ (a constant beside
// p^3·n^3 over p, n up to thousands): the constant's direction is then
// dropped, as numpy drops it, rather than solved for. a and b are not
// modified.
//
// The singular value decomposition is one-sided Jacobi (Hestenes) on a
// copy of a: k is at most a handful of columns here.
func lstsqSVD(a, b []float64, n, k int, rcond float64) (x []float64, rank int) {
	switch {
	case rcond < 0:
		rcond = 0x1p-53
	case rcond == 0:
		rcond = 0x1p-52 * float64(max(n, k))
	}
	u := make([]float64, n*k)
	copy(u, a[:n*k])
	v := make([]float64, k*k)
	for i := 0; i < k; i++ {
		v[i*k+i] = 1
	}
	const eps = 0x1p-52
	for sweep := 0; sweep < 60; sweep++ {
		rotated := false
		for i := 0; i < k-1; i++ {
			for j := i + 1; j < k; j++ {
				var alpha, beta, gamma float64
				for r := 0; r < n; r++ {
					ui, uj := u[r*k+i], u[r*k+j]
					alpha += ui * ui
					beta += uj * uj
					gamma += ui * uj
				}
				if gamma == 0 || math.Abs(gamma) <= eps*math.Sqrt(alpha)*math.Sqrt(beta) {
					continue
				}
				rotated = true
				zeta := (beta - alpha) / (2 * gamma)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				c := 1 / math.Sqrt(1+t*t)
				s := c * t
				for r := 0; r < n; r++ {
					ui, uj := u[r*k+i], u[r*k+j]
					u[r*k+i] = c*ui - s*uj
					u[r*k+j] = s*ui + c*uj
				}
				for r := 0; r < k; r++ {
					vi, vj := v[r*k+i], v[r*k+j]
					v[r*k+i] = c*vi - s*vj
					v[r*k+j] = s*vi + c*vj
				}
			}
		}
		if !rotated {
			break
		}
	}
	sigma := make([]float64, k)
	smax := 0.0
	for j := 0; j < k; j++ {
		s := 0.0
		for r := 0; r < n; r++ {
			s = math.Hypot(s, u[r*k+j])
		}
		sigma[j] = s
		smax = max(smax, s)
	}
	x = make([]float64, k)
	for j := 0; j < k; j++ {
		if !(sigma[j] > rcond*smax) {
			continue
		}
		rank++
		// u_j·b / σ_j² with u_j the unnormalised column: (σ_j·û_j)·b/σ_j².
		ub := 0.0
		for r := 0; r < n; r++ {
			ub += u[r*k+j] * b[r]
		}
		w := ub / (sigma[j] * sigma[j])
		for r := 0; r < k; r++ {
			x[r] += w * v[r*k+j]
		}
	}
	return x, rank
}
