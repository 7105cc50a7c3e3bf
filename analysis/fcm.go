package analysis

import (
	"errors"
	"math"
)

// FuzzyCMeans clusters points (performance score vectors of region
// summaries, 5.6.11.1) into c fuzzy clusters by minimizing
// J = Σ_i Σ_j u_ij^m · ‖s_j − c_i‖² (Eq. 5.21, 5.22) with Bezdek's
// alternating updates, until the largest change of a membership is at most
// eps (Eq. 5.23) or after maxIter rounds. init gives the c starting
// centers; nil starts from c of the points chosen farthest-first from the
// first. It returns the membership matrix (u[j][i]: point j in cluster i;
// each row sums to 1) and the centers.
func FuzzyCMeans(points [][]float64, c int, m, eps float64, maxIter int, init [][]float64) (u, centers [][]float64, err error) {
	n := len(points)
	switch {
	case c < 1 || n < c:
		return nil, nil, errors.New("analysis: fuzzy c-means: need at least c points and c >= 1")
	case m <= 1:
		return nil, nil, errors.New("analysis: fuzzy c-means: the fuzziness m must be above 1")
	}
	dim := len(points[0])
	centers = make([][]float64, c)
	if init != nil {
		if len(init) != c {
			return nil, nil, errors.New("analysis: fuzzy c-means: init needs c centers")
		}
		for i := range init {
			centers[i] = append([]float64{}, init[i]...)
		}
	} else {
		centers[0] = append([]float64{}, points[0]...)
		for i := 1; i < c; i++ {
			best, bestD := 0, -1.0
			for j, p := range points {
				d := math.Inf(1)
				for _, ct := range centers[:i] {
					d = min(d, dist2(p, ct))
				}
				if d > bestD {
					best, bestD = j, d
				}
			}
			centers[i] = append([]float64{}, points[best]...)
		}
	}
	u = make([][]float64, n)
	for j := range u {
		u[j] = make([]float64, c)
	}
	next := make([]float64, c)
	for iter := 0; iter < maxIter; iter++ {
		delta := 0.0
		for j, p := range points {
			memberships(p, centers, m, next)
			for i := range next {
				delta = max(delta, math.Abs(next[i]-u[j][i]))
				u[j][i] = next[i]
			}
		}
		for i := range centers {
			num := make([]float64, dim)
			den := 0.0
			for j, p := range points {
				w := math.Pow(u[j][i], m)
				den += w
				for k := range num {
					num[k] += w * p[k]
				}
			}
			if den > 0 {
				for k := range num {
					centers[i][k] = num[k] / den
				}
			}
		}
		if iter > 0 && delta <= eps {
			break
		}
	}
	return u, centers, nil
}

// memberships is u_i = 1 / Σ_k (d_i/d_k)^(2/(m−1)); a point on a center
// belongs to it (shared equally among coinciding centers).
func memberships(p []float64, centers [][]float64, m float64, out []float64) {
	zero := 0
	for i, ct := range centers {
		out[i] = dist2(p, ct)
		if out[i] == 0 {
			zero++
		}
	}
	if zero > 0 {
		for i := range out {
			if out[i] == 0 {
				out[i] = 1 / float64(zero)
			} else {
				out[i] = 0
			}
		}
		return
	}
	e := 1 / (m - 1) // on squared distances: (d²)^(1/(m−1)) = d^(2/(m−1))
	d := append([]float64{}, out...)
	for i := range out {
		s := 0.0
		for k := range d {
			s += math.Pow(d[i]/d[k], e)
		}
		out[i] = 1 / s
	}
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}
