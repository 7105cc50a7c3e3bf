package analysis

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

// Options control Run.
type Options struct {
	// Soft configures the soft analysis; nil uses DefaultSoftConfig.
	Soft *SoftConfig
	// Diffs lists (base, trial) experiment IRI pairs to compare; their
	// differences are written to the analysis graph too.
	Diffs [][2]string
	// NoRules skips the shipped SCALABILITY and MODELS rules.
	NoRules bool
	// NoModels skips the performance models (Extra-P-style PMNF fits per
	// series, call path and metric).
	NoModels bool
	// Models configures the performance models.
	Models ModelOptions
	// Defines overrides named constants of the SCALABILITY rules.
	Defines map[string]string
	// DryRun computes everything but leaves the store unchanged.
	DryRun bool
	// Progress, when set, is called at the start of each stage ("reading",
	// "scaling and overheads", "soft analysis", "rules", "writing") with
	// the number of experiments known so far.
	Progress func(stage string, experiments int)
}

// Result is everything one run computed.
type Result struct {
	Groups      []*Group
	Experiments []*ExperimentResult
	Diffs       []*Diff
	Soft        *SoftResult
	Models      *ModelResult
	Findings    []reasoner.Finding
	Issues      []Issue
	// Quads is the number of quads written to the analysis graph.
	Quads    int
	Duration time.Duration
	byIRI    map[string]*ExperimentResult
}

// Experiment returns the result of the experiment with the IRI, or nil.
func (r *Result) Experiment(iri string) *ExperimentResult { return r.byIRI[iri] }

// Run reads the experiments of ds, runs the multi-experiment, overhead and
// soft analyses and the SCALABILITY rules, and replaces the analysis graph
// with the results in one atomic Apply. Bad input is reported in
// Result.Issues and skipped.
func Run(ctx context.Context, ds kb.Dataset, opts Options) (*Result, error) {
	start := time.Now()
	h, cfg, err := setup(opts)
	if err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress("reading", 0)
	}
	d, err := ReadMetrics(ctx, ds, neededMetrics(h, cfg))
	if err != nil {
		return nil, err
	}
	return run(ctx, ds, d, opts, h, cfg, start)
}

// setup returns the overhead classification and the soft analysis's
// configuration an analysis runs with.
func setup(opts Options) (*overheadHierarchy, *SoftConfig, error) {
	h, err := overheads()
	if err != nil {
		return nil, nil, fmt.Errorf("analysis: overhead classification: %w", err)
	}
	cfg := opts.Soft
	if cfg == nil {
		cfg = DefaultSoftConfig()
	}
	return h, cfg, nil
}

// RunData is Run over data already read from ds (Read or ReadMetrics), so
// that a caller that keeps the data for other views reads the store once.
// The metric values Compare and the models need are resolved into d as
// they are used: d must not be read elsewhere meanwhile unless Read
// resolved every value.
func RunData(ctx context.Context, ds kb.Dataset, d *Data, opts Options) (*Result, error) {
	start := time.Now()
	h, cfg, err := setup(opts)
	if err != nil {
		return nil, err
	}
	return run(ctx, ds, d, opts, h, cfg, start)
}

func run(ctx context.Context, ds kb.Dataset, d *Data, opts Options, h *overheadHierarchy, cfg *SoftConfig, start time.Time) (*Result, error) {
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int) {}
	}
	progress("scaling and overheads", len(d.Experiments))
	res := &Result{Issues: append([]Issue{}, d.Issues...), byIRI: map[string]*ExperimentResult{}}
	var issues []Issue
	res.Groups, res.Experiments, issues = analyseScaling(d, h)
	res.Issues = append(res.Issues, issues...)
	for _, e := range res.Experiments {
		res.byIRI[e.Exp.IRI] = e
	}
	progress("soft analysis", len(d.Experiments))
	res.Soft = analyseSoft(res, cfg)
	readIssues := len(d.Issues)
	for _, pair := range opts.Diffs {
		df, err := Compare(ctx, d, pair[0], pair[1])
		if err != nil {
			return nil, err
		}
		res.Diffs = append(res.Diffs, df)
	}
	// Compare resolves the remaining metric values of its experiments and
	// reports non-numeric ones.
	res.Issues = append(res.Issues, d.Issues[readIssues:]...)
	if !opts.NoModels {
		progress("models", len(d.Experiments))
		readIssues = len(d.Issues)
		mr, err := fitModels(ctx, d, opts.Models)
		if err != nil {
			return nil, err
		}
		res.Models = mr
		res.Issues = append(res.Issues, d.Issues[readIssues:]...)
	}
	w := &writer{}
	w.results(res, h)
	w.soft(res.Soft)
	for _, df := range res.Diffs {
		w.diff(df)
	}
	w.models(res.Models)
	quads := w.quads
	if !opts.NoRules {
		progress("rules", len(d.Experiments))
		derived, findings, err := scalabilityRules(ctx, quads, modelRuleInput(res.Models), opts.Defines)
		if err != nil {
			return nil, err
		}
		quads = append(quads, derived...)
		res.Findings = findings
	}
	quads = dedupe(quads)
	res.Quads = len(quads)
	if !opts.DryRun {
		progress("writing", len(d.Experiments))
		if err := Replace(ctx, ds, quads); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(res.Issues, func(i, j int) bool { return res.Issues[i].Experiment < res.Issues[j].Experiment })
	res.Duration = time.Since(start)
	return res, nil
}

// scalabilityRules runs the SCALABILITY and MODELS rules over the part of
// the results they read (the efficiency metrics and the nodes they hang
// off, baselines and their sizes; the performance models, the code regions'
// links to them, their predictions and extra, the code region types of the
// models) and returns
// the derived quads and the findings.
func scalabilityRules(ctx context.Context, quads, extra []kb.TermQuad, defines map[string]string) ([]kb.TermQuad, []reasoner.Finding, error) {
	effName := kb.String("efficiency")
	eff := map[kb.Term]bool{}
	for _, q := range quads {
		if q.P == tName && q.O == effName {
			eff[q.S] = true
		}
	}
	keep := map[string]bool{ontology.HasBaseline: true, ontology.NumberOfProcessingUnits: true, ontology.InScalingGroup: true, ontology.HasPerformanceModel: true}
	model := map[kb.Term]bool{}
	for _, q := range quads {
		if q.P == tType && (q.O.Value == ontology.PerformanceModel || q.O.Value == ontology.ModelPrediction) {
			model[q.S] = true
		}
	}
	var input []kb.TermQuad
	for _, q := range quads {
		switch {
		case eff[q.S], q.P == tHasMetric && eff[q.O], keep[q.P.Value],
			q.P == tType && q.O.Value == ontology.RegionAggregate, model[q.S]:
			q.G = kb.DefaultGraph
			input = append(input, q)
		}
	}
	for _, q := range extra {
		q.G = kb.DefaultGraph
		input = append(input, q)
	}
	mem := native.OpenMemory()
	ids, err := kb.InternQuads(ctx, mem, input)
	if err != nil {
		return nil, nil, err
	}
	if err := mem.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		return nil, nil, err
	}
	prog, err := reasoner.LoadProgram([]string{"SCALABILITY", "MODELS"}, reasoner.ParseOptions{Defines: defines})
	if err != nil {
		return nil, nil, fmt.Errorf("analysis: scalability rules: %w", err)
	}
	if _, err := reasoner.Run(ctx, mem, prog, reasoner.Options{InferredGraph: Graph, NoDerivations: true}); err != nil {
		return nil, nil, fmt.Errorf("analysis: scalability rules: %w", err)
	}
	findings, err := reasoner.Findings(ctx, mem, reasoner.FindingFilter{})
	if err != nil {
		return nil, nil, err
	}
	var out []kb.TermQuad
	if g, ok, err := mem.Lookup(ctx, Graph); err != nil {
		return nil, nil, err
	} else if ok {
		derived, err := kb.Collect(mem.Match(ctx, kb.Pattern{G: g}))
		if err != nil {
			return nil, nil, err
		}
		for _, q := range derived {
			tq, err := kb.ResolveQuad(ctx, mem, q)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, tq)
		}
	}
	return out, findings, nil
}

// dedupe drops repeated quads (a region aggregate typed by two analyses),
// keeping the first of each.
func dedupe(quads []kb.TermQuad) []kb.TermQuad {
	seen := make(map[kb.TermQuad]bool, len(quads))
	out := quads[:0]
	for _, q := range quads {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

// neededMetrics names the metrics the analyses read: wtime, the overhead
// metrics and those of the soft analysis configuration.
func neededMetrics(h *overheadHierarchy, cfg *SoftConfig) map[string]bool {
	need := map[string]bool{"wtime": true}
	for n := range h.metric {
		need[n] = true
	}
	for _, n := range []string{"oall", "oall_ident", "oall_unid", "olopa", "olopa_unpar", "olopa_ppar", "olopa_repl"} {
		need[n] = true
	}
	for _, c := range append(append([]ClassDef{}, cfg.Classes...), cfg.Bottleneck...) {
		need[c.Expr.Metric] = true
		if c.Expr.Over != "program" {
			need[c.Expr.Over] = true
		}
	}
	for _, w := range append(append([]WeightedFn{}, cfg.Scores...), cfg.Similarity...) {
		need[w.Metric] = true
	}
	return need
}

// Replace swaps the content of the analysis graph for quads in one atomic
// Apply.
func Replace(ctx context.Context, ds kb.Dataset, quads []kb.TermQuad) error {
	var remove []kb.Quad
	g, ok, err := ds.Lookup(ctx, Graph)
	if err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	if ok {
		if remove, err = kb.Collect(ds.Match(ctx, kb.Pattern{G: g})); err != nil {
			return fmt.Errorf("analysis: %w", err)
		}
	}
	for i := range quads {
		quads[i].G = Graph
	}
	add, err := kb.InternQuads(ctx, ds, quads)
	if err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	if err := ds.Apply(ctx, kb.Delta{Remove: remove, Add: add}); err != nil {
		return fmt.Errorf("analysis: write <%s>: %w", GraphIRI, err)
	}
	return nil
}

// writer builds the analysis graph.
type writer struct {
	quads []kb.TermQuad
}

var (
	tType      = kb.IRI(ontology.RDFType)
	tHasMetric = kb.IRI(ontology.HasMetric)
	tMetric    = kb.IRI(ontology.PerformanceMetric)
	tName      = kb.IRI(ontology.HasMetricName)
	tValue     = kb.IRI(ontology.HasMetricValue)
	tStat      = kb.IRI(ontology.MetricStatistic)
)

func (w *writer) add(s, p, o kb.Term) {
	w.quads = append(w.quads, kb.TermQuad{S: s, P: p, O: o, G: Graph})
}

func dbl(v float64) kb.Term { return kb.Double(v) }

func integer(v int) kb.Term { return kb.Integer(int64(v)) }

// metric writes a PerformanceMetric node; a value that is not finite is
// never written (it would be a division by zero or worse).
func (w *writer) metric(subject string, name, stat string, v float64) {
	w.metricAt(subject, subject, name, stat, v)
}

// metricAt writes a metric of subject whose IRI starts with base.
func (w *writer) metricAt(subject, base, name, stat string, v float64) {
	if !finite(v) {
		return
	}
	iri := base + "/m/" + name
	if stat != "" {
		iri += "-" + stat
	}
	m := kb.IRI(iri)
	w.add(kb.IRI(subject), tHasMetric, m)
	w.add(m, tType, tMetric)
	w.add(m, tName, kb.String(name))
	w.add(m, tValue, dbl(v))
	if stat != "" {
		w.add(m, tStat, kb.String(stat))
	}
}

func (w *writer) stats(subject string, st map[string]Stat) {
	for _, k := range overheadNames {
		s, ok := st[k]
		if !ok || s.N == 0 {
			continue
		}
		w.metric(subject, k, "min", s.Min)
		w.metric(subject, k, "max", s.Max)
		w.metric(subject, k, "mean", s.Mean)
	}
}

// RegionIRI is the IRI of the experiment-level aggregate of a call path.
func RegionIRI(exp, path string) string {
	return exp + "/analysis/r" + strconv.FormatUint(hash64(path), 16)
}

func processRegionIRI(exp string, process int, path string) string {
	return exp + "/analysis/p" + strconv.Itoa(process) + "/r" + strconv.FormatUint(hash64(path), 16)
}

func (w *writer) results(res *Result, h *overheadHierarchy) {
	// The overhead classification, so "all communication overhead" is one
	// query over this graph (see the package doc).
	for _, t := range h.subclassTriples {
		w.add(kb.IRI(t[0]), kb.IRI(ontology.RDFSSubClassOf), kb.IRI(t[1]))
	}
	names := make([]string, 0, len(h.metric))
	for n := range h.metric {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		info, _ := ontology.LookupMetric(n)
		w.add(kb.IRI(info.IRI), kb.IRI(ontology.MetricMnemonic), kb.String(n))
		w.add(kb.IRI(info.IRI), kb.IRI(ontology.MeasuresOverhead), kb.IRI(h.metric[n]))
	}
	for _, g := range res.Groups {
		gi := kb.IRI(g.IRI)
		w.add(gi, tType, kb.IRI(ontology.ScalingGroup))
		label := "scaling group of " + g.Version
		if g.ProblemSize != "" {
			label += ", problem size " + g.ProblemSize
		}
		w.add(gi, kb.IRI(ontology.RDFSLabel), kb.String(label))
		if g.Baseline != nil {
			w.add(gi, kb.IRI(ontology.HasBaseline), kb.IRI(g.Baseline.Exp.IRI))
			w.add(gi, kb.IRI(ontology.BaselineChoice), kb.String(g.BaselineChoice))
		}
	}
	for _, e := range res.Experiments {
		x := e.Exp
		xi := kb.IRI(x.IRI)
		if x.Units > 0 {
			w.add(xi, kb.IRI(ontology.NumberOfProcessingUnits), integer(x.Units))
		}
		if x.Machine != "" {
			w.add(xi, kb.IRI(ontology.UsesCluster), kb.IRI(x.Machine))
		}
		if e.Group == nil {
			continue
		}
		w.add(xi, kb.IRI(ontology.InScalingGroup), kb.IRI(e.Group.IRI))
		if e.Group.Baseline == nil {
			continue
		}
		b := e.Group.Baseline.Exp.IRI
		w.add(xi, kb.IRI(ontology.HasBaseline), kb.IRI(b))
		if e.Scaled {
			w.metric(x.IRI, "speedup", "", e.Speedup)
			w.metric(x.IRI, "efficiency", "", e.Efficiency)
		}
		w.stats(x.IRI, e.Overhead)
		for _, r := range e.Regions {
			if !r.Scaled && r.Overhead == nil {
				continue
			}
			// The program's own results are the experiment's (above); its
			// per-summary and per-process overheads are written below.
			program := r.Region.Path == x.Program
			ri := RegionIRI(x.IRI, r.Region.Path)
			if !program {
				w.region(ri, x.IRI, b, r.Region)
			}
			if r.Scaled && !program {
				w.metric(ri, "speedup", "", r.Speedup)
				w.metric(ri, "efficiency", "", r.Efficiency)
			}
			if !program {
				w.stats(ri, r.Overhead)
			}
			// Per-process aggregates only where a process has several
			// threads (with one thread they equal the region summary).
			for _, s := range r.Region.Summary {
				vals := r.PerSummary[s]
				for _, k := range []string{"oall", "oall_ident", "oall_unid", "olopa", "olopa_unpar", "olopa_ppar", "olopa_repl"} {
					if v, ok := vals[k]; ok {
						if _, asserted := s.Metrics.Get(k); !asserted && (k != "olopa" || hasComputedLoss(vals)) {
							w.metricAt(s.IRI, s.IRI+"/analysis", k, "", v)
						}
					}
				}
			}
			for p, st := range r.Process {
				if st["oall"].N < 2 {
					continue
				}
				pi := processRegionIRI(x.IRI, p, r.Region.Path)
				w.region(pi, x.IRI, b, r.Region)
				for _, s := range r.Region.Summary {
					if s.PU.Process == p && s.PU.ProcessIRI != "" {
						w.add(kb.IRI(pi), kb.IRI(ontology.InProcessingUnit), kb.IRI(s.PU.ProcessIRI))
						break
					}
				}
				w.stats(pi, st)
			}
		}
	}
}

// hasComputedLoss reports whether the analysis computed a loss of
// parallelism for a summary (rather than summing measured ones).
func hasComputedLoss(vals map[string]float64) bool {
	_, a := vals["olopa_unpar"]
	_, b := vals["olopa_ppar"]
	_, c := vals["olopa_repl"]
	return a || b || c
}

// metric nodes of region summaries hang off the summary itself.
func (w *writer) region(iri, exp, baseline string, reg *Region) {
	ri := kb.IRI(iri)
	w.add(ri, tType, kb.IRI(ontology.RegionAggregate))
	w.add(ri, kb.IRI(ontology.OfCodeRegion), kb.IRI(reg.CR))
	w.add(ri, kb.IRI(ontology.InExperiment), kb.IRI(exp))
	w.add(ri, kb.IRI(ontology.HasBaseline), kb.IRI(baseline))
}

// round6 rounds for display.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
