package analysis

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

func loadTTL(t *testing.T, file string) *native.MemStore {
	t.Helper()
	ds := native.OpenMemory()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := rdfio.Load(context.Background(), ds, f, rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: file, Graph: kb.IRI("http://example.org/site")}); err != nil {
		t.Fatal(err)
	}
	return ds
}

const ex = "http://example.org/"

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestHandBuiltScalingGroup checks every value of the p = 1, 4, 8 group of
// testdata/scaling.ttl against numbers worked out by hand:
//
//	T(e1) = 1000, T(e4) = 400, T(e8) = 260 (largest main wtime)
//	speedup e4 = 1000/400 = 2.5, efficiency = 2.5·1/4 = 0.625
//	speedup e8 = 1000/260, efficiency = (1000/260)/8
//	work: 800/220 and 800/110; setup: 100/100 = 1, efficiency 1/4 and 1/8
//	oall(rs) = wtime − T_s/n with T_s = baseline region time (n_b = 1)
//	main e4: oall 150 140 | 130 120, ident = osync + odata_p2p = 40 35 | 40 50,
//	  plus on p0t0 the setup's loss of parallelism (Fig. 5.2: a node's
//	  identified overhead includes its children's, each class once; main's
//	  own odata_p2p covers the exchange's): 40 + 75 = 115
//	setup (one unit of n): olopa_unpar = (n−1)·T/n (Eq. 5.1) = oall, unid 0
//	exchange (not in e1): T_s = 0, oall = wtime, ident = odata_p2p
//	main e8 p0t0: oall 135, ident 5 + 50 + 87.5 = 142.5, unid −7.5 (over-identified)
//
// TestHandBuiltScalingGroup checks the analyses against hand computations,
// both as Run reads the store and over data read once for several views
// (RunData, as the server's workbench does).
func TestHandBuiltScalingGroup(t *testing.T) {
	for _, way := range []struct {
		name string
		run  func(context.Context, kb.Dataset) (*Result, error)
	}{
		{"Run", func(ctx context.Context, ds kb.Dataset) (*Result, error) { return Run(ctx, ds, Options{}) }},
		{"RunData", func(ctx context.Context, ds kb.Dataset) (*Result, error) {
			d, err := Read(ctx, ds)
			if err != nil {
				return nil, err
			}
			return RunData(ctx, ds, d, Options{})
		}},
	} {
		t.Run(way.name, func(t *testing.T) {
			res, err := way.run(context.Background(), loadTTL(t, "scaling.ttl"))
			if err != nil {
				t.Fatal(err)
			}
			checkHandBuiltScalingGroup(t, res)
		})
	}
}

func checkHandBuiltScalingGroup(t *testing.T, res *Result) {
	if len(res.Issues) != 0 {
		t.Errorf("issues: %v", res.Issues)
	}
	if len(res.Groups) != 1 || res.Groups[0].Baseline == nil || res.Groups[0].Baseline.Exp.IRI != ex+"e1" {
		t.Fatalf("groups: %+v", res.Groups)
	}
	if got := res.Groups[0].BaselineChoice; !strings.Contains(got, "sequential") {
		t.Errorf("baseline choice %q", got)
	}
	type factors struct{ procs, threads, units int }
	for iri, want := range map[string]factors{"e1": {1, 1, 1}, "e4": {2, 2, 4}, "e8": {4, 2, 8}} {
		e := res.Experiment(ex + iri).Exp
		if got := (factors{e.Processes, e.Threads, e.Units}); got != want {
			t.Errorf("%s factors %+v, want %+v", iri, got, want)
		}
	}
	programs := []struct {
		exp                       string
		time, speedup, efficiency float64
	}{
		{"e1", 1000, 1, 1},
		{"e4", 400, 2.5, 0.625},
		{"e8", 260, 1000.0 / 260, 1000.0 / 260 / 8},
	}
	for _, tc := range programs {
		e := res.Experiment(ex + tc.exp)
		if !e.Scaled || !near(e.Time, tc.time) || !near(e.Speedup, tc.speedup) || !near(e.Efficiency, tc.efficiency) {
			t.Errorf("%s: T %g speedup %g efficiency %g (scaled %v), want %g %g %g", tc.exp, e.Time, e.Speedup, e.Efficiency, e.Scaled, tc.time, tc.speedup, tc.efficiency)
		}
	}
	region := func(exp, name string) *RegionResult {
		for _, r := range res.Experiment(ex + exp).Regions {
			if r.Region.Name == name {
				return r
			}
		}
		t.Fatalf("%s has no region %s", exp, name)
		return nil
	}
	regions := []struct {
		exp, region         string
		speedup, efficiency float64
		scaled              bool
	}{
		{"e4", "work", 800.0 / 220, 800.0 / 220 / 4, true},
		{"e8", "work", 800.0 / 110, 800.0 / 110 / 8, true},
		{"e4", "setup", 1, 0.25, true},
		{"e8", "setup", 1, 0.125, true},
		{"e4", "main", 2.5, 0.625, true},
		{"e4", "exchange", 0, 0, false}, // not in the baseline
	}
	for _, tc := range regions {
		r := region(tc.exp, tc.region)
		if r.Scaled != tc.scaled || !near(r.Speedup, tc.speedup) || !near(r.Efficiency, tc.efficiency) {
			t.Errorf("%s/%s: speedup %g efficiency %g scaled %v, want %g %g %v", tc.exp, tc.region, r.Speedup, r.Efficiency, r.Scaled, tc.speedup, tc.efficiency, tc.scaled)
		}
	}
	// Per region summary: (exp, region, process, thread) -> oall, ident, unid.
	perRS := []struct {
		exp, region     string
		p, t            int
		oall, ident, un float64
		olopa           float64
	}{
		{"e4", "main", 0, 0, 150, 115, 35, 75},
		{"e4", "main", 0, 1, 140, 35, 105, 0},
		{"e4", "main", 1, 0, 130, 40, 90, 0},
		{"e4", "main", 1, 1, 120, 50, 70, 0},
		{"e4", "work", 0, 0, 10, 0, 10, 0},
		{"e4", "work", 1, 0, 0, 0, 0, 0},
		{"e4", "work", 1, 1, 20, 0, 20, 0},
		{"e4", "exchange", 0, 0, 40, 30, 10, 0},
		{"e4", "exchange", 1, 1, 45, 40, 5, 0},
		{"e4", "setup", 0, 0, 75, 75, 0, 75},
		{"e8", "main", 0, 0, 135, 142.5, -7.5, 87.5},
		{"e8", "main", 3, 1, 125, 55, 70, 0},
		{"e8", "work", 2, 0, 10, 0, 10, 0},
		{"e8", "exchange", 1, 1, 60, 50, 10, 0},
		{"e8", "setup", 0, 0, 87.5, 87.5, 0, 87.5},
	}
	for _, tc := range perRS {
		r := region(tc.exp, tc.region)
		var vals map[string]float64
		for s, v := range r.PerSummary {
			if s.PU.Process == tc.p && s.PU.Thread == tc.t {
				vals = v
			}
		}
		if vals == nil {
			t.Errorf("%s/%s p%dt%d: no overhead", tc.exp, tc.region, tc.p, tc.t)
			continue
		}
		if !near(vals["oall"], tc.oall) || !near(vals["oall_ident"], tc.ident) || !near(vals["oall_unid"], tc.un) || !near(vals["olopa"], tc.olopa) {
			t.Errorf("%s/%s p%dt%d: %v, want oall %g ident %g unid %g olopa %g", tc.exp, tc.region, tc.p, tc.t, vals, tc.oall, tc.ident, tc.un, tc.olopa)
		}
	}
	// Aggregation: per process over threads, per experiment over processes
	// (min of minima, max of maxima, mean of means).
	aggs := []struct {
		exp, region, metric string
		process             int // -1: experiment level
		want                Stat
	}{
		{"e4", "main", "oall", 0, Stat{Min: 140, Max: 150, Mean: 145}},
		{"e4", "main", "oall", 1, Stat{Min: 120, Max: 130, Mean: 125}},
		{"e4", "main", "oall_ident", 0, Stat{Min: 35, Max: 115, Mean: 75}},
		{"e4", "main", "oall_ident", 1, Stat{Min: 40, Max: 50, Mean: 45}},
		{"e4", "main", "oall_unid", 0, Stat{Min: 35, Max: 105, Mean: 70}},
		{"e4", "main", "oall_unid", 1, Stat{Min: 70, Max: 90, Mean: 80}},
		{"e4", "main", "oall", -1, Stat{Min: 120, Max: 150, Mean: 135}},
		{"e4", "main", "oall_ident", -1, Stat{Min: 35, Max: 115, Mean: 60}},
		{"e4", "main", "oall_unid", -1, Stat{Min: 35, Max: 105, Mean: 75}},
		{"e8", "main", "oall", 0, Stat{Min: 125, Max: 135, Mean: 130}},
		{"e8", "main", "oall", 2, Stat{Min: 125, Max: 125, Mean: 125}},
		{"e8", "main", "oall", -1, Stat{Min: 125, Max: 135, Mean: 126.25}},
		{"e8", "main", "oall_unid", -1, Stat{Min: -7.5, Max: 70, Mean: 60.3125}},
		{"e8", "main", "oall_ident", -1, Stat{Min: 55, Max: 142.5, Mean: 65.9375}},
		{"e4", "main", "olopa", 0, Stat{Min: 75, Max: 75, Mean: 75}},
		{"e8", "setup", "olopa", -1, Stat{Min: 87.5, Max: 87.5, Mean: 87.5}},
	}
	for _, tc := range aggs {
		r := region(tc.exp, tc.region)
		st := r.Overhead[tc.metric]
		if tc.process >= 0 {
			st = r.Process[tc.process][tc.metric]
		}
		if !near(st.Min, tc.want.Min) || !near(st.Max, tc.want.Max) || !near(st.Mean, tc.want.Mean) {
			t.Errorf("%s/%s %s process %d: %+v, want %+v", tc.exp, tc.region, tc.metric, tc.process, st, tc.want)
		}
	}
	if st := res.Experiment(ex + "e4").Overhead["oall"]; !near(st.Mean, 135) {
		t.Errorf("e4 experiment-level oall %+v, want mean 135", st)
	}
	// Soft analysis: similarity of e4's work region to the baseline's
	// (Eq. 5.18/5.19 with the larger value as base: 1 - |1 - 220/800|) and
	// its OWA score relative to the program with the shipped scores: wtime
	// (weight 0.6) 220/400 and the computed oall (0.2) 20/150; odata_p2p and
	// osync are absent from the region and left out (Eq. 5.15).
	foundSim, foundScore := false, false
	workE4 := RegionIRI(ex+"e4", region("e4", "work").Region.Path)
	for _, s := range res.Soft.Similarity {
		if s.Subject == workE4 {
			foundSim = true
			if !near(s.Similarity, 220.0/800) {
				t.Errorf("similarity of e4/work %g, want %g", s.Similarity, 220.0/800)
			}
		}
	}
	for _, s := range res.Soft.Scores {
		if s.Subject == workE4 {
			foundScore = true
			if want := (0.6*220/400 + 0.2*20/150) / 0.8; !near(s.OWA, want) {
				t.Errorf("OWA score of e4/work %g, want %g", s.OWA, want)
			}
		}
	}
	if !foundSim || !foundScore {
		t.Errorf("similarity found %v, score found %v", foundSim, foundScore)
	}
	// PoorScalability: exactly the setup region in e4 (medium) and e8 (high).
	flagged := map[string]string{}
	for _, f := range res.Findings {
		if f.Type == ontology.PoorScalability {
			flagged[f.Subject.Value] = f.SeverityClass
		}
	}
	want := map[string]string{
		RegionIRI(ex+"e4", region("e4", "setup").Region.Path): "medium",
		RegionIRI(ex+"e8", region("e8", "setup").Region.Path): "high",
	}
	if len(flagged) != len(want) {
		t.Errorf("PoorScalability on %v, want %v", flagged, want)
	}
	for s, c := range want {
		if flagged[s] != c {
			t.Errorf("PoorScalability on %s: %q, want %q", s, flagged[s], c)
		}
	}
}

// TestWrittenGraph checks the triples in urn:x-perfkb:analysis with SPARQL-
// shaped lookups: the efficiency metric on the experiment and that a second
// run replaces the graph instead of adding to it.
func TestWrittenGraph(t *testing.T) {
	ctx := context.Background()
	ds := loadTTL(t, "scaling.ttl")
	first, err := Run(ctx, ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, _, _ := ds.Lookup(ctx, Graph)
	n1, _ := ds.Count(ctx, kb.Pattern{G: g}, true)
	if n1 == 0 || int(n1) != first.Quads {
		t.Fatalf("analysis graph has %d quads, run reported %d", n1, first.Quads)
	}
	if _, err := Run(ctx, ds, Options{}); err != nil {
		t.Fatal(err)
	}
	n2, _ := ds.Count(ctx, kb.Pattern{G: g}, true)
	if n1 != n2 {
		t.Errorf("second run: %d quads, first %d (the graph must be replaced)", n2, n1)
	}
	m := kb.IRI(ex + "e4/m/efficiency")
	for _, tr := range []kb.Triple{
		{S: kb.IRI(ex + "e4"), P: kb.IRI(ontology.HasMetric), O: m},
		{S: m, P: kb.IRI(ontology.HasMetricName), O: kb.String("efficiency")},
		{S: m, P: kb.IRI(ontology.HasMetricValue), O: dbl(0.625)},
	} {
		if !has(t, ds, tr) {
			t.Errorf("missing %v", tr)
		}
	}
}

func has(t *testing.T, ds kb.Dataset, tr kb.Triple) bool {
	t.Helper()
	ctx := context.Background()
	var ids [3]kb.ID
	for i, term := range []kb.Term{tr.S, tr.P, tr.O} {
		id, ok, err := ds.Lookup(ctx, term)
		if err != nil || !ok {
			return false
		}
		ids[i] = id
	}
	n, _ := ds.Count(ctx, kb.Pattern{S: ids[0], P: ids[1], O: ids[2]}, true)
	return n > 0
}

// TestBadInput: each kind of bad input is reported for its experiment and
// skipped, and nothing that is not finite is written.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	ds := loadTTL(t, "bad.ttl")
	res, err := Run(ctx, ds, Options{Diffs: [][2]string{{ex + "textual", ex + "textual2"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		ex + "noprog":   "no main program region",
		ex + "lonely":   "the only experiment",
		ex + "zero1":    "has program time 0",
		ex + "zero4":    "has program time 0",
		ex + "textual":  "non-numeric value",
		ex + "textual2": "metric L1_DCM has the non-numeric value",
	}
	got := map[string]string{}
	for _, i := range res.Issues {
		got[i.Experiment] += i.Reason + "; "
	}
	for e, reason := range want {
		if !strings.Contains(got[e], reason) {
			t.Errorf("%s: issues %q, want one containing %q", e, got[e], reason)
		}
	}
	g, _, _ := ds.Lookup(ctx, Graph)
	quads, _ := kb.Collect(ds.Match(ctx, kb.Pattern{G: g}))
	for _, q := range quads {
		o, _ := ds.Resolve(ctx, q.O)
		if o.IsLiteral() && (strings.Contains(o.Value, "Inf") || strings.Contains(o.Value, "NaN")) {
			t.Errorf("non-finite value written: %v", o)
		}
	}
	for _, e := range []string{"zero4", "lonely", "noprog"} {
		if r := res.Experiment(ex + e); r == nil || r.Scaled {
			t.Errorf("%s: scaled despite bad input", e)
		}
	}
}

// TestDiffOnlyIn: the exchange region exists only in the parallel run.
func TestDiffOnlyIn(t *testing.T) {
	ctx := context.Background()
	d, err := Read(ctx, loadTTL(t, "scaling.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	df, err := Compare(ctx, d, ex+"e1", ex+"e4")
	if err != nil {
		t.Fatal(err)
	}
	only := map[string]string{}
	for _, r := range df.Rows {
		if r.OnlyIn != "" {
			only[r.Region+" "+r.Metric] = r.OnlyIn
		}
		if r.Region == "main [CR_P]" && r.Metric == "wtime" && (!near(r.Diff, -600) || !near(r.Ratio, 0.4)) {
			t.Errorf("main wtime row %+v, want difference -600 and ratio 0.4", r)
		}
	}
	want := map[string]string{
		"main [CR_P] > exchange [CR_MPIP2P] wtime":     "trial",
		"main [CR_P] > exchange [CR_MPIP2P] odata_p2p": "trial",
		"main [CR_P] osync":                            "trial",
		"main [CR_P] odata_p2p":                        "trial",
	}
	if len(only) != len(want) {
		t.Errorf("only-in rows %v, want %v", only, want)
	}
	for k, v := range want {
		if only[k] != v {
			t.Errorf("%s: only in %q, want %q", k, only[k], v)
		}
	}
	if _, err := Compare(ctx, d, ex+"e1", ex+"nope"); !errors.Is(err, ErrNoExperiment) {
		t.Errorf("unknown experiment: %v", err)
	}
}

// TestBottleneckSearch: fuzzy bottleneck search (5.6.9) on the hand-built
// p = 4 run with wtime relative to the program (400 us): work 220 (0.55),
// exchange 45 (0.1125), setup 100 (0.25).
func TestBottleneckSearch(t *testing.T) {
	cfg, err := ParseSoftConfig("test.conf", `
bottleneck wtime/program negligible triangle 0 0.1 0.2
bottleneck wtime/program high s 0.2 0.6
`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), loadTTL(t, "scaling.ttl"), Options{Soft: cfg, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	type hit struct {
		negligible bool
		degrees    map[string]float64
	}
	got := map[string]hit{}
	for _, b := range res.Soft.Bottlenecks {
		if b.Experiment == ex+"e4" {
			got[b.Region] = hit{b.Negligible, b.Degrees}
		}
	}
	want := map[string]hit{
		// s(0.55; 0.2, 0.6) = 1 - 2((0.6-0.55)/0.4)² = 0.96875
		"main [CR_P] > work [CR_L]": {false, map[string]float64{"high": 0.96875}},
		// triangle(0.1125; 0, 0.1, 0.2) = 0.875; s(0.1125; 0.2, 0.6) = 0
		"main [CR_P] > exchange [CR_MPIP2P]": {true, map[string]float64{"negligible": 0.875}},
		// s(0.25; 0.2, 0.6) = 2(0.05/0.4)² = 0.03125
		"main [CR_P] > setup [CR_OTHERSEQ]": {false, map[string]float64{"high": 0.03125}},
	}
	if len(got) != len(want) {
		t.Errorf("bottlenecks %v, want %v", got, want)
	}
	for region, w := range want {
		g, ok := got[region]
		if !ok || g.negligible != w.negligible || len(g.degrees) != len(w.degrees) {
			t.Errorf("%s: %+v, want %+v", region, g, w)
			continue
		}
		for term, d := range w.degrees {
			if !near(g.degrees[term], d) {
				t.Errorf("%s %s: %g, want %g", region, term, g.degrees[term], d)
			}
		}
	}
}
