package fuzzy

import "math"

// Triangle is the triangular function of F.3,
// max(min((x-a)/(b-a), (c-x)/(c-b)), 0): 0 outside (a, c), 1 at b.
func Triangle(x, a, b, c float64) float64 {
	if !(a <= b && b <= c) {
		return math.NaN()
	}
	return clamp(math.Min(rise(x, a, b), fall(x, b, c)))
}

// Trapezoid is the trapezoidal function of F.4,
// max(min((x-a)/(b-a), 1, (d-x)/(d-c)), 0): 1 on [b, c], 0 outside (a, d).
func Trapezoid(x, a, b, c, d float64) float64 {
	if !(a <= b && b <= c && c <= d) {
		return math.NaN()
	}
	return clamp(math.Min(math.Min(rise(x, a, b), 1), fall(x, c, d)))
}

// ShoulderLeft is ABLE's Shoulder(a, b, Left): 1 for x <= a, falling
// linearly to 0 at b, 0 beyond (Fig. 6.7's VERYLOW = Shoulder(0, 1, Left)).
func ShoulderLeft(x, a, b float64) float64 {
	if !(a <= b) {
		return math.NaN()
	}
	return clamp(fall(x, a, b))
}

// ShoulderRight is ABLE's Shoulder(a, b, Right): 0 for x <= a, rising
// linearly to 1 at b, 1 beyond (Fig. 6.7's VERYHIGH = Shoulder(4, 5, Right)).
func ShoulderRight(x, a, b float64) float64 {
	if !(a <= b) {
		return math.NaN()
	}
	return clamp(rise(x, a, b))
}

// S is the S-function of F.7: 0 up to a, 2((x-a)/(b-a))² up to the
// midpoint, 1-2((b-x)/(b-a))² up to b, 1 from b on.
func S(x, a, b float64) float64 {
	switch {
	case !(a <= b):
		return math.NaN()
	case x >= b:
		return 1
	case x <= a:
		return 0
	case x <= (a+b)/2:
		r := (x - a) / (b - a)
		return 2 * r * r
	default:
		r := (b - x) / (b - a)
		return 1 - 2*r*r
	}
}

// Z is the Z-function of F.8, the mirror image of S: 1 up to a,
// 1-2((x-a)/(b-a))² up to the midpoint, 2((b-x)/(b-a))² up to b, 0 from b on.
func Z(x, a, b float64) float64 {
	s := S(x, a, b)
	if math.IsNaN(s) {
		return s
	}
	return 1 - s
}

// Bell is the generalized bell function of F.5, 1/(1+|(x-c)/a|^(2b)).
func Bell(x, a, b, c float64) float64 {
	if a == 0 {
		return math.NaN()
	}
	return 1 / (1 + math.Pow(math.Abs((x-c)/a), 2*b))
}

// Sigmoid is the sigmoid function of F.6, 1/(1+e^(-a(x-c))).
func Sigmoid(x, a, c float64) float64 {
	return 1 / (1 + math.Exp(-a*(x-c)))
}

// Gaussian is the symmetric Gaussian function of F.9, e^(-(x-c)²/(2σ²)).
func Gaussian(x, sigma, c float64) float64 {
	if sigma == 0 {
		return math.NaN()
	}
	d := x - c
	return math.Exp(-d * d / (2 * sigma * sigma))
}

// And is fuzzy intersection (F.10), the minimum of the degrees.
func And(mu1, mu2 float64) float64 { return math.Min(mu1, mu2) }

// Or is fuzzy union (F.11), the maximum of the degrees.
func Or(mu1, mu2 float64) float64 { return math.Max(mu1, mu2) }

// Not is the fuzzy complement (F.12), 1 - mu.
func Not(mu float64) float64 { return 1 - mu }

// Very is the modifier (hedge) "very" of F.14, mu². It is the only hedge
// Appendix F gives a formula for (F.13 defines a hedge as any f(mu)).
func Very(mu float64) float64 { return mu * mu }

// rise is the left edge (x-a)/(b-a), unbounded; a vertical edge (a == b)
// is a step that is 1 from a on.
func rise(x, a, b float64) float64 {
	if a == b {
		if x >= a {
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return (x - a) / (b - a)
}

// fall is the right edge (b-x)/(b-a), unbounded; a vertical edge is a step
// that is 1 up to b.
func fall(x, a, b float64) float64 {
	if a == b {
		if x <= b {
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return (b - x) / (b - a)
}

func clamp(v float64) float64 {
	switch {
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}
