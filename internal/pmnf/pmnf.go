package pmnf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Exponent is one factor's exponents in the Performance Model Normal Form:
// x^(Num/Den) · log2(x)^Log.
type Exponent struct {
	Num, Den, Log int
}

// Poly is the polynomial exponent Num/Den.
func (e Exponent) Poly() float64 {
	if e.Num == 0 {
		return 0
	}
	return float64(e.Num) / float64(e.Den)
}

// PolyString writes the polynomial exponent as Extra-P does: "1/2", "2".
func (e Exponent) PolyString() string {
	if e.Num == 0 {
		return "0"
	}
	if e.Num < 0 {
		return "-" + Exponent{-e.Num, e.Den, 0}.PolyString()
	}
	g := gcd(e.Num, e.Den)
	n, d := e.Num/g, e.Den/g
	if d == 1 {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(n) + "/" + strconv.Itoa(d)
}

func gcd(a, b int) int {
	if a < 0 {
		a = -a
	}
	for b != 0 {
		a, b = b, a%b
	}
	if a == 0 {
		return 1
	}
	return a
}

// Less orders exponents by growth: polynomial exponent first, then the
// logarithm's.
func (e Exponent) Less(o Exponent) bool {
	if e.Poly() != o.Poly() {
		return e.Poly() < o.Poly()
	}
	return e.Log < o.Log
}

func (e Exponent) eval(x float64) float64 {
	v := 1.0
	if e.Num != 0 {
		v = math.Pow(x, e.Poly())
	}
	if e.Log != 0 {
		v *= math.Pow(math.Log2(x), float64(e.Log))
	}
	return v
}

// Format writes x^(i)·log2(x)^(j) for the parameter name.
func (e Exponent) Format(param string) string {
	var parts []string
	if e.Num != 0 {
		if p := e.PolyString(); p == "1" {
			parts = append(parts, param)
		} else {
			parts = append(parts, param+"^("+p+")")
		}
	}
	if e.Log != 0 {
		if e.Log == 1 {
			parts = append(parts, "log2("+param+")")
		} else {
			parts = append(parts, "log2("+param+")^"+strconv.Itoa(e.Log))
		}
	}
	return strings.Join(parts, "·")
}

// DefaultExponents is Extra-P 4.2's default search space of
// single-parameter terms (SingleParameterModeler.create_default_building_blocks
// with log terms), in its order, which decides ties: a later hypothesis
// wins only with a strictly smaller SMAPE. The polynomial exponents are
// 0, 1/4, 1/3, 1/2, 2/3, 3/4, 4/5, 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3,
// 5/2, 8/3, 11/4, 3; log exponents 0–2 where Extra-P combines them.
var DefaultExponents = []Exponent{
	{0, 1, 1}, {0, 1, 2}, {1, 4, 0}, {1, 3, 0}, {1, 4, 1}, {1, 3, 1}, {1, 4, 2}, {1, 3, 2},
	{1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 3, 0}, {3, 4, 0}, {2, 3, 1}, {3, 4, 1}, {4, 5, 0},
	{2, 3, 2}, {3, 4, 2}, {1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {5, 4, 0}, {5, 4, 1}, {4, 3, 0},
	{4, 3, 1}, {3, 2, 0}, {3, 2, 1}, {3, 2, 2}, {5, 3, 0}, {7, 4, 0}, {2, 1, 0}, {2, 1, 1},
	{2, 1, 2}, {9, 4, 0}, {7, 3, 0}, {5, 2, 0}, {5, 2, 1}, {5, 2, 2}, {8, 3, 0}, {11, 4, 0},
	{3, 1, 0}, {3, 1, 1},
}

// NegativeExponents is what Extra-P's allow_negative_exponents option adds
// to the search space (for strong scaling, where times fall with p), in its
// order after DefaultExponents.
var NegativeExponents = []Exponent{
	{0, 1, -1}, {0, 1, -2}, {-1, 4, -1}, {-1, 3, -1}, {-1, 4, -2}, {-1, 3, -2}, {-1, 2, -1}, {-1, 2, -2},
	{-2, 3, -1}, {-3, 4, -1}, {-2, 3, -2}, {-3, 4, -2}, {-1, 1, -1}, {-1, 1, -2}, {-5, 4, -1}, {-4, 3, -1},
	{-3, 2, -1}, {-3, 2, -2}, {-2, 1, -1}, {-2, 1, -2}, {-5, 2, -1}, {-5, 2, -2}, {-3, 1, -1},
	{-1, 4, 0}, {-1, 3, 0}, {-1, 2, 0}, {-2, 3, 0}, {-3, 4, 0}, {-4, 5, 0}, {-1, 1, 0}, {-5, 4, 0},
	{-4, 3, 0}, {-3, 2, 0}, {-5, 3, 0}, {-7, 4, 0}, {-2, 1, 0}, {-9, 4, 0}, {-7, 3, 0}, {-5, 2, 0},
	{-8, 3, 0}, {-11, 4, 0}, {-3, 1, 0},
}

// Factor is one parameter's part of a PMNF term.
type Factor struct {
	Param int // index into Model.Params
	Exp   Exponent
}

// Term is one PMNF term: Coefficient · Π factors.
type Term struct {
	Coefficient float64
	Factors     []Factor
}

// Shape is the term's value at x without its coefficient.
func (t Term) Shape(x []float64) float64 {
	v := 1.0
	for _, f := range t.Factors {
		v *= f.Exp.eval(x[f.Param])
	}
	return v
}

// Model is a fitted Performance Model Normal Form function
// c0 + Σ ck · Π x_l^(i_kl) · log2(x_l)^(j_kl) with its quality measures.
type Model struct {
	Params   []string
	Constant float64
	Terms    []Term
	// SMAPE (percent), RSS and adjusted R² as Extra-P reports them: for a
	// single-parameter model with more than one term candidate, SMAPE and
	// RSS are leave-one-out cross-validated; for a constant model AR2 is 1.
	SMAPE, RSS, AR2 float64
	// Points is the number of measurement points (coordinates) fitted.
	Points int
}

// Eval evaluates the model at x (one value per parameter).
func (m *Model) Eval(x []float64) float64 {
	v := m.Constant
	for _, t := range m.Terms {
		v += t.Coefficient * t.Shape(x)
	}
	return v
}

// Constant reports whether the model has no terms.
func (m *Model) IsConstant() bool { return len(m.Terms) == 0 }

// Growth is the exponent of the fastest-growing term with a positive
// coefficient in parameter param; ok is false when no such term grows
// with it (a constant model, or only falling terms such as p^-1).
func (m *Model) Growth(param int) (e Exponent, ok bool) {
	for _, t := range m.Terms {
		if t.Coefficient <= 0 {
			continue
		}
		for _, f := range t.Factors {
			grows := f.Exp.Poly() > 0 || (f.Exp.Num == 0 && f.Exp.Log > 0)
			if f.Param == param && grows && (!ok || e.Less(f.Exp)) {
				e, ok = f.Exp, true
			}
		}
	}
	return e, ok
}

// String writes the model as Extra-P prints it, with %.4g coefficients.
func (m *Model) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatFloat(m.Constant, 'g', 4, 64))
	for _, t := range m.Terms {
		c := t.Coefficient
		if c < 0 {
			b.WriteString(" - ")
			c = -c
		} else {
			b.WriteString(" + ")
		}
		b.WriteString(strconv.FormatFloat(c, 'g', 4, 64))
		for _, f := range t.Factors {
			b.WriteString(" · ")
			b.WriteString(f.Exp.Format(m.Params[f.Param]))
		}
	}
	return b.String()
}

// Point is one measurement coordinate (one value per parameter) with the
// values of its repetitions.
type Point struct {
	X      []float64
	Values []float64
}

// Modeler fits PMNF models the way Extra-P 4.2's Basic single-parameter
// and Multi-Parameter modelers do.
type Modeler struct {
	// Exponents is the single-parameter search space; nil uses
	// DefaultExponents.
	Exponents []Exponent
	// Median aggregates repetitions by their median; Extra-P 4.2's default
	// (false) is the mean.
	Median bool
	// Negative adds NegativeExponents to the search space (Extra-P's
	// allow_negative_exponents); logarithmic terms are then used only when
	// every parameter value is above 1, as Extra-P does.
	Negative bool
	// Select is how the winning hypothesis is chosen; the zero value is
	// Extra-P's selection.
	Select Selection
}

// Selection is a rule for choosing among the hypotheses of the search
// space.
type Selection int

const (
	// SelectExtraP chooses as Extra-P 4.2 does (cross-validated SMAPE of
	// the repetitions' means for one parameter; for two, the best
	// single-parameter terms along measurement lines, combined).
	SelectExtraP Selection = iota
	// SelectRepetitions uses the spread of the repetitions: every
	// hypothesis (for two parameters every pair of exponents in each of
	// Extra-P's four combinations, fitted to all points at once) is fitted
	// by least squares weighted by the inverse variance of each point's
	// mean, and the smallest Bayesian information criterion
	// (χ² + k·ln n, k coefficients, n points) wins. The variance is
	// relative: one coefficient of variation pooled over all points
	// (timing noise scales with the time), so a point's weight is
	// r / (s²·ȳ²) for r repetitions of mean ȳ and pooled relative variance
	// s². A series with a point of fewer than two repetitions, without
	// spread, or with more than two parameters is modelled with
	// SelectExtraP.
	SelectRepetitions
)

// Extra-P's constants: a term contributing less than minTermContribution
// of the measured value at every point disqualifies its hypothesis; a
// constant coefficient smaller than cleanEpsilon of the smallest value is
// set to zero during cross-validation.
const (
	minTermContribution = 0.0005
	cleanEpsilon        = 0.0005
)

// ErrTooFewPoints is returned by Fit for fewer than two coordinates.
var ErrTooFewPoints = errors.New("too few measurement points to fit a model")

func (md *Modeler) exponents() []Exponent {
	es := DefaultExponents
	if md.Exponents != nil {
		es = md.Exponents
	}
	if md.Negative {
		es = append(slices.Clone(es), NegativeExponents...)
	}
	return es
}

func (md *Modeler) measure(vals []float64) float64 {
	if len(vals) == 0 {
		return math.NaN()
	}
	if md.Median {
		s := slices.Clone(vals)
		sort.Float64s(s)
		n := len(s)
		if n%2 == 1 {
			return s[n/2]
		}
		return (s[n/2-1] + s[n/2]) / 2
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	return sum / float64(len(vals))
}

// Fit fits a model of the points, whose X have one value per name in
// params (one or two parameters; more are modelled the same way but only
// with the additive and fully multiplicative combinations).
func (md *Modeler) Fit(params []string, points []Point) (*Model, error) {
	if len(params) == 0 {
		return nil, errors.New("analysis: fit: no parameters")
	}
	for _, p := range points {
		if len(p.X) != len(params) {
			return nil, fmt.Errorf("analysis: fit: point has %d coordinates, want %d", len(p.X), len(params))
		}
	}
	if len(points) < 2 {
		return nil, ErrTooFewPoints
	}
	xs := make([][]float64, len(points))
	ys := make([]float64, len(points))
	for i, p := range points {
		xs[i] = p.X
		ys[i] = md.measure(p.Values)
	}
	if md.Select == SelectRepetitions && len(params) <= 2 {
		if m := md.fitWeighted(xs, ys, points); m != nil {
			m.Params = params
			m.Points = len(points)
			return m, nil
		}
	}
	if len(params) == 1 {
		x1 := make([]float64, len(points))
		for i := range xs {
			x1[i] = xs[i][0]
		}
		m := md.fitSingle(x1, ys)
		m.Params = params
		m.Points = len(points)
		return m, nil
	}
	m := md.fitMulti(xs, ys)
	m.Params = params
	m.Points = len(points)
	return m, nil
}

// fitSingle is Extra-P's SingleParameterModeler.create_model with
// leave-one-out cross-validation and SMAPE comparison.
func (md *Modeler) fitSingle(xs, ys []float64) *Model {
	n := len(xs)
	mean := 0.0
	for _, y := range ys {
		mean += y
	}
	mean /= float64(n)
	best := &Model{Constant: mean, AR2: 1}
	smape := 0.0
	for _, y := range ys {
		d := mean - y
		best.RSS += d * d
		if s := math.Abs(y) + math.Abs(mean); s != 0 {
			smape += math.Abs(d) / s * 2
		}
	}
	best.SMAPE = smape / float64(n) * 100
	tss := best.RSS
	if tss == 0 {
		return best
	}
	logOK := true
	for _, x := range xs {
		if x < 1 || (md.Negative && x <= 1) {
			logOK = false
		}
	}
	shape := make([]float64, n)
	for _, e := range md.exponents() {
		if e.Log != 0 && !logOK {
			continue
		}
		for i, x := range xs {
			shape[i] = e.eval(x)
		}
		rss, sm := 0.0, 0.0
		for k := 0; k < n; k++ {
			// Train on every point but k.
			c0, c1 := line(shape, ys, k)
			minY := math.Inf(1)
			for i, y := range ys {
				if i != k {
					minY = min(minY, y)
				}
			}
			if minY == 0 {
				if math.Abs(c0) < cleanEpsilon {
					c0 = 0
				}
			} else if math.Abs(c0/minY) < cleanEpsilon {
				c0 = 0
			}
			pred := c0 + c1*shape[k]
			d := pred - ys[k]
			rss += d * d
			if s := math.Abs(ys[k]) + math.Abs(pred); s != 0 {
				sm += math.Abs(d) / s * 2 / float64(n) * 100
			}
		}
		c0, c1 := line(shape, ys, -1)
		c := [2]float64{c0, c1}
		if math.IsNaN(rss) || math.IsInf(rss, 0) {
			continue
		}
		h := &Model{Constant: c[0], Terms: []Term{{Coefficient: c[1], Factors: []Factor{{0, e}}}}, SMAPE: sm, RSS: rss}
		h.AR2 = 1 - (rss/tss)*float64(n-1)/float64(n-2)
		if !contributes(h.Terms[0].Coefficient, shape, ys) {
			continue
		}
		if h.SMAPE < best.SMAPE {
			best = h
		}
	}
	return best
}

// line fits y = c0 + c1·f by least squares over every point but skip
// (-1: all), centred for accuracy; with f constant over them c1 is 0.
func line(f, y []float64, skip int) (c0, c1 float64) {
	var mf, my float64
	n := 0
	for i := range f {
		if i != skip {
			mf += f[i]
			my += y[i]
			n++
		}
	}
	mf /= float64(n)
	my /= float64(n)
	var sxx, sxy float64
	for i := range f {
		if i != skip {
			df := f[i] - mf
			sxx += df * df
			sxy += df * (y[i] - my)
		}
	}
	if sxx > 0 {
		c1 = sxy / sxx
	}
	return my - c1*mf, c1
}

// contributes is Extra-P's term contribution test: a zero coefficient, or
// a term below minTermContribution of the value at every point, rules its
// hypothesis out. Like numpy, a NaN ratio (0/0) makes the maximum NaN,
// which passes.
func contributes(coef float64, shape, ys []float64) bool {
	if coef == 0 {
		return false
	}
	maxC := math.Inf(-1)
	for i := range shape {
		c := math.Abs(coef * shape[i] / ys[i])
		if math.IsNaN(c) {
			return true
		}
		maxC = max(maxC, c)
	}
	return !(maxC < minTermContribution)
}

// lineSet is the measurements along one parameter that Extra-P's
// find_best_measurement_points selects for its single-parameter model.
func (md *Modeler) bestLines(xs [][]float64, ys []float64, p int) (lx, ly []float64) {
	dims := len(xs[0])
	partial := func(x []float64) string {
		var b strings.Builder
		for d := 0; d < dims; d++ {
			if d != p {
				b.WriteString(strconv.FormatFloat(x[d], 'g', -1, 64))
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	// Group by the other coordinates, in first-seen order.
	groups := map[string][]int{}
	var order []string
	for i, x := range xs {
		k := partial(x)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	// The longest lines.
	longest := 0
	for _, k := range order {
		longest = max(longest, len(groups[k]))
	}
	var candidates [][]int
	for _, k := range order {
		if len(groups[k]) == longest {
			candidates = append(candidates, groups[k])
		}
	}
	// Regroup by this parameter's value; keep the measurements whose other
	// coordinates the first value's group has.
	byValue := map[float64][]int{}
	var values []float64
	for _, c := range candidates {
		for _, i := range c {
			v := xs[i][p]
			if _, ok := byValue[v]; !ok {
				values = append(values, v)
			}
			byValue[v] = append(byValue[v], i)
		}
	}
	common := map[string]bool{}
	for _, i := range byValue[values[0]] {
		common[partial(xs[i])] = true
	}
	for _, v := range values {
		sum, n := 0.0, 0
		for _, i := range byValue[v] {
			if common[partial(xs[i])] {
				sum += ys[i]
				n++
			}
		}
		if n > 0 {
			lx = append(lx, v)
			ly = append(ly, sum/float64(n))
		}
	}
	return lx, ly
}

// fitMulti is Extra-P's MultiParameterModeler.create_model: a
// single-parameter model per parameter along its best lines; parameters
// whose model is constant are dropped; the kept terms are combined
// additively and multiplicatively (for two: a·b, a+b, a·b+a, a·b+b),
// fitted to every point, and the smallest SMAPE wins.
func (md *Modeler) fitMulti(xs [][]float64, ys []float64) *Model {
	n := len(ys)
	type kept struct {
		param int
		term  Term
		c0    float64
	}
	var ks []kept
	for p := range xs[0] {
		lx, ly := md.bestLines(xs, ys, p)
		if len(lx) < 2 {
			continue
		}
		sm := md.fitSingle(lx, ly)
		if len(sm.Terms) > 0 {
			t := sm.Terms[0]
			t.Factors = []Factor{{p, t.Factors[0].Exp}}
			ks = append(ks, kept{p, t, sm.Constant})
		}
	}
	mean, tss := meanTSS(ys)
	switch len(ks) {
	case 0:
		m := &Model{Constant: mean, AR2: 1}
		m.cost(xs, ys)
		return m
	case 1:
		reused := &Model{Constant: ks[0].c0, Terms: []Term{ks[0].term}}
		reused.cost(xs, ys)
		re := fitTerms(xs, ys, [][]Factor{ks[0].term.Factors})
		if re.SMAPE < reused.SMAPE {
			reused = re
		}
		reused.adjR2(tss, n)
		return reused
	}
	mult := []Factor{}
	var add [][]Factor
	for _, k := range ks {
		mult = append(mult, k.term.Factors...)
		add = append(add, k.term.Factors)
	}
	hyps := [][][]Factor{{mult}, add}
	if len(ks) == 2 {
		hyps = append(hyps, [][]Factor{add[0], mult}, [][]Factor{add[1], mult})
	}
	best := fitTerms(xs, ys, hyps[0])
	best.adjR2(tss, n)
	for _, h := range hyps {
		m := fitTerms(xs, ys, h)
		m.adjR2(tss, n)
		ok := true
		for _, t := range m.Terms {
			sh := make([]float64, n)
			for i := range xs {
				sh[i] = t.Shape(xs[i])
			}
			if !contributes(t.Coefficient, sh, ys) {
				ok = false
				break
			}
		}
		if ok && m.SMAPE < best.SMAPE {
			best = m
		}
	}
	return best
}

// fitTerms fits the constant and one coefficient per term shape to every
// point by least squares, as numpy does it for Extra-P (lstsqSVD), and
// computes the costs on the same points.
func fitTerms(xs [][]float64, ys []float64, shapes [][]Factor) *Model {
	n, k := len(ys), len(shapes)+1
	a := make([]float64, n*k)
	for i := range xs {
		a[i*k] = 1
		for j, f := range shapes {
			a[i*k+j+1] = Term{Factors: f}.Shape(xs[i])
		}
	}
	// Extra-P's MultiParameterHypothesis.compute_coefficients: numpy's
	// lstsq with its default cut-off, again at machine precision when that
	// loses rank.
	c, rank := lstsqSVD(a, ys, n, k, 0)
	if rank < k {
		c, _ = lstsqSVD(a, ys, n, k, -1)
	}
	m := &Model{Constant: c[0]}
	for j, f := range shapes {
		m.Terms = append(m.Terms, Term{Coefficient: c[j+1], Factors: f})
	}
	m.cost(xs, ys)
	return m
}

// cost computes RSS and SMAPE over the points (Extra-P's
// MultiParameterHypothesis.compute_cost).
func (m *Model) cost(xs [][]float64, ys []float64) {
	m.RSS, m.SMAPE = 0, 0
	for i := range xs {
		pred := m.Eval(xs[i])
		d := pred - ys[i]
		m.RSS += d * d
		if s := math.Abs(ys[i]) + math.Abs(pred); s != 0 {
			m.SMAPE += math.Abs(d) / s * 2
		}
	}
	m.SMAPE = m.SMAPE / float64(len(ys)) * 100
}

// meanTSS returns the mean of ys and their total sum of squares about it,
// the baseline that adjusted R² compares a model's residuals with.
func meanTSS(ys []float64) (mean, tss float64) {
	for _, y := range ys {
		mean += y
	}
	mean /= float64(len(ys))
	for _, y := range ys {
		tss += (y - mean) * (y - mean)
	}
	return mean, tss
}

// adjR2 is Extra-P's multi-parameter adjusted R²: the degrees of freedom
// count every parameter factor of every term.
func (m *Model) adjR2(tss float64, n int) {
	if tss == 0 {
		m.AR2 = 1
		return
	}
	factors := 0
	for _, t := range m.Terms {
		factors += len(t.Factors)
	}
	m.AR2 = 1 - (m.RSS/tss)*float64(n-1)/float64(n-factors-1)
}

// lstsq solves min ‖a·x − b‖ for a row-major n×k matrix a (n ≥ 1) by
// Householder QR, overwriting a and b. A column that is (numerically)
// dependent on the earlier ones gets coefficient 0. With n < k the
// missing unknowns are 0.
func lstsq(a, b []float64, n, k int) []float64 {
	x := make([]float64, k)
	steps := min(n, k)
	scale := 0.0
	for _, v := range a {
		scale = max(scale, math.Abs(v))
	}
	tol := scale * float64(max(n, k)) * 2.220446049250313e-16
	diag := make([]float64, k)
	for j := 0; j < steps; j++ {
		norm := 0.0
		for i := j; i < n; i++ {
			norm = math.Hypot(norm, a[i*k+j])
		}
		if norm <= tol {
			diag[j] = 0
			continue
		}
		if a[j*k+j] > 0 {
			norm = -norm
		}
		// v = column below j with v[j] -= norm; H = I - 2vv'/v'v.
		for i := j; i < n; i++ {
			a[i*k+j] /= -norm
		}
		a[j*k+j]++
		for c := j + 1; c < k; c++ {
			s := 0.0
			for i := j; i < n; i++ {
				s += a[i*k+j] * a[i*k+c]
			}
			s /= a[j*k+j]
			for i := j; i < n; i++ {
				a[i*k+c] -= s * a[i*k+j]
			}
		}
		s := 0.0
		for i := j; i < n; i++ {
			s += a[i*k+j] * b[i]
		}
		s /= a[j*k+j]
		for i := j; i < n; i++ {
			b[i] -= s * a[i*k+j]
		}
		diag[j] = norm
	}
	for j := steps - 1; j >= 0; j-- {
		if diag[j] == 0 {
			continue
		}
		s := b[j]
		for c := j + 1; c < k; c++ {
			s -= a[j*k+c] * x[c]
		}
		x[j] = s / diag[j]
	}
	return x
}

// fitWeighted is SelectRepetitions; it returns nil when the repetitions
// give no variance to weight by.
func (md *Modeler) fitWeighted(xs [][]float64, ys []float64, points []Point) *Model {
	n := len(ys)
	// Pooled relative variance of one repetition, and each mean's weight
	// r/ȳ² (in units of that variance).
	w := make([]float64, n)
	cv2, dof := 0.0, 0.0
	for i, p := range points {
		r := float64(len(p.Values))
		if r < 2 || ys[i] == 0 {
			return nil
		}
		ss := 0.0
		for _, v := range p.Values {
			ss += (v - ys[i]) * (v - ys[i])
		}
		cv2 += ss / (ys[i] * ys[i])
		dof += r - 1
		w[i] = r / (ys[i] * ys[i])
	}
	cv2 /= dof
	if !(cv2 > 0) || math.IsInf(cv2, 0) {
		return nil
	}
	sw := make([]float64, n) // √weight
	for i := range w {
		sw[i] = math.Sqrt(w[i] / cv2)
	}
	dims := len(xs[0])
	// Each parameter's candidate factors and their shapes at the points.
	type cand struct {
		f     Factor
		shape []float64
	}
	cands := make([][]cand, dims)
	for d := 0; d < dims; d++ {
		logOK := true
		for _, x := range xs {
			if x[d] < 1 || (md.Negative && x[d] <= 1) {
				logOK = false
			}
		}
		for _, e := range md.exponents() {
			if e.Log != 0 && !logOK {
				continue
			}
			c := cand{Factor{d, e}, make([]float64, n)}
			for i, x := range xs {
				c.shape[i] = e.eval(x[d])
			}
			cands[d] = append(cands[d], c)
		}
	}
	a := make([]float64, n*4)
	b := make([]float64, n)
	prod := make([]float64, n)
	var best *Model
	bestScore := math.Inf(1)
	// try fits c0 + Σ c_j·cols_j; terms names the factors of each column.
	try := func(terms [][]Factor, cols ...[]float64) {
		k := len(cols) + 1
		for i := 0; i < n; i++ {
			a[i*k] = sw[i]
			for j, c := range cols {
				a[i*k+j+1] = sw[i] * c[i]
			}
			b[i] = sw[i] * ys[i]
		}
		c := lstsq(a[:n*k], b, n, k)
		chi2 := 0.0
		for i := 0; i < n; i++ {
			f := c[0]
			for j, col := range cols {
				f += c[j+1] * col[i]
			}
			d := (ys[i] - f) * sw[i]
			chi2 += d * d
		}
		score := chi2 + float64(k)*math.Log(float64(n))
		if math.IsNaN(score) || !(score < bestScore) {
			return
		}
		bestScore = score
		best = &Model{Constant: c[0]}
		for j, f := range terms {
			best.Terms = append(best.Terms, Term{Coefficient: c[j+1], Factors: slices.Clone(f)})
		}
	}
	try(nil)
	for d := range cands {
		for _, c := range cands[d] {
			try([][]Factor{{c.f}}, c.shape)
		}
	}
	if dims == 2 {
		for _, p := range cands[0] {
			for _, q := range cands[1] {
				for i := range prod {
					prod[i] = p.shape[i] * q.shape[i]
				}
				pq := []Factor{p.f, q.f}
				try([][]Factor{pq}, prod)
				try([][]Factor{{p.f}, {q.f}}, p.shape, q.shape)
				try([][]Factor{{p.f}, pq}, p.shape, prod)
				try([][]Factor{{q.f}, pq}, q.shape, prod)
			}
		}
	}
	_, tss := meanTSS(ys)
	best.cost(xs, ys)
	best.adjR2(tss, n)
	if best.IsConstant() {
		best.AR2 = 1
	}
	return best
}
