package analysis

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/internal/pmnf"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// ModelOptions configure the performance models of Run.
type ModelOptions struct {
	// Metrics lists the metrics to model; nil models every metric.
	Metrics []string
	// Median aggregates repetitions by their median instead of the mean
	// (Extra-P 4.2's default).
	Median bool
	// Positive keeps series over p alone (strong scaling: a fixed problem
	// size) to Extra-P's default, non-negative exponents; otherwise they
	// are also searched for falling terms such as p^-1 (Extra-P's
	// allow_negative_exponents), which strong scaling needs.
	Positive bool
	// Repetitions chooses each model by the spread of the repetitions
	// (pmnf.SelectRepetitions: inverse-variance weighted least squares and
	// the Bayesian information criterion) instead of as Extra-P does; it
	// applies to series whose every point has at least two repetitions.
	Repetitions bool
	// MinPoints is the fewest distinct values of a parameter a series
	// needs (0: 5, Extra-P's minimum).
	MinPoints int
	// Predict lists the values of p the wtime models are extrapolated to
	// (nil: powers of two from twice the largest measured p to 65536).
	Predict []float64
}

// Series is an experiment series: experiments of one version and machine
// that differ in the model parameters.
type Series struct {
	IRI     string
	Version string
	Machine string
	// ProblemSize is the fixed problem size of a series over p alone.
	ProblemSize string
	// Params are the model parameters: "p" (processing units) and/or "n"
	// (the problem size's number).
	Params      []string
	Experiments []*Experiment
	// Points is the number of distinct coordinates.
	Points int
	// pos maps an experiment to its coordinate.
	coord map[*Experiment][]float64
}

// RegionModel is the model of one metric of one call path of a series.
type RegionModel struct {
	Series *Series
	Path   string // call path key
	CR     string // the code region at the end of the path
	CrType string // its perfonto:hasCrType
	Name   string // readable call path
	Metric string
	Model  *pmnf.Model
	IRI    string
	// Program marks the program region (CR_P).
	Program bool
	// Predictions at the values of ModelOptions.Predict (wtime only), with
	// the share of the program's prediction.
	Predictions []Prediction
}

// Prediction is a model's value at p, and its share of the program's.
type Prediction struct {
	P, Value, Share float64
}

// ModelResult is what the model analysis computed.
type ModelResult struct {
	Series []*Series
	Models []*RegionModel
	// Skipped lists the series with too few points to model (a series
	// with one experiment is every experiment that was run only once).
	Skipped []Issue
}

var sizeNumber = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`)

// problemSizeNumber reads the number of a problem size such as "N=1000"
// or "2048": the last number in it.
func problemSizeNumber(s string) (float64, bool) {
	all := sizeNumber.FindAllString(s, -1)
	if len(all) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(all[len(all)-1], 64)
	return v, err == nil && v > 0
}

// buildSeries forms the experiment series of d. A version (and machine)
// whose problem sizes are numbers with at least minPoints distinct values
// is one series over p and n (or n alone when p is fixed); otherwise each
// problem size is a series over p. Series with fewer than minPoints
// distinct values of a parameter are reported as issues.
func buildSeries(d *Data, minPoints int) ([]*Series, []Issue) {
	type key struct{ version, machine string }
	byKey := map[key][]*Experiment{}
	var keys []key
	for _, e := range d.Experiments {
		if e.Version == "" || e.Units == 0 || len(e.Regions) == 0 {
			continue
		}
		k := key{e.Version, e.Machine}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], e)
	}
	var out []*Series
	var issues []Issue
	distinct := func(es []*Experiment, f func(*Experiment) float64) int {
		seen := map[float64]bool{}
		for _, e := range es {
			seen[f(e)] = true
		}
		return len(seen)
	}
	units := func(e *Experiment) float64 { return float64(e.Units) }
	for _, k := range keys {
		es := byKey[k]
		numeric := true
		for _, e := range es {
			if _, ok := problemSizeNumber(e.ProblemSize); !ok {
				numeric = false
				break
			}
		}
		size := func(e *Experiment) float64 { v, _ := problemSizeNumber(e.ProblemSize); return v }
		var groups [][]*Experiment
		var params [][]string
		if numeric && distinct(es, size) >= minPoints {
			groups = append(groups, es)
			if distinct(es, units) > 1 {
				params = append(params, []string{"p", "n"})
			} else {
				params = append(params, []string{"n"})
			}
		} else {
			bySize := map[string][]*Experiment{}
			var sizes []string
			for _, e := range es {
				if _, ok := bySize[e.ProblemSize]; !ok {
					sizes = append(sizes, e.ProblemSize)
				}
				bySize[e.ProblemSize] = append(bySize[e.ProblemSize], e)
			}
			for _, s := range sizes {
				groups = append(groups, bySize[s])
				params = append(params, []string{"p"})
			}
		}
		for i, g := range groups {
			s := &Series{Version: k.version, Machine: k.machine, Params: params[i], Experiments: g, coord: map[*Experiment][]float64{}}
			if len(params[i]) == 1 && params[i][0] == "p" {
				s.ProblemSize = g[0].ProblemSize
			}
			s.IRI = k.version + "/series/" + strconv.FormatUint(hash64(k.machine+"\x00"+s.ProblemSize+"\x00"+strings.Join(s.Params, ",")), 16)
			coords := map[string]bool{}
			for _, e := range g {
				var x []float64
				for _, p := range s.Params {
					if p == "p" {
						x = append(x, units(e))
					} else {
						x = append(x, size(e))
					}
				}
				s.coord[e] = x
				coords[fmt.Sprint(x)] = true
			}
			s.Points = len(coords)
			label := seriesLabel(s)
			short := ""
			for j, p := range s.Params {
				vals := map[float64]bool{}
				for _, x := range s.coord {
					vals[x[j]] = true
				}
				if len(vals) < minPoints {
					short += "; " + count(len(vals), "distinct value") + " of " + p
				}
			}
			if short != "" {
				issues = append(issues, Issue{Experiment: s.Version, Subject: label,
					Reason: fmt.Sprintf("series of %s at %s%s: at least %d distinct values are needed to fit a scaling model; not modelled", count(len(g), "experiment"), count(s.Points, "point"), short, minPoints)})
				continue
			}
			out = append(out, s)
		}
	}
	return out, issues
}

func seriesLabel(s *Series) string {
	l := "series over " + strings.Join(s.Params, ", ")
	if s.ProblemSize != "" {
		l += ", problem size " + s.ProblemSize
	}
	return l
}

// fitModels fits a model per series, call path and metric.
func fitModels(ctx context.Context, d *Data, opts ModelOptions) (*ModelResult, error) {
	minPoints := opts.MinPoints
	if minPoints <= 0 {
		minPoints = 5
	}
	series, skipped := buildSeries(d, minPoints)
	res := &ModelResult{Series: series, Skipped: skipped}
	want := func(string) bool { return true }
	if opts.Metrics != nil {
		set := map[string]bool{}
		for _, m := range opts.Metrics {
			set[m] = true
		}
		want = func(m string) bool { return set[m] }
	}
	for _, s := range series {
		md := &pmnf.Modeler{Median: opts.Median, Negative: !opts.Positive && s.ProblemSize != ""}
		if opts.Repetitions {
			md.Select = pmnf.SelectRepetitions
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Values per call path and metric, per coordinate.
		type cell struct {
			region *Region
			exp    *Experiment
			points map[string]*pmnf.Point
			order  []string
		}
		cells := map[[2]string]*cell{}
		var keys [][2]string
		for _, e := range s.Experiments {
			if err := d.resolve(ctx, e); err != nil {
				return nil, err
			}
			x := s.coord[e]
			xk := fmt.Sprint(x)
			for _, reg := range e.sortedRegions() {
				metrics := map[string]bool{}
				for _, sm := range reg.Summary {
					for m := range sm.Metrics.All() {
						metrics[m] = true
					}
				}
				names := make([]string, 0, len(metrics))
				for m := range metrics {
					if want(m) {
						names = append(names, m)
					}
				}
				sort.Strings(names)
				for _, m := range names {
					v, _ := reg.Max(m)
					k := [2]string{reg.Path, m}
					c := cells[k]
					if c == nil {
						c = &cell{region: reg, exp: e, points: map[string]*pmnf.Point{}}
						cells[k] = c
						keys = append(keys, k)
					}
					p := c.points[xk]
					if p == nil {
						p = &pmnf.Point{X: x}
						c.points[xk] = p
						c.order = append(c.order, xk)
					}
					p.Values = append(p.Values, v)
				}
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			a, b := cells[keys[i]].region, cells[keys[j]].region
			if a.Depth != b.Depth {
				return a.Depth < b.Depth
			}
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		var programs = map[string]*RegionModel{}
		var first = len(res.Models)
		for _, k := range keys {
			c := cells[k]
			pts := make([]pmnf.Point, 0, len(c.order))
			for _, xk := range c.order {
				pts = append(pts, *c.points[xk])
			}
			if len(pts) < minPoints {
				continue // the call path ran in too few experiments
			}
			m, err := md.Fit(s.Params, pts)
			if err != nil {
				continue
			}
			rm := &RegionModel{Series: s, Path: c.region.Path, CR: c.region.CR, CrType: c.region.CrType, Name: readablePath(c.exp, c.region), Metric: k[1], Model: m,
				Program: c.exp.Program == c.region.Path}
			rm.IRI = s.IRI + "/model/" + strconv.FormatUint(hash64(rm.Path+"\x00"+rm.Metric), 16)
			res.Models = append(res.Models, rm)
			if rm.Program {
				programs[rm.Metric] = rm
			}
		}
		predict(s, res.Models[first:], programs, opts.Predict)
	}
	return res, nil
}

// predict extrapolates the wtime models of a series over p to the values
// of at (nil: powers of two from twice the largest measured p to 65536,
// at least one), with each value's share of the program's predicted time
// (between 0 and 1).
func predict(s *Series, models []*RegionModel, programs map[string]*RegionModel, at []float64) {
	pi := -1
	for i, p := range s.Params {
		if p == "p" {
			pi = i
		}
	}
	prog := programs["wtime"]
	if pi < 0 || prog == nil {
		return
	}
	if at == nil {
		maxP := 0.0
		for _, x := range s.coord {
			maxP = max(maxP, x[pi])
		}
		for v := 2.0; v <= 65536 || len(at) == 0; v *= 2 {
			if v >= 2*maxP {
				at = append(at, v)
			}
		}
	}
	// Other parameters at their largest measured value.
	base := make([]float64, len(s.Params))
	for _, x := range s.coord {
		for i := range x {
			base[i] = max(base[i], x[i])
		}
	}
	// The program's predicted time is at least every region's: a region's
	// time is part of it. A single PMNF term cannot follow a program whose
	// parts scale differently (one falling as 1/p, one growing faster than
	// p), so where a region's model outgrows the program's, the program's
	// prediction is raised to it and that region's share is 1.
	point := func(p float64) []float64 {
		x := append([]float64{}, base...)
		x[pi] = p
		return x
	}
	totals := make([]float64, len(at))
	for i, p := range at {
		totals[i] = prog.Model.Eval(point(p))
		for _, rm := range models {
			if v := rm.Model.Eval(point(p)); rm.Metric == "wtime" && finite(v) && v > totals[i] {
				totals[i] = v
			}
		}
	}
	for _, rm := range models {
		if rm.Metric != "wtime" {
			continue
		}
		for i, p := range at {
			v, total := rm.Model.Eval(point(p)), totals[i]
			pr := Prediction{P: p, Value: v, Share: math.NaN()}
			if total > 0 && v >= 0 {
				pr.Share = v / total
			}
			if finite(v) {
				rm.Predictions = append(rm.Predictions, pr)
			}
		}
	}
}

// models writes the series and models.
func (w *writer) models(mr *ModelResult) {
	if mr == nil {
		return
	}
	for _, s := range mr.Series {
		si := kb.IRI(s.IRI)
		w.add(si, tType, kb.IRI(ontology.ExperimentSeries))
		w.add(si, kb.IRI(ontology.RDFSLabel), kb.String(seriesLabel(s)))
		// The series' own properties: perfonto:ofVersion, usesCluster and
		// problemSize have the domain Experiment, and RDFS would count the
		// series as one more experiment.
		w.add(si, kb.IRI(ontology.SeriesVersion), kb.IRI(s.Version))
		if s.Machine != "" {
			w.add(si, kb.IRI(ontology.SeriesCluster), kb.IRI(s.Machine))
		}
		if s.ProblemSize != "" {
			w.add(si, kb.IRI(ontology.SeriesProblemSize), kb.String(s.ProblemSize))
		}
		for _, p := range s.Params {
			w.add(si, kb.IRI(ontology.ModelParameter), kb.String(p))
		}
		for _, e := range s.Experiments {
			w.add(kb.IRI(e.IRI), kb.IRI(ontology.InSeries), si)
		}
	}
	for _, rm := range mr.Models {
		w.model(rm)
	}
}

func (w *writer) model(rm *RegionModel) {
	m := rm.Model
	mi := kb.IRI(rm.IRI)
	w.add(mi, tType, kb.IRI(ontology.PerformanceModel))
	w.add(mi, kb.IRI(ontology.InSeries), kb.IRI(rm.Series.IRI))
	// The code region points to its models; perfonto:ofCodeRegion the other
	// way would make RDFS infer each model a DynamicRegion (its domain).
	w.add(kb.IRI(rm.CR), kb.IRI(ontology.HasPerformanceModel), mi)
	w.add(mi, kb.IRI(ontology.CallPath), kb.String(rm.Name))
	w.add(mi, kb.IRI(ontology.ModelledMetric), kb.String(rm.Metric))
	// The text is for people (findings quote it): times in the unit of
	// the largest value; modelFormula is the exact one.
	w.add(mi, kb.IRI(ontology.ModelFunction), kb.String(modelText(rm)))
	w.add(mi, kb.IRI(ontology.ModelFormula), kb.String(m.Formula()))
	w.add(mi, kb.IRI(ontology.ModelPoints), integer(m.Points))
	for _, v := range []struct {
		p string
		v float64
	}{{ontology.ConstantCoefficient, m.Constant}, {ontology.ModelSMAPE, m.SMAPE}, {ontology.ModelRSS, m.RSS}, {ontology.ModelAdjustedR2, m.AR2}} {
		if finite(v.v) {
			w.add(mi, kb.IRI(v.p), dbl(v.v))
		}
	}
	for _, e := range rm.Series.Experiments {
		w.add(mi, kb.IRI(ontology.FittedFrom), kb.IRI(e.IRI))
	}
	for pi, p := range m.Params {
		if p != "p" {
			continue
		}
		g, _ := m.Growth(pi)
		w.add(mi, kb.IRI(ontology.GrowthExponent), dbl(g.Poly()))
		w.add(mi, kb.IRI(ontology.GrowthLogExponent), integer(g.Log))
		if sh := growthShare(rm.Series, m, pi); finite(sh) {
			w.add(mi, kb.IRI(ontology.GrowthShare), dbl(sh))
		}
	}
	for ti, t := range m.Terms {
		ti := kb.IRI(rm.IRI + "/t" + strconv.Itoa(ti))
		w.add(mi, kb.IRI(ontology.HasModelTerm), ti)
		w.add(ti, tType, kb.IRI(ontology.ModelTerm))
		w.add(ti, kb.IRI(ontology.TermCoefficient), dbl(t.Coefficient))
		for fi, f := range t.Factors {
			fn := kb.IRI(ti.Value + "/f" + strconv.Itoa(fi))
			w.add(ti, kb.IRI(ontology.HasTermFactor), fn)
			w.add(fn, tType, kb.IRI(ontology.TermFactor))
			w.add(fn, kb.IRI(ontology.ModelParameter), kb.String(m.Params[f.Param]))
			w.add(fn, kb.IRI(ontology.PolynomialExponent), dbl(f.Exp.Poly()))
			w.add(fn, kb.IRI(ontology.LogarithmExponent), integer(f.Exp.Log))
		}
	}
	for _, pr := range rm.Predictions {
		pn := kb.IRI(rm.IRI + "/at" + strconv.FormatFloat(pr.P, 'g', -1, 64))
		w.add(mi, kb.IRI(ontology.HasPrediction), pn)
		w.add(pn, tType, kb.IRI(ontology.ModelPrediction))
		w.add(pn, kb.IRI(ontology.AtParameterValue), dbl(pr.P))
		w.add(pn, kb.IRI(ontology.PredictedValue), dbl(pr.Value))
		if finite(pr.Share) {
			w.add(pn, kb.IRI(ontology.PredictedShare), dbl(pr.Share))
		}
	}
}

// modelRuleInput is what the MODELS rules read besides the models: the
// code region type of each modelled region (the program's own model is no
// hotspot).
func modelRuleInput(mr *ModelResult) []kb.TermQuad {
	if mr == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []kb.TermQuad
	for _, rm := range mr.Models {
		if seen[rm.CR] || rm.CrType == "" {
			continue
		}
		seen[rm.CR] = true
		out = append(out, kb.TermQuad{S: kb.IRI(rm.CR), P: kb.IRI(ontology.HasCrType), O: kb.String(rm.CrType)})
	}
	return out
}

// growthShare is the share of the model's value at the series' largest
// coordinate that its fastest-growing term in parameter pi contributes.
func growthShare(s *Series, m *pmnf.Model, pi int) float64 {
	g, ok := m.Growth(pi)
	if !ok {
		return 0
	}
	x := make([]float64, len(m.Params))
	for _, c := range s.coord {
		for i := range c {
			x[i] = max(x[i], c[i])
		}
	}
	total := m.Eval(x)
	part := 0.0
	for _, t := range m.Terms {
		for _, f := range t.Factors {
			if f.Param == pi && f.Exp == g && t.Coefficient > 0 {
				part += t.Coefficient * t.Shape(x)
				break
			}
		}
	}
	if total <= 0 {
		return math.NaN()
	}
	return part / total
}

// count writes n things: "1 point", "5 points".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
