package analysis

import (
	"math"
	"sort"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// FactorComparison compares the controllable factors of an experiment with
// those of the base experiment of its version (5.6.5.2, Table 5.10), beside
// the similarity of their program's performance, so an analyst can see
// whether performance that differs is explained by factors that differ.
type FactorComparison struct {
	Experiment string      `json:"experiment"`
	Base       string      `json:"base"`
	Factors    []FactorSim `json:"factors"`
	// Overall is 1 - sqrt(Σ w_f d_f² / Σ w_f) over the factors compared
	// (Eq. 5.18, 5.19 with factors in place of metrics).
	Overall float64 `json:"overall"`
	// Performance is sim_o of the program region (the similarity lines'
	// metrics); HasPerformance is false when it could not be computed.
	Performance    float64 `json:"performance"`
	HasPerformance bool    `json:"hasPerformance"`
}

// FactorSim is sim_f of one factor.
type FactorSim struct {
	Factor     string  `json:"factor"`
	Value      string  `json:"value"`
	BaseValue  string  `json:"baseValue"`
	Similarity float64 `json:"similarity"`
}

// Clustering is the fuzzy c-means clustering of one experiment's region
// summaries (5.6.11.1).
type Clustering struct {
	Experiment string      `json:"experiment"`
	Metrics    []string    `json:"metrics"`
	Centers    [][]float64 `json:"centers"` // cluster i's score per metric
	Members    []ClusterMember
	// Filtered counts the region summaries the data-reduction rule left
	// out (Def. 5.4).
	Filtered int `json:"filtered"`
}

// ClusterMember is a region summary with its membership in each cluster.
type ClusterMember struct {
	Summary string    `json:"summary"`
	Degrees []float64 `json:"degrees"`
}

// factorValue returns an experiment's value of a factor as text.
func factorValue(e *Experiment, name string) (string, bool) {
	switch name {
	case "problemsize":
		return e.ProblemSize, e.ProblemSize != ""
	case "processes":
		return strconv.Itoa(e.Processes), e.Processes > 0
	case "threads":
		return strconv.Itoa(e.Threads), e.Threads > 0
	case "units":
		return strconv.Itoa(e.Units), e.Units > 0
	case "machine":
		return e.Machine, e.Machine != ""
	case "site":
		return e.Site, e.Site != ""
	case "commlib":
		return e.CommLib, e.CommLib != ""
	case "version":
		return e.Version, e.Version != ""
	}
	return "", false
}

// factorNumber is the number a factor value stands for: the configured
// number of a categorical value, else the value itself when numeric.
func factorNumber(cfg *SoftConfig, name, v string) (float64, bool) {
	if n, ok := cfg.FactorValues[name][v]; ok {
		return n, true
	}
	n, err := strconv.ParseFloat(v, 64)
	return n, err == nil && finite(n)
}

// compareFactors compares every experiment with the base of its version:
// the one with the fewest processing units (then the smallest IRI), as the
// dissertation's Table 5.10 takes the smallest configuration as its base.
func compareFactors(res *Result, cfg *SoftConfig) []FactorComparison {
	if len(cfg.Factors) == 0 {
		return nil
	}
	byVersion := map[string][]*ExperimentResult{}
	var versions []string
	for _, e := range res.Experiments {
		v := e.Exp.Version
		if byVersion[v] == nil {
			versions = append(versions, v)
		}
		byVersion[v] = append(byVersion[v], e)
	}
	sort.Strings(versions)
	var out []FactorComparison
	for _, v := range versions {
		exps := byVersion[v]
		if len(exps) < 2 {
			continue
		}
		sort.SliceStable(exps, func(i, j int) bool {
			a, b := exps[i].Exp, exps[j].Exp
			if a.Units != b.Units {
				return a.Units < b.Units
			}
			return a.IRI < b.IRI
		})
		// "auto" ranges: the largest value among the compared experiments.
		top := map[string]float64{}
		for _, f := range cfg.Factors {
			for _, e := range exps {
				if s, ok := factorValue(e.Exp, f.Name); ok {
					if n, ok := factorNumber(cfg, f.Name, s); ok && n > top[f.Name] {
						top[f.Name] = n
					}
				}
			}
		}
		base := exps[0]
		for _, e := range exps[1:] {
			fc := FactorComparison{Experiment: e.Exp.IRI, Base: base.Exp.IRI}
			d2, wsum := 0.0, 0.0
			for _, f := range cfg.Factors {
				a, okA := factorValue(base.Exp, f.Name)
				b, okB := factorValue(e.Exp, f.Name)
				if !okA || !okB {
					continue
				}
				sim, ok := factorSimilarity(cfg, f, a, b, top[f.Name])
				if !ok {
					continue
				}
				fc.Factors = append(fc.Factors, FactorSim{Factor: f.Name, Value: b, BaseValue: a, Similarity: sim})
				d2 += (1 - sim) * (1 - sim) * f.Weight
				wsum += f.Weight
			}
			if wsum == 0 {
				continue
			}
			fc.Overall = 1 - math.Sqrt(d2/wsum)
			bp, tp := programResult(base), programResult(e)
			if bp != nil && tp != nil && len(cfg.Similarity) > 0 {
				fc.Performance, fc.HasPerformance = similarity(bp.Region, tp.Region, cfg)
			}
			out = append(out, fc)
		}
	}
	return out
}

// factorSimilarity is sim_f(a, b): equality for a categorical factor,
// else 1 - |mu(a/max) - mu(b/max)|. Values of a numeric factor that are
// both not numbers, with no numbers configured, compare for equality; a
// number against a non-number is not compared.
func factorSimilarity(cfg *SoftConfig, f FactorDef, a, b string, auto float64) (float64, bool) {
	if f.Same {
		if a == b {
			return 1, true
		}
		return 0, true
	}
	x, okA := factorNumber(cfg, f.Name, a)
	y, okB := factorNumber(cfg, f.Name, b)
	if !okA && !okB && cfg.FactorValues[f.Name] == nil {
		// Two values that are not numbers (a problem size "64x64x64")
		// and no numbers configured for them: equal or not.
		if a == b {
			return 1, true
		}
		return 0, true
	}
	mx := f.Max
	if mx == 0 {
		mx = auto
	}
	if !okA || !okB || !(mx > 0) {
		return 0, false
	}
	s := 1 - math.Abs(f.Fn.Degree(x/mx)-f.Fn.Degree(y/mx))
	return s, finite(s)
}

// clusterSummaries clusters each experiment's region summaries by their
// score vectors: per score metric, the summary's value relative to the
// program region's largest through the score's membership function
// (Eq. 5.14). Summaries the filter rule fires for are left out.
func clusterSummaries(res *Result, cfg *SoftConfig) []Clustering {
	if cfg.Cluster == nil || len(cfg.Scores) == 0 {
		return nil
	}
	var out []Clustering
	for _, e := range res.Experiments {
		prog := programResult(e)
		if prog == nil {
			continue
		}
		cl := Clustering{Experiment: e.Exp.IRI}
		for _, s := range cfg.Scores {
			cl.Metrics = append(cl.Metrics, s.Metric)
		}
		var points [][]float64
		var names []string
		for _, r := range e.Regions {
			for _, s := range r.Region.Summary {
				if filtered(s, prog, cfg) {
					cl.Filtered++
					continue
				}
				p := make([]float64, len(cfg.Scores))
				for l, sc := range cfg.Scores {
					v, ok := s.Metrics.Get(sc.Metric)
					top, okT := prog.max(sc.Metric)
					if ok && okT && top > 0 {
						p[l] = sc.Fn.Degree(v / top)
					}
				}
				points = append(points, p)
				names = append(names, s.IRI)
			}
		}
		if len(points) < cfg.Cluster.C {
			continue
		}
		u, centers, err := FuzzyCMeans(points, cfg.Cluster.C, cfg.Cluster.M, cfg.Cluster.Eps, 200, nil)
		if err != nil {
			continue
		}
		// Number clusters by their center's distance from the origin, so
		// cluster 1 is the one of the lowest scores in every run.
		order := make([]int, len(centers))
		for i := range order {
			order[i] = i
		}
		norm := func(c []float64) float64 { return dist2(c, make([]float64, len(c))) }
		sort.SliceStable(order, func(i, j int) bool { return norm(centers[order[i]]) < norm(centers[order[j]]) })
		for _, i := range order {
			cl.Centers = append(cl.Centers, centers[i])
		}
		for j, name := range names {
			d := make([]float64, len(order))
			for k, i := range order {
				d[k] = u[j][i]
			}
			cl.Members = append(cl.Members, ClusterMember{Summary: name, Degrees: d})
		}
		out = append(out, cl)
	}
	return out
}

// filtered applies the data-reduction rule (Def. 5.4): IF every
// proposition (value is term) holds THEN exclude. The conjunction is the
// minimum of the degrees and fires at 0.5 or more.
func filtered(s *Summary, prog *RegionResult, cfg *SoftConfig) bool {
	if len(cfg.Filters) == 0 {
		return false
	}
	truth := 1.0
	for _, f := range cfg.Filters {
		v, ok := s.Metrics.Get(f.Expr.Metric)
		if !ok {
			return false
		}
		switch f.Expr.Over {
		case "":
		case "program":
			top, okT := prog.max(f.Expr.Metric)
			if !okT || top == 0 {
				return false
			}
			v /= top
		default:
			d, okD := s.Metrics.Get(f.Expr.Over)
			if !okD || d == 0 {
				return false
			}
			v /= d
		}
		truth = math.Min(truth, f.Fn.Degree(v))
	}
	return truth >= 0.5
}

// factors writes the factor comparisons.
func (w *writer) factors(fcs []FactorComparison) {
	for _, fc := range fcs {
		node := kb.IRI(fc.Experiment + "/factors")
		w.add(kb.IRI(fc.Experiment), kb.IRI(ontology.HasFactorComparison), node)
		w.add(node, tType, kb.IRI(ontology.FactorComparison))
		w.add(node, kb.IRI(ontology.HasBaseline), kb.IRI(fc.Base))
		w.add(node, kb.IRI(ontology.SimilarityValue), dbl(fc.Overall))
		if fc.HasPerformance {
			w.add(node, kb.IRI(ontology.PerformanceSimilarity), dbl(fc.Performance))
		}
		for _, f := range fc.Factors {
			fn := kb.IRI(fc.Experiment + "/factors/" + f.Factor)
			w.add(node, kb.IRI(ontology.HasFactorSimilarity), fn)
			w.add(fn, tType, kb.IRI(ontology.FactorSimilarity))
			w.add(fn, kb.IRI(ontology.ExperimentFactor), kb.String(f.Factor))
			w.add(fn, kb.IRI(ontology.FactorValue), kb.String(f.Value))
			w.add(fn, kb.IRI(ontology.BaseFactorValue), kb.String(f.BaseValue))
			w.add(fn, kb.IRI(ontology.SimilarityValue), dbl(f.Similarity))
		}
	}
}

// clusters writes the fuzzy clusters: a FuzzyCluster per cluster with its
// center as score metrics, and each summary's memberships.
func (w *writer) clusters(cls []Clustering) {
	for _, c := range cls {
		exp := kb.IRI(c.Experiment)
		iris := make([]kb.Term, len(c.Centers))
		for i, center := range c.Centers {
			iri := c.Experiment + "/fcm/" + strconv.Itoa(i+1)
			n := kb.IRI(iri)
			iris[i] = n
			w.add(exp, kb.IRI(ontology.HasFuzzyCluster), n)
			w.add(n, tType, kb.IRI(ontology.FuzzyCluster))
			w.add(n, kb.IRI(ontology.ClusterIndex), integer(i+1))
			w.add(n, kb.IRI(ontology.TermName), kb.String("cluster "+strconv.Itoa(i+1)))
			w.add(n, kb.IRI(ontology.InExperiment), exp)
			for l, m := range c.Metrics {
				w.metric(iri, "score_"+m, "", center[l])
			}
		}
		for _, m := range c.Members {
			for i, d := range m.Degrees {
				fm := kb.IRI(m.Summary + "/fcm/" + strconv.Itoa(i+1))
				w.add(kb.IRI(m.Summary), kb.IRI(ontology.HasFuzzyMembership), fm)
				w.add(fm, tType, kb.IRI(ontology.FuzzyMembership))
				w.add(fm, kb.IRI(ontology.MembershipTerm), iris[i])
				w.add(fm, kb.IRI(ontology.MembershipDegree), dbl(d))
			}
		}
	}
}
