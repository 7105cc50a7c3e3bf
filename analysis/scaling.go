package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/perfkb/perfkb/ontology"
)

// Group is a scaling group: experiments of one version, problem size and
// machine (5.5.3.2).
type Group struct {
	Version     string              `json:"version"`
	ProblemSize string              `json:"problemSize"`
	Machine     string              `json:"machine,omitempty"`
	Members     []*ExperimentResult `json:"-"` // by machine size, then IRI
	Baseline    *ExperimentResult   `json:"-"`
	// BaselineChoice says how the baseline was chosen.
	BaselineChoice string `json:"baselineChoice"`
	IRI            string `json:"iri"`
}

// Stat is a statistic of a value over threads or processes (5.4).
type Stat struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
}

func (s *Stat) add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.Mean = (s.Mean*float64(s.N) + v) / float64(s.N+1)
	s.N++
}

// merge combines per-process statistics into an experiment statistic: the
// minimum of the minima, the maximum of the maxima, the mean of the means.
func (s *Stat) merge(p Stat) {
	if p.N == 0 {
		return
	}
	if s.N == 0 || p.Min < s.Min {
		s.Min = p.Min
	}
	if s.N == 0 || p.Max > s.Max {
		s.Max = p.Max
	}
	s.Mean = (s.Mean*float64(s.N) + p.Mean) / float64(s.N+1)
	s.N++
}

// The overhead metrics the analysis computes, in output order.
var overheadNames = []string{"oall", "oall_ident", "oall_unid", "olopa"}

// ExperimentResult is the multi-experiment and overhead analysis of one
// experiment.
type ExperimentResult struct {
	Exp   *Experiment `json:"-"`
	Group *Group      `json:"-"`
	// Time is T(E), the largest wtime of the program region.
	Time    float64 `json:"time"`
	HasTime bool    `json:"-"`
	// Speedup and Efficiency relative to the group's baseline; Scaled is
	// false when they could not be computed (see the issues).
	Speedup    float64 `json:"speedup"`
	Efficiency float64 `json:"efficiency"`
	Scaled     bool    `json:"scaled"`
	// Overhead holds the experiment-level statistics of the program
	// region's overheads (oall, oall_ident, oall_unid, olopa).
	Overhead map[string]Stat `json:"overhead,omitempty"`
	Regions  []*RegionResult `json:"-"`
}

// RegionResult is the analysis of one call path of an experiment.
type RegionResult struct {
	Region *Region
	// Time is the largest wtime over the processing units.
	Time       float64
	HasTime    bool
	Speedup    float64
	Efficiency float64
	Scaled     bool
	// Overhead: experiment-level statistics (over processes of per-process
	// statistics over threads).
	Overhead map[string]Stat
	// Process holds the per-process statistics, by process ID.
	Process map[int]map[string]Stat
	// PerSummary holds the computed overhead metrics of each region
	// summary (oall, oall_ident, oall_unid and olopa_* when computed).
	PerSummary map[*Summary]map[string]float64
	// Identified lists the identified-overhead metrics summed into
	// oall_ident somewhere in the region, sorted.
	Identified []string
}

// analyseScaling forms the scaling groups and computes speedup,
// efficiency and overheads.
func analyseScaling(d *Data, h *overheadHierarchy) ([]*Group, []*ExperimentResult, []Issue) {
	var issues []Issue
	results := make([]*ExperimentResult, 0, len(d.Experiments))
	groups := map[string]*Group{}
	var order []string
	for _, e := range d.Experiments {
		res := &ExperimentResult{Exp: e}
		results = append(results, res)
		for _, reg := range e.sortedRegions() {
			rr := &RegionResult{Region: reg}
			rr.Time, rr.HasTime = reg.Max("wtime")
			res.Regions = append(res.Regions, rr)
		}
		switch {
		case len(e.Regions) == 0:
			issues = append(issues, Issue{Experiment: e.IRI, Reason: "no region summaries (e.g. a traced experiment with region instances only); nothing to analyse"})
			continue
		case e.Program == "":
			issues = append(issues, Issue{Experiment: e.IRI, Reason: "no main program region (a region summary of a code region with hasCrType \"CR_P\"); no speedup, efficiency or overhead"})
			continue
		case e.Units == 0:
			issues = append(issues, Issue{Experiment: e.IRI, Reason: "no processing units with region summaries"})
			continue
		}
		res.Time, res.HasTime = e.Regions[e.Program].Max("wtime")
		if !res.HasTime {
			issues = append(issues, Issue{Experiment: e.IRI, Reason: "the program region has no numeric wtime; no speedup, efficiency or overhead"})
			continue
		}
		if e.Version == "" {
			issues = append(issues, Issue{Experiment: e.IRI, Reason: "no perfonto:ofVersion; not in any scaling group"})
			continue
		}
		key := e.Version + "\x00" + e.ProblemSize + "\x00" + e.Machine
		g := groups[key]
		if g == nil {
			g = &Group{Version: e.Version, ProblemSize: e.ProblemSize, Machine: e.Machine}
			groups[key] = g
			order = append(order, key)
		}
		g.Members = append(g.Members, res)
		res.Group = g
	}
	sort.Strings(order)
	var out []*Group
	for _, key := range order {
		g := groups[key]
		sort.SliceStable(g.Members, func(i, j int) bool {
			a, b := g.Members[i].Exp, g.Members[j].Exp
			if a.Units != b.Units {
				return a.Units < b.Units
			}
			return a.IRI < b.IRI
		})
		g.IRI = g.Members[0].Exp.Version + "/scaling/" + strconv.FormatUint(hash64(key), 16)
		out = append(out, g)
		if len(g.Members) < 2 {
			issues = append(issues, Issue{Experiment: g.Members[0].Exp.IRI, Reason: fmt.Sprintf("the only experiment of version %s with problem size %q; no speedup, efficiency or overhead", g.Version, g.ProblemSize)})
			continue
		}
		b := g.Members[0]
		g.Baseline = b
		switch {
		case b.Exp.Units == 1:
			g.BaselineChoice = "sequential run (1 processing unit)"
		default:
			g.BaselineChoice = fmt.Sprintf("no sequential run: the smallest run (%d processing units); speedup relative to it, no overheads (T_o = T_p - T_s/p needs the sequential time T_s)", b.Exp.Units)
			if g.Members[1].Exp.Units == b.Exp.Units {
				g.BaselineChoice += fmt.Sprintf(", first by IRI of %d runs of that size", countUnits(g.Members, b.Exp.Units))
			}
		}
		if !(b.Time > 0) {
			for _, m := range g.Members {
				issues = append(issues, Issue{Experiment: m.Exp.IRI, Reason: fmt.Sprintf("baseline %s has program time %g; no speedup, efficiency or overhead", b.Exp.IRI, b.Time)})
			}
			continue
		}
		for _, m := range g.Members {
			if !(m.Time > 0) {
				issues = append(issues, Issue{Experiment: m.Exp.IRI, Reason: fmt.Sprintf("program time %g; no speedup or efficiency", m.Time)})
				continue
			}
			m.Speedup = b.Time / m.Time
			m.Efficiency = m.Speedup * float64(b.Exp.Units) / float64(m.Exp.Units)
			m.Scaled = finite(m.Speedup) && finite(m.Efficiency)
			regionScaling(b, m)
			if m != b && b.Exp.Units == 1 {
				overhead(b, m, h)
			}
		}
	}
	return out, results, issues
}

func countUnits(ms []*ExperimentResult, units int) int {
	n := 0
	for _, m := range ms {
		if m.Exp.Units == units {
			n++
		}
	}
	return n
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// regionScaling computes region-level speedup and efficiency of m against
// baseline b, per call path, from the largest wtime over processing units.
func regionScaling(b, m *ExperimentResult) {
	base := map[string]*RegionResult{}
	for _, r := range b.Regions {
		base[r.Region.Path] = r
	}
	for _, r := range m.Regions {
		br := base[r.Region.Path]
		if br == nil || !br.HasTime || !r.HasTime || !(br.Time > 0) || !(r.Time > 0) {
			continue
		}
		r.Speedup = br.Time / r.Time
		r.Efficiency = r.Speedup * float64(b.Exp.Units) / float64(m.Exp.Units)
		r.Scaled = finite(r.Speedup) && finite(r.Efficiency)
	}
}

// overhead computes the temporal overheads (5.2, 5.4) of every region
// summary of m against the sequential baseline b: oall = T_p - T_s/n with
// T_s the baseline's region time times its machine size (1), oall_ident
// the identified-overhead metrics present plus the loss of parallelism
// (5.2.5) plus, bottom-up over the DRG as in Fig. 5.2, the identified
// overhead classes of its children on the same unit that it does not
// measure itself, oall_unid = oall - oall_ident; then per process (over
// threads) and per experiment (over processes).
func overhead(b, m *ExperimentResult, h *overheadHierarchy) {
	n := float64(m.Exp.Units)
	base := map[string]*RegionResult{}
	for _, r := range b.Regions {
		base[r.Region.Path] = r
	}
	children := map[string][]string{}
	for _, r := range m.Regions {
		if r.Region.Parent != "" {
			children[r.Region.Parent] = append(children[r.Region.Parent], r.Region.Path)
		}
	}
	// breakdown[path][pu] is the identified overhead of a region summary by
	// overhead class, computed bottom-up over the DRG (Fig. 5.2).
	breakdown := map[string]map[*PU]map[string]float64{}
	for i := len(m.Regions) - 1; i >= 0; i-- { // deepest call paths first
		r := m.Regions[i]
		reg := r.Region
		ts := 0.0 // a region the baseline lacks is parallel-programming code: T_s = 0 (5.4)
		if br := base[reg.Path]; br != nil && br.HasTime {
			ts = br.Time * float64(b.Exp.Units)
		}
		w := 0
		sumT := 0.0
		for _, s := range reg.Summary {
			if t, ok := s.Metrics.Get("wtime"); ok {
				w++
				sumT += t
			}
		}
		r.PerSummary = map[*Summary]map[string]float64{}
		r.Process = map[int]map[string]Stat{}
		breakdown[reg.Path] = map[*PU]map[string]float64{}
		idents := map[string]bool{}
		for _, s := range reg.Summary {
			t, ok := s.Metrics.Get("wtime")
			if !ok {
				continue
			}
			vals := map[string]float64{"oall": t - ts/n}
			bd := map[string]float64{}
			_, names, hasLoss := h.identified(s.Metrics)
			for _, nm := range names {
				idents[nm] = true
				bd[h.metric[nm]] += s.Metrics.Value(nm)
			}
			if !hasLoss && n > 1 {
				// Loss of parallelism (5.2.5) from who executed the region.
				switch {
				case w == 1:
					vals["olopa_unpar"] = (n - 1) * t / n // Eq. 5.1
					bd[ontology.UnparallelizedCodeOverhead] += vals["olopa_unpar"]
				case w > 1 && float64(w) < n:
					vals["olopa_ppar"] = t - sumT/n // Eq. 5.7
					bd[ontology.PartiallyParallelizedCodeOverhead] += vals["olopa_ppar"]
				case reg.CrType == "CR_OTHERREP":
					vals["olopa_repl"] = t - t/n // Eq. 5.6
					bd[ontology.ReplicatedCodeOverhead] += vals["olopa_repl"]
				}
			}
			// The children's identified overheads on the same unit, unless
			// this summary measured that class (or a coarser one) itself:
			// each overhead is counted once (5.2.7).
			own := map[string]bool{}
			for c := range bd {
				own[c] = true
			}
			for _, c := range children[reg.Path] {
				for class, v := range breakdown[c][s.PU] {
					covered := own[class]
					for a := range h.ances[class] {
						covered = covered || own[a]
					}
					if !covered {
						bd[class] += v
					}
				}
			}
			breakdown[reg.Path][s.PU] = bd
			classes := make([]string, 0, len(bd))
			for c := range bd {
				classes = append(classes, c)
			}
			sort.Strings(classes) // a fixed order gives the same sums every run
			ident, loss, hasAnyLoss := 0.0, 0.0, false
			for _, c := range classes {
				ident += bd[c]
				if h.isLossOfParallelism(c) {
					loss += bd[c]
					hasAnyLoss = true
				}
			}
			if hasAnyLoss {
				vals["olopa"] = loss
			}
			vals["oall_ident"] = ident
			vals["oall_unid"] = vals["oall"] - ident
			r.PerSummary[s] = vals
			ps := r.Process[s.PU.Process]
			if ps == nil {
				ps = map[string]Stat{}
				r.Process[s.PU.Process] = ps
			}
			for _, k := range overheadNames {
				if v, ok := vals[k]; ok {
					st := ps[k]
					st.add(v)
					ps[k] = st
				}
			}
		}
		r.Overhead = map[string]Stat{}
		procs := make([]int, 0, len(r.Process))
		for p := range r.Process {
			procs = append(procs, p)
		}
		sort.Ints(procs)
		for _, p := range procs {
			for k, st := range r.Process[p] {
				e := r.Overhead[k]
				e.merge(st)
				r.Overhead[k] = e
			}
		}
		for nm := range idents {
			r.Identified = append(r.Identified, nm)
		}
		sort.Strings(r.Identified)
		if reg.Path == m.Exp.Program {
			m.Overhead = r.Overhead
		}
	}
}

// hash64 is FNV-1a, for short stable IRI segments.
func hash64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
