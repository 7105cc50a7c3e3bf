package analysis

import (
	_ "embed" // the default soft analysis configuration
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/internal/fuzzy"
)

//go:embed soft.conf
var defaultSoft string

// DefaultSoftConfig returns the shipped soft analysis configuration
// (analysis/soft.conf).
func DefaultSoftConfig() *SoftConfig {
	c, err := ParseSoftConfig("analysis/soft.conf", defaultSoft)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// DefaultSoftConfigText returns the text of the shipped configuration, a
// starting point for a site's own file.
func DefaultSoftConfigText() string { return defaultSoft }

// Membership is a membership function with its hedges, e.g. "very s 0.6 0.9".
type Membership struct {
	Hedges   []string
	Function string
	Params   []float64
}

// Degree evaluates the membership of x.
func (m Membership) Degree(x float64) float64 {
	p := m.Params
	var mu float64
	switch m.Function {
	case "linear":
		mu = math.Max(0, math.Min(1, x))
	case "triangle":
		mu = fuzzy.Triangle(x, p[0], p[1], p[2])
	case "trapezoid":
		mu = fuzzy.Trapezoid(x, p[0], p[1], p[2], p[3])
	case "shoulder-left":
		mu = fuzzy.ShoulderLeft(x, p[0], p[1])
	case "shoulder-right":
		mu = fuzzy.ShoulderRight(x, p[0], p[1])
	case "s":
		mu = fuzzy.S(x, p[0], p[1])
	case "z":
		mu = fuzzy.Z(x, p[0], p[1])
	case "bell":
		mu = fuzzy.Bell(x, p[0], p[1], p[2])
	case "sigmoid":
		mu = fuzzy.Sigmoid(x, p[0], p[1])
	case "gaussian":
		mu = fuzzy.Gaussian(x, p[0], p[1])
	}
	// Hedges apply innermost first: "very not low" is very(not(low)).
	for i := len(m.Hedges) - 1; i >= 0; i-- {
		switch m.Hedges[i] {
		case "very":
			mu = fuzzy.Very(mu)
		case "somewhat":
			mu = fuzzy.Somewhat(mu)
		case "extremely":
			mu = fuzzy.Extremely(mu)
		case "not":
			mu = fuzzy.Not(mu)
		}
	}
	return mu
}

// String renders the function as written in the configuration.
func (m Membership) String() string {
	parts := append([]string{}, m.Hedges...)
	parts = append(parts, m.Function)
	for _, p := range m.Params {
		parts = append(parts, strconv.FormatFloat(p, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

var functionArity = map[string]int{"linear": 0, "triangle": 3, "trapezoid": 4, "shoulder-left": 2, "shoulder-right": 2,
	"s": 2, "z": 2, "bell": 3, "sigmoid": 2, "gaussian": 2}

var hedgeNames = map[string]bool{"very": true, "somewhat": true, "extremely": true, "not": true}

// Expr is a metric expression: a metric name, "A/B" (two metrics of the
// same region), or "A/program" (A relative to the program region).
type Expr struct {
	Metric string
	Over   string // second metric, "program", or ""
}

func (e Expr) String() string {
	if e.Over == "" {
		return e.Metric
	}
	return e.Metric + "/" + e.Over
}

// ClassDef is a performance class (Def. 3.23): a term for values of an
// expression, with its membership function.
type ClassDef struct {
	Expr Expr
	Term string
	Fn   Membership
}

// WeightedFn is a metric with a weight and the membership function of its
// score (5.6.4).
type WeightedFn struct {
	Metric string
	Weight float64
	Fn     Membership
}

// SoftConfig is a parsed soft analysis configuration.
type SoftConfig struct {
	Classes    []ClassDef
	Scores     []WeightedFn
	Similarity []WeightedFn
	// SimilarThreshold: processing units at least this similar are grouped.
	SimilarThreshold float64
	// Bottleneck terms; the term "negligible" gives the negligible range.
	Bottleneck []ClassDef
	// Factors are the experiment factors compared by the factor
	// similarity (5.6.5.2); FactorValues maps a categorical factor's values
	// to numbers (a machine to its network bandwidth, Table 5.9).
	Factors      []FactorDef
	FactorValues map[string]map[string]float64
	// Cluster asks for fuzzy c-means clusters of each experiment's region
	// summaries (5.6.11); nil for none.
	Cluster *ClusterDef
	// Filters form the data-reduction rule (Def. 5.4): a region summary
	// for which every proposition holds (degree ≥ 0.5 for all) is left
	// out of the clustering.
	Filters []ClassDef
}

// FactorDef is one experiment factor of the factor similarity: a
// categorical one (Same: equal values are similar, others not) or a
// numeric one whose value, divided by Max, goes through Fn. Max 0 ("auto")
// is the largest value among the experiments compared.
type FactorDef struct {
	Name   string
	Weight float64
	Same   bool
	Max    float64
	Fn     Membership
}

// ClusterDef configures fuzzy c-means (Eq. 5.21–5.23): C clusters,
// fuzziness M, stop when no membership changes by more than Eps.
type ClusterDef struct {
	C   int
	M   float64
	Eps float64
}

// factorNames are the experiment factors the analysis knows.
var factorNames = map[string]bool{"problemsize": true, "processes": true, "threads": true, "units": true,
	"machine": true, "commlib": true, "site": true, "version": true}

// ParseSoftConfig parses a soft analysis configuration; errors are
// FILE:LINE:COLUMN: what was expected, all of them.
func ParseSoftConfig(file, text string) (*SoftConfig, error) {
	c := &SoftConfig{SimilarThreshold: 0.9}
	var errs []string
	for ln, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields, cols := fieldsWithColumns(line)
		if len(fields) == 0 {
			continue
		}
		bad := func(i int, format string, args ...any) {
			col := 1
			if i < len(cols) {
				col = cols[i]
			} else if len(cols) > 0 {
				col = cols[len(cols)-1] + len(fields[len(fields)-1])
			}
			errs = append(errs, fmt.Sprintf("%s:%d:%d: %s", file, ln+1, col, fmt.Sprintf(format, args...)))
		}
		switch fields[0] {
		case "class", "bottleneck":
			if len(fields) < 4 {
				bad(len(fields), "expected %s METRIC TERM [HEDGE...] FUNCTION PARAMS...", fields[0])
				continue
			}
			fn, ok := parseFn(fields, cols, 3, bad)
			if !ok {
				continue
			}
			def := ClassDef{Expr: parseExpr(fields[1]), Term: fields[2], Fn: fn}
			if fields[0] == "class" {
				c.Classes = append(c.Classes, def)
			} else {
				c.Bottleneck = append(c.Bottleneck, def)
			}
		case "score", "similarity":
			if len(fields) < 4 {
				bad(len(fields), "expected %s METRIC WEIGHT FUNCTION PARAMS...", fields[0])
				continue
			}
			w, err := strconv.ParseFloat(fields[2], 64)
			if err != nil || !(w > 0) || math.IsInf(w, 0) {
				bad(2, "expected a positive weight, found %q", fields[2])
				continue
			}
			fn, ok := parseFn(fields, cols, 3, bad)
			if !ok {
				continue
			}
			wf := WeightedFn{Metric: fields[1], Weight: w, Fn: fn}
			if fields[0] == "score" {
				c.Scores = append(c.Scores, wf)
			} else {
				c.Similarity = append(c.Similarity, wf)
			}
		case "similar":
			if len(fields) != 2 {
				bad(len(fields), "expected similar THRESHOLD")
				continue
			}
			v, err := strconv.ParseFloat(fields[1], 64)
			if err != nil || v < 0 || v > 1 {
				bad(1, "expected a threshold in [0,1], found %q", fields[1])
				continue
			}
			c.SimilarThreshold = v
		case "factor":
			if len(fields) < 4 {
				bad(len(fields), "expected factor NAME WEIGHT same, or factor NAME WEIGHT MAX FUNCTION PARAMS...")
				continue
			}
			if !factorNames[fields[1]] {
				bad(1, "expected a factor (problemsize, processes, threads, units, machine, commlib, site, version), found %q", fields[1])
				continue
			}
			w, err := strconv.ParseFloat(fields[2], 64)
			if err != nil || !(w > 0) || math.IsInf(w, 0) {
				bad(2, "expected a positive weight, found %q", fields[2])
				continue
			}
			def := FactorDef{Name: fields[1], Weight: w}
			if fields[3] == "same" {
				if len(fields) != 4 {
					bad(4, "expected nothing after same")
					continue
				}
				def.Same = true
			} else {
				mx, err := strconv.ParseFloat(fields[3], 64)
				if fields[3] == "auto" {
					mx, err = 0, nil
				} else if err != nil || !(mx > 0) || math.IsInf(mx, 0) {
					bad(3, "expected same, auto or the factor's largest value (a positive number), found %q", fields[3])
					continue
				}
				fn, ok := parseFn(fields, cols, 4, bad)
				if !ok {
					continue
				}
				def.Max, def.Fn = mx, fn
			}
			c.Factors = append(c.Factors, def)
		case "factorvalue":
			if len(fields) != 4 {
				bad(len(fields), "expected factorvalue NAME VALUE NUMBER")
				continue
			}
			if !factorNames[fields[1]] {
				bad(1, "expected a factor (problemsize, processes, threads, units, machine, commlib, site, version), found %q", fields[1])
				continue
			}
			v, err := strconv.ParseFloat(fields[3], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				bad(3, "expected a number, found %q", fields[3])
				continue
			}
			if c.FactorValues == nil {
				c.FactorValues = map[string]map[string]float64{}
			}
			if c.FactorValues[fields[1]] == nil {
				c.FactorValues[fields[1]] = map[string]float64{}
			}
			c.FactorValues[fields[1]][fields[2]] = v
		case "cluster":
			if len(fields) != 4 {
				bad(len(fields), "expected cluster C FUZZINESS EPSILON")
				continue
			}
			n, err := strconv.Atoi(fields[1])
			if err != nil || n < 2 {
				bad(1, "expected a number of clusters of at least 2, found %q", fields[1])
				continue
			}
			m, err := strconv.ParseFloat(fields[2], 64)
			if err != nil || !(m > 1) || math.IsInf(m, 0) {
				bad(2, "expected a fuzziness above 1, found %q", fields[2])
				continue
			}
			eps, err := strconv.ParseFloat(fields[3], 64)
			if err != nil || !(eps > 0) || eps >= 1 {
				bad(3, "expected a threshold in (0,1), found %q", fields[3])
				continue
			}
			c.Cluster = &ClusterDef{C: n, M: m, Eps: eps}
		case "filter":
			if len(fields) < 3 {
				bad(len(fields), "expected filter METRIC [HEDGE...] FUNCTION PARAMS...")
				continue
			}
			fn, ok := parseFn(fields, cols, 2, bad)
			if !ok {
				continue
			}
			c.Filters = append(c.Filters, ClassDef{Expr: parseExpr(fields[1]), Term: "filter", Fn: fn})
		default:
			bad(0, "expected class, score, similarity, similar, bottleneck, factor, factorvalue, cluster or filter, found %q", fields[0])
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return c, nil
}

func parseExpr(s string) Expr {
	if a, b, ok := strings.Cut(s, "/"); ok {
		return Expr{Metric: a, Over: b}
	}
	return Expr{Metric: s}
}

func parseFn(fields []string, cols []int, i int, bad func(int, string, ...any)) (Membership, bool) {
	var m Membership
	for i < len(fields) && hedgeNames[fields[i]] {
		m.Hedges = append(m.Hedges, fields[i])
		i++
	}
	if i >= len(fields) {
		bad(i, "expected a membership function (linear, triangle, trapezoid, shoulder-left, shoulder-right, s, z, bell, sigmoid, gaussian)")
		return m, false
	}
	arity, ok := functionArity[fields[i]]
	if !ok {
		bad(i, "expected a membership function (linear, triangle, trapezoid, shoulder-left, shoulder-right, s, z, bell, sigmoid, gaussian), found %q", fields[i])
		return m, false
	}
	m.Function = fields[i]
	if got := len(fields) - i - 1; got != arity {
		bad(i, "%s takes %d parameters, found %d", m.Function, arity, got)
		return m, false
	}
	for k := i + 1; k < len(fields); k++ {
		v, err := strconv.ParseFloat(fields[k], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			bad(k, "expected a number, found %q", fields[k])
			return m, false
		}
		m.Params = append(m.Params, v)
	}
	if probe := m.Degree(0.5); math.IsNaN(probe) {
		bad(i, "%s parameters out of order (they must not decrease): %v", m.Function, m.Params)
		return m, false
	}
	return m, true
}

// fieldsWithColumns splits on blanks and returns each field's 1-based
// column.
func fieldsWithColumns(line string) ([]string, []int) {
	var fields []string
	var cols []int
	start := -1
	for i := 0; i <= len(line); i++ {
		blank := i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r'
		switch {
		case blank && start >= 0:
			fields = append(fields, line[start:i])
			cols = append(cols, start+1)
			start = -1
		case !blank && start < 0:
			start = i
		}
	}
	return fields, cols
}
