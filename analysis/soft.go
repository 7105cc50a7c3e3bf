package analysis

import (
	"math"
	"sort"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// SoftResult is the soft analysis (5.6) of all experiments.
type SoftResult struct {
	Config      *SoftConfig
	Memberships []ClassMembership
	Scores      []Score         // regions, ranked per experiment; experiments, ranked per group
	PUGroups    []PUSimilarity  // regions whose processing units fall into several groups
	Similarity  []ExpSimilarity // each region of each experiment against its baseline
	Bottlenecks []BottleneckHit // fuzzy bottleneck search
	Factors     []FactorComparison
	Clusters    []Clustering
}

// ClassMembership is a degree of membership of a region aggregate or an
// experiment in a performance class.
type ClassMembership struct {
	Experiment string  `json:"experiment"`
	Subject    string  `json:"subject"` // region aggregate IRI or experiment IRI
	Region     string  `json:"region,omitempty"`
	CodeRegion string  `json:"codeRegion,omitempty"`
	Expr       string  `json:"metric"`
	Term       string  `json:"term"`
	Value      float64 `json:"value"`
	Degree     float64 `json:"degree"`
	bottleneck bool
}

// Score is the OWA performance score of a region (relative to the program)
// or of an experiment (relative to the slowest of its scaling group).
type Score struct {
	Experiment string  `json:"experiment"`
	Subject    string  `json:"subject"`
	Region     string  `json:"region,omitempty"`
	CodeRegion string  `json:"codeRegion,omitempty"`
	OWA        float64 `json:"owa"`
	Rank       int     `json:"rank"`
}

// PUSimilarity groups the processing units of one region of an experiment
// by the similarity of their executions (5.6.10.1).
type PUSimilarity struct {
	Experiment string     `json:"experiment"`
	Subject    string     `json:"subject"`
	Region     string     `json:"region"`
	CodeRegion string     `json:"codeRegion"`
	Groups     [][]string `json:"groups"`  // PU IRIs, groups by size (largest first)
	Linking    []float64  `json:"linking"` // per group: smallest similarity linking its members (1 for one member)
}

// ExpSimilarity is the similarity of a region in an experiment to the same
// region in its baseline (5.6.5.1).
type ExpSimilarity struct {
	Experiment string  `json:"experiment"`
	Baseline   string  `json:"baseline"`
	Subject    string  `json:"subject"`
	Region     string  `json:"region"`
	Similarity float64 `json:"similarity"`
}

// BottleneckHit is a region found by the fuzzy bottleneck search.
type BottleneckHit struct {
	Experiment string             `json:"experiment"`
	Subject    string             `json:"subject"`
	Region     string             `json:"region"`
	Value      float64            `json:"value"`
	Degrees    map[string]float64 `json:"degrees"`
	Negligible bool               `json:"negligible"` // only in the negligible range
}

// value evaluates an expression on a region of an experiment (largest
// value over its processing units); program-relative expressions divide by
// the program region's value. Computed speedup and efficiency count as
// metrics of the region.
func value(x Expr, e *ExperimentResult, r *RegionResult) (float64, bool) {
	get := func(name string, rr *RegionResult) (float64, bool) {
		switch name {
		case "speedup":
			return rr.Speedup, rr.Scaled
		case "efficiency":
			return rr.Efficiency, rr.Scaled
		}
		return rr.max(name)
	}
	v, ok := get(x.Metric, r)
	if !ok {
		return 0, false
	}
	switch x.Over {
	case "":
		return v, true
	case "program":
		p := programResult(e)
		if p == nil {
			return 0, false
		}
		d, ok := get(x.Metric, p)
		if !ok || d == 0 {
			return 0, false
		}
		return v / d, true
	}
	d, ok := get(x.Over, r)
	if !ok || d == 0 {
		return 0, false // never divide by zero
	}
	return v / d, true
}

// max is the largest value of a metric over the region's processing units:
// a measured one, else one the overhead analysis computed (oall, oall_ident,
// oall_unid, olopa), so scores and classes can use computed overheads.
func (r *RegionResult) max(name string) (float64, bool) {
	if v, ok := r.Region.Max(name); ok {
		return v, true
	}
	if st, ok := r.Overhead[name]; ok && st.N > 0 {
		return st.Max, true
	}
	return 0, false
}

func programResult(e *ExperimentResult) *RegionResult {
	for _, r := range e.Regions {
		if r.Region.Path == e.Exp.Program {
			return r
		}
	}
	return nil
}

func analyseSoft(res *Result, cfg *SoftConfig) *SoftResult {
	out := &SoftResult{Config: cfg}
	for _, e := range res.Experiments {
		x := e.Exp
		// Classes of the experiment itself (its program's speedup and
		// efficiency).
		for _, c := range cfg.Classes {
			if c.Expr.Over != "" || (c.Expr.Metric != "efficiency" && c.Expr.Metric != "speedup") || !e.Scaled {
				continue
			}
			v := e.Efficiency
			if c.Expr.Metric == "speedup" {
				v = e.Speedup
			}
			if d := c.Fn.Degree(v); d > 0 && finite(d) {
				out.Memberships = append(out.Memberships, ClassMembership{Experiment: x.IRI, Subject: x.IRI, Expr: c.Expr.String(), Term: c.Term, Value: v, Degree: d})
			}
		}
		var regionScores []Score
		prog := programResult(e)
		for _, r := range e.Regions {
			subject := RegionIRI(x.IRI, r.Region.Path)
			label := readablePath(x, r.Region)
			for _, c := range cfg.Classes {
				v, ok := value(c.Expr, e, r)
				if !ok {
					continue
				}
				if d := c.Fn.Degree(v); d > 0 && finite(d) {
					out.Memberships = append(out.Memberships, ClassMembership{Experiment: x.IRI, Subject: subject, Region: label, CodeRegion: r.Region.CR, Expr: c.Expr.String(), Term: c.Term, Value: v, Degree: d})
				}
			}
			// Score (Eq. 5.14) relative to the program, OWA (Eq. 5.15).
			if prog != nil && len(cfg.Scores) > 0 {
				num, den := 0.0, 0.0
				for _, s := range cfg.Scores {
					v, ok := r.max(s.Metric)
					base, okB := prog.max(s.Metric)
					if !ok || !okB || base == 0 {
						continue
					}
					num += math.Abs(s.Fn.Degree(v/base) * s.Weight)
					den += s.Weight
				}
				if den > 0 {
					regionScores = append(regionScores, Score{Experiment: x.IRI, Subject: subject, Region: label, CodeRegion: r.Region.CR, OWA: num / den})
				}
			}
			// Similarity of the processing units (5.6.10.1).
			if len(r.Region.Summary) >= 2 && len(cfg.Similarity) > 0 {
				if g := puGroups(r.Region, cfg); len(g.Groups) > 1 {
					g.Experiment, g.Subject, g.Region, g.CodeRegion = x.IRI, subject, label, r.Region.CR
					out.PUGroups = append(out.PUGroups, g)
				}
			}
			// Bottleneck search (5.6.9), not for the program itself.
			if r.Region.Path != x.Program && len(cfg.Bottleneck) > 0 {
				hit := BottleneckHit{Experiment: x.IRI, Subject: subject, Region: label, Degrees: map[string]float64{}}
				found, real := false, false
				for _, c := range cfg.Bottleneck {
					v, ok := value(c.Expr, e, r)
					if !ok {
						continue
					}
					hit.Value = v
					if d := c.Fn.Degree(v); d > 0 && finite(d) {
						hit.Degrees[c.Term] = d
						found = true
						real = real || c.Term != "negligible"
						out.Memberships = append(out.Memberships, ClassMembership{Experiment: x.IRI, Subject: subject, Region: label, CodeRegion: r.Region.CR, Expr: c.Expr.String(), Term: c.Term, Value: v, Degree: d, bottleneck: true})
					}
				}
				if found {
					hit.Negligible = !real
					out.Bottlenecks = append(out.Bottlenecks, hit)
				}
			}
		}
		sort.SliceStable(regionScores, func(i, j int) bool { return regionScores[i].OWA > regionScores[j].OWA })
		for i := range regionScores {
			regionScores[i].Rank = i + 1
		}
		out.Scores = append(out.Scores, regionScores...)
	}
	// Experiments: score relative to the slowest of the group; similarity
	// of each region to the baseline's.
	for _, g := range res.Groups {
		if g.Baseline == nil {
			continue
		}
		var scores []Score
		for _, m := range g.Members {
			num, den := 0.0, 0.0
			for _, s := range cfg.Scores {
				v, ok := metricOfProgram(m, s.Metric)
				top := 0.0
				for _, o := range g.Members {
					if ov, ok := metricOfProgram(o, s.Metric); ok && ov > top {
						top = ov
					}
				}
				if !ok || top == 0 {
					continue
				}
				num += math.Abs(s.Fn.Degree(v/top) * s.Weight)
				den += s.Weight
			}
			if den > 0 {
				scores = append(scores, Score{Experiment: m.Exp.IRI, Subject: m.Exp.IRI, OWA: num / den})
			}
			if m == g.Baseline {
				continue
			}
			base := map[string]*RegionResult{}
			for _, r := range g.Baseline.Regions {
				base[r.Region.Path] = r
			}
			for _, r := range m.Regions {
				br := base[r.Region.Path]
				if br == nil {
					continue
				}
				if sim, ok := similarity(br.Region, r.Region, cfg); ok {
					out.Similarity = append(out.Similarity, ExpSimilarity{Experiment: m.Exp.IRI, Baseline: g.Baseline.Exp.IRI,
						Subject: RegionIRI(m.Exp.IRI, r.Region.Path), Region: readablePath(m.Exp, r.Region), Similarity: sim})
				}
			}
		}
		sort.SliceStable(scores, func(i, j int) bool { return scores[i].OWA > scores[j].OWA })
		for i := range scores {
			scores[i].Rank = i + 1
		}
		out.Scores = append(out.Scores, scores...)
	}
	out.Factors = compareFactors(res, cfg)
	out.Clusters = clusterSummaries(res, cfg)
	return out
}

func metricOfProgram(e *ExperimentResult, metric string) (float64, bool) {
	p := programResult(e)
	if p == nil {
		return 0, false
	}
	return p.max(metric)
}

// scoreVector is the per-metric score of one summary, relative to top.
func scoreVector(value func(metric string) float64, top map[string]float64, cfg *SoftConfig) []float64 {
	out := make([]float64, len(cfg.Similarity))
	for i, s := range cfg.Similarity {
		v := value(s.Metric)
		if t := top[s.Metric]; t > 0 {
			out[i] = s.Fn.Degree(v / t)
		}
	}
	return out
}

// sim is Eq. 5.18/5.19: 1 - sqrt(sum w_l |s_il - s_jl|²), with weights
// normalised to sum 1 so the result stays in [0,1].
func sim(a, b []float64, cfg *SoftConfig) float64 {
	total := 0.0
	for _, s := range cfg.Similarity {
		total += s.Weight
	}
	d := 0.0
	for l, s := range cfg.Similarity {
		diff := a[l] - b[l]
		d += diff * diff * s.Weight / total
	}
	return 1 - math.Sqrt(d)
}

// similarity compares a region of an experiment with the baseline's, the
// maximum observed value being the baseline's (5.6.5.1).
func similarity(base, trial *Region, cfg *SoftConfig) (float64, bool) {
	top := map[string]float64{}
	bv := map[string]float64{}
	tv := map[string]float64{}
	for _, s := range cfg.Similarity {
		b, ok1 := base.Max(s.Metric)
		t, ok2 := trial.Max(s.Metric)
		if !ok1 || !ok2 {
			return 0, false
		}
		bv[s.Metric], tv[s.Metric] = b, t
		top[s.Metric] = math.Max(b, t)
	}
	v := sim(scoreVector(func(m string) float64 { return bv[m] }, top, cfg), scoreVector(func(m string) float64 { return tv[m] }, top, cfg), cfg)
	return v, finite(v)
}

// puGroups groups the processing units of a region: single linkage at the
// configured threshold over the similarity matrix, scores relative to the
// largest value over the units.
func puGroups(r *Region, cfg *SoftConfig) PUSimilarity {
	top := map[string]float64{}
	for _, s := range cfg.Similarity {
		top[s.Metric], _ = r.Max(s.Metric)
	}
	n := len(r.Summary)
	vec := make([][]float64, n)
	for i, s := range r.Summary {
		vec[i] = scoreVector(s.Metrics.Value, top, cfg)
	}
	parent := make([]int, n)
	link := make([]float64, n)
	for i := range parent {
		parent[i] = i
		link[i] = 1
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := sim(vec[i], vec[j], cfg)
			if s >= cfg.SimilarThreshold {
				a, b := find(i), find(j)
				if a != b {
					parent[b] = a
					link[a] = math.Min(math.Min(link[a], link[b]), s)
				}
			}
		}
	}
	groups := map[int][]string{}
	var roots []int
	for i, s := range r.Summary {
		root := find(i)
		if groups[root] == nil {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], s.PU.IRI)
	}
	sort.SliceStable(roots, func(i, j int) bool { return len(groups[roots[i]]) > len(groups[roots[j]]) })
	var out PUSimilarity
	for _, root := range roots {
		out.Groups = append(out.Groups, groups[root])
		out.Linking = append(out.Linking, link[root])
	}
	return out
}

// soft writes the soft analysis: performance classes with memberships,
// OWA scores and ranks, similarity groups and similarities.
func (w *writer) soft(s *SoftResult) {
	if s == nil {
		return
	}
	classes := map[string]bool{}
	typed := map[string]bool{}
	for _, m := range s.Memberships {
		cls := GraphIRI + ":class:" + escapeIRI(m.Expr) + ":" + escapeIRI(m.Term)
		if !classes[cls] {
			classes[cls] = true
			c := kb.IRI(cls)
			w.add(c, tType, kb.IRI(ontology.PerformanceClass))
			w.add(c, tType, kb.IRI(ontology.LinguisticTerm))
			w.add(c, kb.IRI(ontology.CharacteristicTerm), kb.String(m.Term))
			w.add(c, kb.IRI(ontology.TermName), kb.String(m.Term))
			w.add(c, kb.IRI(ontology.ClassifiedMetric), kb.String(m.Expr))
			for _, def := range append(append([]ClassDef{}, s.Config.Classes...), s.Config.Bottleneck...) {
				if def.Expr.String() == m.Expr && def.Term == m.Term {
					w.add(c, kb.IRI(ontology.MembershipFunction), kb.String(def.Fn.String()))
					break
				}
			}
		}
		w.typeRegion(m.Subject, m.Experiment, m.CodeRegion, typed)
		node := kb.IRI(m.Subject + "/fm/" + strconv.FormatUint(hash64(m.Expr+"\x00"+m.Term), 16))
		w.add(kb.IRI(m.Subject), kb.IRI(ontology.HasFuzzyMembership), node)
		w.add(node, tType, kb.IRI(ontology.FuzzyMembership))
		w.add(node, kb.IRI(ontology.MembershipTerm), kb.IRI(cls))
		w.add(node, kb.IRI(ontology.MembershipDegree), dbl(m.Degree))
		// The classified value as a metric of the subject that falls into
		// the class (Def. 3.23): ?m perfonto:hasPerformanceClass ?class,
		// with the degree on the same membership node.
		if finite(m.Value) {
			w.metric(m.Subject, m.Expr, "", m.Value)
			mn := kb.IRI(m.Subject + "/m/" + m.Expr)
			w.add(mn, kb.IRI(ontology.HasPerformanceClass), kb.IRI(cls))
			w.add(mn, kb.IRI(ontology.HasFuzzyMembership), node)
		}
	}
	for _, sc := range s.Scores {
		w.typeRegion(sc.Subject, sc.Experiment, sc.CodeRegion, typed)
		w.metric(sc.Subject, "owa_score", "", sc.OWA)
		w.add(kb.IRI(sc.Subject), kb.IRI(ontology.ScoreRank), integer(sc.Rank))
	}
	for _, g := range s.PUGroups {
		w.typeRegion(g.Subject, g.Experiment, g.CodeRegion, typed)
		for i, members := range g.Groups {
			gi := kb.IRI(g.Subject + "/pug/" + strconv.Itoa(i+1))
			w.add(kb.IRI(g.Subject), kb.IRI(ontology.HasSimilarityGroup), gi)
			w.add(gi, tType, kb.IRI(ontology.SimilarityGroup))
			w.add(gi, kb.IRI(ontology.SimilarityValue), dbl(g.Linking[i]))
			for _, pu := range members {
				w.add(gi, kb.IRI(ontology.GroupMember), kb.IRI(pu))
			}
		}
	}
	for _, x := range s.Similarity {
		w.metric(x.Subject, "similarity", "", x.Similarity)
	}
	w.factors(s.Factors)
	w.clusters(s.Clusters)
}

// typeRegion makes sure a region aggregate written only by the soft
// analysis is typed and linked (an experiment subject needs nothing).
func (w *writer) typeRegion(subject, exp, cr string, done map[string]bool) {
	if subject == exp || cr == "" || done[subject] {
		return
	}
	done[subject] = true
	s := kb.IRI(subject)
	w.add(s, tType, kb.IRI(ontology.RegionAggregate))
	w.add(s, kb.IRI(ontology.OfCodeRegion), kb.IRI(cr))
	w.add(s, kb.IRI(ontology.InExperiment), kb.IRI(exp))
}

func escapeIRI(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' {
			out = append(out, c)
		} else {
			out = append(out, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
		}
	}
	return string(out)
}
