package analysis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/internal/pmnf"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

// hotPercent reads an ExtrapolatedHotspot finding's description.
var hotPercent = regexp.MustCompile(`is predicted to take ([0-9.]+) % of the program's time at p = 4096(?:\.0)? \(threshold 30(?:\.0)? %\)$`)

// TestSampleModels checks the models of the sample scaling series against
// the generator's time model (ontology/sample/scaling.go): per version and
// problem size, p = 1..32; "update boundary" and "write results" take
// share·T_s/p (±0.05% jitter), so their model is c0 + c1·p^(-1) with c0
// near 0; the sequential setup takes 0.01·T_s at every p, so it has no
// growing term worth its name and, extrapolated to p = 4096, takes the
// share Amdahl's law predicts: 0.01·T_s of a program time of about
// (0.01 + 0.005 + 0.985/4096)·T_s, 0.64. Version 1's halo exchange takes
// 0.002·T_s + k·(p−1)·log2(p)·T_s on every process (k = 9e-5 for N=1000,
// half for N=2000): it grows faster than p, and PoorScalingModel flags it
// and nothing else.
func TestSampleModels(t *testing.T) {
	ctx := context.Background()
	ds, _ := sampleStore(t)
	res, err := Run(ctx, ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, s := range res.Models.Series {
		if strings.Contains(s.Version, "/Stommel/") {
			series++
			if len(s.Params) != 1 || s.Params[0] != "p" || s.Points != len(sample.ScalingProcesses) {
				t.Errorf("series %s: params %v, %d points", s.IRI, s.Params, s.Points)
			}
		}
	}
	if series != 2*2*len(sample.ScalingProblemSizes) {
		t.Errorf("%d Stommel series, want 2 sites x 2 versions x 2 sizes", series)
	}
	hot := map[string]bool{}
	hotText := map[string]string{}
	poor := map[string]reasonerFinding{}
	for _, f := range res.Findings {
		if f.Type == ontology.ExtrapolatedHotspot {
			hot[f.Subject.Value] = true
			hotText[f.Subject.Value] = f.Description
		}
		if f.Type == ontology.PoorScalingModel {
			poor[f.Subject.Value] = reasonerFinding{f.Description, f.SeverityClass}
		}
	}
	const exchange = "main [CR_P] > solve [CR_Y] > time step loop [CR_U] > exchange halo [CR_MPIP2P]"
	var exchV1 []string
	for _, rm := range res.Models.Models {
		if rm.Metric == "wtime" && rm.Name == exchange && strings.Contains(rm.Series.Version, "/Stommel/v1") {
			exchV1 = append(exchV1, rm.IRI)
			f, ok := poor[rm.IRI]
			if !ok {
				t.Errorf("%s %s: model %s not flagged PoorScalingModel", rm.Series.IRI, rm.Name, rm.Model)
				continue
			}
			if g, _ := rm.Model.Growth(0); g.Poly() <= 1 || !strings.Contains(f.text, exchange+" grows as ") || f.class != "high" {
				t.Errorf("%s: PoorScalingModel %q (%s) on model %s", rm.Series.IRI, f.text, f.class, rm.Model)
			}
		}
	}
	if len(exchV1) != 2*len(sample.ScalingProblemSizes) || len(poor) != len(exchV1) {
		t.Errorf("PoorScalingModel on %d models, want exactly version 1's exchange in each of its %d series (%d)", len(poor), 2*len(sample.ScalingProblemSizes), len(exchV1))
	}
	// The report shows the finding with the rule's advice.
	tables := res.modelTables(func(string) bool { return true })
	var found, advice bool
	for _, tb := range tables {
		for _, row := range tb.Rows {
			switch {
			case tb.Name == "model findings" && row[0] == "PoorScalingModel" && row[3] == exchange:
				found = true
			case tb.Name == "advice" && row[0] == "PoorScalingModel":
				advice = strings.Contains(fmt.Sprint(row[1]), "communication")
			}
		}
	}
	if !found || !advice {
		t.Errorf("report: PoorScalingModel finding on the exchange %v, its advice %v", found, advice)
	}
	// The summary's findings table names what each finding is about: the
	// model's version, problem size, call path and metric, not its IRI.
	// Both sites have a version v1, so the name says whose it is
	// ("innsbruck/app/Stommel/v1"), and no two findings are named alike.
	sum, err := res.Tables(KindSummary, nil)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	abouts := map[string]bool{}
	for _, tb := range sum {
		for _, row := range tb.Rows {
			if tb.Name == "findings" && row[0] == "PoorScalingModel" {
				about := fmt.Sprint(row[1])
				site := ""
				for _, rm := range res.Models.Models {
					if rm.IRI == row[4] {
						site, _, _ = strings.Cut(strings.TrimPrefix(rm.Series.Version, "http://perfkb.example/site/"), "/")
					}
				}
				if site == "" || !strings.HasPrefix(about, site+"/") || !strings.Contains(about, "/v1 N=") || !strings.HasSuffix(about, ": "+exchange+" (wtime)") {
					t.Errorf("findings table: PoorScalingModel about %q, want \"%s/.../v1 N=...: %s (wtime)\"", about, site, exchange)
				}
				if abouts[about] {
					t.Errorf("findings table: two PoorScalingModel findings about %q", about)
				}
				abouts[about] = true
				named++
			}
		}
	}
	if named != len(exchV1) {
		t.Errorf("findings table: %d PoorScalingModel rows, want %d", named, len(exchV1))
	}
	// pf:predict over the stored models: at p = 32 version 1's exchange
	// models give the generator's time, (0.002 + 9e-5·31·5)·2e7 = 319,000
	// µs for N=1000 and (0.002 + 4.5e-5·31·5)·8e7 = 718,000 µs for N=2000,
	// within the fit's error; extrapolated to 4096 they grow faster than p.
	rows := selectColumn(t, ds, `PREFIX perfonto: <`+ontology.Namespace+`>
PREFIX pf: <urn:x-perfkb:function#>
SELECT ?t32 ?ratio WHERE {
  ?m a perfonto:PerformanceModel ; perfonto:modelledMetric "wtime" ; perfonto:callPath "`+exchange+`" ;
     perfonto:modelFormula ?f ; perfonto:hasProblem ?p .
  ?p a perfonto:PoorScalingModel .
  BIND (pf:predict(?f, 32) AS ?t32)
  BIND (pf:predict(?f, 4096) / ?t32 AS ?ratio) }`)
	near := map[float64]int{}
	for _, r := range rows {
		var t32, ratio float64
		if _, err := fmt.Sscan(r, &t32, &ratio); err != nil {
			t.Fatalf("pf:predict row %q: %v", r, err)
		}
		for _, want := range []float64{319000, 718000} {
			if math.Abs(t32-want) <= 0.03*want {
				near[want]++
			}
		}
		if ratio <= 4096/32 {
			t.Errorf("pf:predict: exchange grows by %.4g from p=32 to 4096, want more than 128 (faster than p)", ratio)
		}
	}
	if len(rows) != len(exchV1) || near[319000] != len(sample.SiteNames(2)) || near[718000] != len(sample.SiteNames(2)) {
		t.Errorf("pf:predict(?f, 32) on the flagged exchange models: %q, want 319000 and 718000 (±3%%) once per site", rows)
	}
	checked := 0
	for _, rm := range res.Models.Models {
		if rm.Metric != "wtime" || !strings.Contains(rm.Series.Version, "/Stommel/") {
			continue
		}
		// A region's time is part of the program's, whatever the models
		// (a negative prediction has no share).
		for _, pr := range rm.Predictions {
			if pr.Value >= 0 && !(pr.Share >= 0 && pr.Share <= 1) {
				t.Errorf("%s %s: predicted share at p=%g is %g, want within [0, 1]", rm.Series.IRI, rm.Name, pr.P, pr.Share)
			}
		}
		m := rm.Model
		switch {
		case strings.HasSuffix(rm.Name, "update boundary [CR_L]"), strings.HasSuffix(rm.Name, "write results [CR_W]"):
			checked++
			if len(m.Terms) != 1 || m.Terms[0].Factors[0].Exp != (pmnf.Exponent{Num: -1, Den: 1}) || m.Terms[0].Coefficient <= 0 {
				t.Errorf("%s: model %s, want c0 + c1·p^(-1)", rm.Name, m)
			}
			if v1 := m.Eval([]float64{1}); m.Constant/v1 > 0.001 || m.Constant/v1 < -0.001 {
				t.Errorf("%s: model %s: c0 is %.3g of the time at p=1, want about 0", rm.Name, m, m.Constant/v1)
			}
			if hot[rm.IRI] {
				t.Errorf("%s flagged as an extrapolated hotspot", rm.Name)
			}
		case strings.HasSuffix(rm.Name, "sequential setup [CR_OTHERSEQ]"):
			checked++
			if sh := growthShare(rm.Series, m, 0); sh > 0.01 {
				t.Errorf("%s: model %s: growing term is %.3g of the time", rm.Name, m, sh)
			}
			// Version 2: Amdahl's share, checked loosely as the program's
			// model is less exact than the setup's. Version 1: the exchange,
			// growing faster than p, takes nearly all of the time at 4096
			// (its own predicted share is checked too), so the setup's
			// share is small. The finding follows the share at the rule's
			// threshold.
			share := shareAt(rm, 4096)
			if v1 := strings.Contains(rm.Series.Version, "/Stommel/v1"); v1 && (share < 0 || share > 0.05) {
				t.Errorf("%s %s: predicted share at p=4096 %.3g, want below 0.05 (the exchange dominates)", rm.Series.IRI, rm.Name, share)
			} else if !v1 && (share < 0.4 || share > 0.8) {
				t.Errorf("%s %s: predicted share at p=4096 %.3g, want about 0.64", rm.Series.IRI, rm.Name, share)
			}
			if hot[rm.IRI] != (share >= 0.3) {
				t.Errorf("%s: predicted share %.3g, flagged %v (threshold 0.3)", rm.Name, share, hot[rm.IRI])
			}
			// The finding gives the share as a percentage, with the
			// threshold's.
			if hot[rm.IRI] {
				m := hotPercent.FindStringSubmatch(hotText[rm.IRI])
				if m == nil {
					t.Errorf("%s: hotspot description %q, want \"... is predicted to take N %% of the program's time at p = 4096 (threshold 30 %%)\"", rm.Name, hotText[rm.IRI])
				} else if pct, _ := strconv.ParseFloat(m[1], 64); math.Abs(pct-100*share) > 1e-9*100 {
					t.Errorf("%s: hotspot description says %s %%, the prediction %.12g %%", rm.Name, m[1], 100*share)
				}
			}
		case rm.Name == exchange && strings.Contains(rm.Series.Version, "/Stommel/v1"):
			checked++
			if share := shareAt(rm, 4096); share < 0.9 || !hot[rm.IRI] {
				t.Errorf("%s %s: predicted share at p=4096 %.3g, flagged %v: want above 0.9 and an ExtrapolatedHotspot", rm.Series.IRI, rm.Name, share, hot[rm.IRI])
			}
		}
	}
	if checked != series*3+series/2 {
		t.Errorf("checked %d models, want %d", checked, series*3+series/2)
	}
	// Series too short to model say so in words: the sample's
	// single-experiment series are "1 experiment at 1 point".
	one := 0
	for _, i := range res.Models.Skipped {
		if strings.HasPrefix(i.Reason, "series of 1 experiment at 1 point; 1 distinct value of p: at least 5 distinct values are needed") {
			one++
		}
		for _, bad := range []string{"of 1 experiments", "at 1 points", "1 distinct values"} {
			if strings.Contains(i.Reason, bad) {
				t.Errorf("series not modelled: %q", i.Reason)
			}
		}
	}
	if one == 0 {
		t.Errorf("no single-experiment series among those not modelled: %+v", res.Models.Skipped)
	}
}

// shareAt is the model's predicted share of the program's time at p (-1
// when it has none).
func shareAt(rm *RegionModel, p float64) float64 {
	for _, pr := range rm.Predictions {
		if pr.P == p {
			return pr.Share
		}
	}
	return -1
}

type reasonerFinding struct{ text, class string }

// modelStore is a version with runs at p = 1..32 (one thread per process)
// whose exchange takes 50 + 2·p² and whose work takes 960/p µs on every
// process; main is their sum.
func modelStore(t *testing.T) *native.MemStore {
	t.Helper()
	var b strings.Builder
	b.WriteString(`@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix perfonto: <` + ontology.Namespace + `> .
ex:cr_main perfonto:hasCrType "CR_P" ; perfonto:regionName "main" .
ex:cr_work perfonto:hasCrType "CR_L" ; perfonto:regionName "work" ; perfonto:hasParentCodeRegion ex:cr_main .
ex:cr_comm perfonto:hasCrType "CR_MPIP2P" ; perfonto:regionName "exchange" ; perfonto:hasParentCodeRegion ex:cr_main .
`)
	for _, p := range []int{1, 2, 4, 8, 16, 32} {
		e := "ex:e" + strconv.Itoa(p)
		fmt.Fprintf(&b, "%s a perfonto:Experiment ; perfonto:ofVersion ex:v1 ; perfonto:problemSize \"N=100\" .\n", e)
		pf := float64(p)
		work, comm := 960/pf, 50+2*pf*pf
		for q := 0; q < p; q++ {
			pu := fmt.Sprintf("%s_p%d", e, q)
			fmt.Fprintf(&b, "%st0 a perfonto:ThreadUnit ; perfonto:inExperiment %s ; perfonto:processID %d ; perfonto:threadID 0 ; perfonto:hasParentPU %s .\n", pu, e, q, pu)
			fmt.Fprintf(&b, "%s a perfonto:ProcessUnit ; perfonto:inExperiment %s ; perfonto:processID %d .\n", pu, e, q)
			for _, r := range []struct {
				name string
				v    float64
			}{{"main", work + comm}, {"work", work}, {"comm", comm}} {
				rs := pu + "_" + r.name
				fmt.Fprintf(&b, "%s a perfonto:RegionSummary ; perfonto:ofCodeRegion ex:cr_%s ; perfonto:inProcessingUnit %st0 ; perfonto:inExperiment %s ; perfonto:hasMetric %s_w .\n", rs, r.name, pu, e, rs)
				fmt.Fprintf(&b, "%s_w perfonto:hasMetricName \"wtime\" ; perfonto:hasMetricValue \"%g\"^^xsd:double .\n", rs, r.v)
				if r.name != "main" {
					fmt.Fprintf(&b, "%s_main perfonto:hasChildRS %s .\n", pu, rs)
				}
			}
		}
	}
	ds := native.OpenMemory()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(b.String()), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "models.ttl", Graph: kb.IRI("http://example.org/site")}); err != nil {
		t.Fatal(err)
	}
	return ds
}

func selectColumn(t *testing.T, ds kb.Dataset, q string) []string {
	t.Helper()
	r, err := query.Run(context.Background(), ds, q, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		row, ok := r.Next()
		if !ok {
			break
		}
		var cells []string
		for _, c := range row {
			cells = append(cells, c.Value)
		}
		out = append(out, strings.Join(cells, " "))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestModelsInStore: the models are triples SPARQL can ask ("call paths
// whose wtime grows faster than p·log p") and pf:predict evaluates; the
// MODELS rules flag the exchange.
func TestModelsInStore(t *testing.T) {
	ctx := context.Background()
	ds := modelStore(t)
	res, err := Run(ctx, ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "PREFIX perfonto: <" + ontology.Namespace + ">\nPREFIX pf: <urn:x-perfkb:function#>\n"
	// Exchange: 50 + 2·p², exactly. Work: 960/p. Main is their sum, of two
	// terms, beyond the single-term search: its growth is what it picks.
	got := selectColumn(t, ds, prefix+`SELECT ?path WHERE {
  ?m a perfonto:PerformanceModel ; perfonto:modelledMetric "wtime" ; perfonto:callPath ?path ;
     perfonto:growthExponent ?i ; perfonto:growthLogExponent ?j .
  FILTER (?i > 1 || (?i = 1 && ?j > 1)) FILTER (?path != "main [CR_P]") }`)
	if want := []string{"main [CR_P] > exchange [CR_MPIP2P]"}; !slices.Equal(got, want) {
		t.Errorf("grows faster than p log p: %q, want %q", got, want)
	}
	// pf:predict at p = 64: 50 + 2·64² = 8242 for the exchange, 960/64 = 15
	// for the work.
	got = selectColumn(t, ds, prefix+`SELECT ?path ?t WHERE {
  ?m perfonto:modelledMetric "wtime" ; perfonto:callPath ?path ; perfonto:modelFormula ?model .
  FILTER (?path != "main [CR_P]")
  BIND (ROUND(pf:predict(?model, 64) * 1000) / 1000 AS ?t) }`)
	if want := []string{"main [CR_P] > exchange [CR_MPIP2P] 8242", "main [CR_P] > work [CR_L] 15"}; !slices.Equal(got, want) {
		t.Errorf("pf:predict at 64: %q, want %q", got, want)
	}
	// A model is described only by properties whose rdfs:domain (in
	// PERFONTO) admits it, so RDFS reasoning does not make it something
	// else: perfonto:ofCodeRegion's domain is DynamicRegion, and a model
	// on it would count as a dynamic region. Its code region reaches it by
	// perfonto:hasPerformanceModel instead.
	ont := native.OpenMemory()
	if _, err := rdfio.Load(ctx, ont, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "perfonto.ttl"}); err != nil {
		t.Fatal(err)
	}
	domain := map[string]string{}
	for _, row := range selectColumn(t, ont, `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?p ?d WHERE { ?p rdfs:domain ?d }`) {
		p, d, _ := strings.Cut(row, " ")
		domain[p] = d
	}
	if len(domain) == 0 {
		t.Fatal("no rdfs:domain in the ontology")
	}
	preds := selectColumn(t, ds, prefix+`SELECT DISTINCT ?p WHERE { ?m a perfonto:PerformanceModel ; ?p ?o }`)
	if len(preds) < 10 {
		t.Fatalf("models described by %d properties: %q", len(preds), preds)
	}
	for _, p := range preds {
		if d, ok := domain[p]; ok && d != ontology.PerformanceModel {
			t.Errorf("models have %s, whose domain %s would make each a %s", p, d, localName(d))
		}
	}
	if got := selectColumn(t, ds, prefix+`SELECT ?path WHERE { ?cr perfonto:hasPerformanceModel ?m . ?m perfonto:modelledMetric "wtime" ; perfonto:callPath ?path . ?cr perfonto:regionName "exchange" }`); len(got) != 1 {
		t.Errorf("the exchange's code region reaches %d wtime models: %q", len(got), got)
	}
	var poor []string
	for _, f := range res.Findings {
		if f.Type == ontology.PoorScalingModel {
			poor = append(poor, f.Description)
		}
	}
	if len(poor) < 1 || !strings.Contains(strings.Join(poor, "\n"), "exchange [CR_MPIP2P] grows as 0.05 + 0.002 · p^(2) ms") {
		t.Errorf("PoorScalingModel findings %q, want one on the exchange", poor)
	}
}

// TestTwoParameterSeries: a version run at 5 process counts × 5 problem
// sizes is one series over p and n; a region taking 5 + 0.5·p·n gets the
// multiplicative model, one taking 3 + 2·p + 0.25·n² the additive one.
func TestTwoParameterSeries(t *testing.T) {
	d := &Data{byIRI: map[string]*Experiment{}}
	for _, p := range []int{1, 2, 4, 8, 16} {
		for _, n := range []int{10, 20, 40, 80, 160} {
			pf, nf := float64(p), float64(n)
			e := &Experiment{IRI: fmt.Sprintf("http://example.org/e%d-%d", p, n), Version: "http://example.org/v", ProblemSize: fmt.Sprintf("N=%d", n),
				Units: p, Processes: p, Threads: 1, Program: "main", Regions: map[string]*Region{
					"main": {Path: "main", CR: "http://example.org/main", Name: "main", Summary: []*Summary{{Metrics: MetricsOf(map[string]float64{"wtime": 5 + 0.5*pf*nf})}}},
					"add":  {Path: "add", CR: "http://example.org/add", Name: "add", Summary: []*Summary{{Metrics: MetricsOf(map[string]float64{"wtime": 3 + 2*pf + 0.25*nf*nf})}}},
				}}
			d.Experiments = append(d.Experiments, e)
		}
	}
	res, err := fitModels(context.Background(), d, ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Series) != 1 || !slices.Equal(res.Series[0].Params, []string{"p", "n"}) || res.Series[0].Points != 25 {
		t.Fatalf("series %+v", res.Series)
	}
	want := map[string]string{
		"main": "f(p,n) = 5 + 0.5*p^(1)*n^(1)",
		"add":  "f(p,n) = 3 + 2*p^(1) + 0.25*n^(2)",
	}
	for _, rm := range res.Models {
		m, err := pmnf.ParseFormula(want[rm.Path])
		if err != nil {
			t.Fatal(err)
		}
		got := rm.Model
		if len(got.Terms) != len(m.Terms) {
			t.Errorf("%s: model %s, want %s", rm.Path, got, want[rm.Path])
			continue
		}
		for _, x := range [][]float64{{3, 7}, {100, 1000}} {
			if g, w := got.Eval(x), m.Eval(x); math.Abs(g-w) > 1e-6*w {
				t.Errorf("%s: model %s at %v = %g, want %g (%s)", rm.Path, got, x, g, w, want[rm.Path])
			}
		}
	}
}

// TestRepetitionsOption: with ModelOptions.Repetitions, repeated runs of
// the same coordinates are modelled by pmnf.SelectRepetitions. Twenty
// regions with 5% noise and 3 runs per p (a fixed seed) are fitted both
// ways; every model must be SelectRepetitions' fit of the region's runs,
// and at least one must differ from Extra-P's selection (otherwise the
// case could not tell the options apart).
func TestRepetitionsOption(t *testing.T) {
	d := &Data{byIRI: map[string]*Experiment{}}
	rng := rand.New(rand.NewPCG(7, 7))
	ps := []int{2, 4, 8, 16, 32, 64}
	const regions = 20
	runs := map[string][]pmnf.Point{}
	for k := range regions {
		runs[fmt.Sprint("r", k)] = make([]pmnf.Point, len(ps))
	}
	for rep := range 3 {
		for pi, p := range ps {
			e := &Experiment{IRI: fmt.Sprintf("http://example.org/e%d-%d", p, rep), Version: "http://example.org/v",
				Units: p, Processes: p, Threads: 1, Program: "r0", Regions: map[string]*Region{}}
			for k := range regions {
				name := fmt.Sprint("r", k)
				v := (10 + float64(k) + 0.5*math.Pow(float64(p), 0.75)) * (1 + 0.05*(2*rng.Float64()-1))
				e.Regions[name] = &Region{Path: name, CR: "http://example.org/" + name, Name: name, Summary: []*Summary{{Metrics: MetricsOf(map[string]float64{"wtime": v})}}}
				pt := &runs[name][pi]
				pt.X = []float64{float64(p)}
				pt.Values = append(pt.Values, v)
			}
			d.Experiments = append(d.Experiments, e)
		}
	}
	res, err := fitModels(context.Background(), d, ModelOptions{Repetitions: true, Positive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Models) != regions {
		t.Fatalf("%d models, want %d", len(res.Models), regions)
	}
	differ := 0
	for _, rm := range res.Models {
		want, err := (&pmnf.Modeler{Select: pmnf.SelectRepetitions}).Fit([]string{"p"}, runs[rm.Path])
		if err != nil {
			t.Fatal(err)
		}
		if got := rm.Model.String(); got != want.String() {
			t.Errorf("%s: model %s, want SelectRepetitions' %s", rm.Path, got, want)
		}
		if ep, _ := (&pmnf.Modeler{}).Fit([]string{"p"}, runs[rm.Path]); ep.String() != want.String() {
			differ++
		}
	}
	if differ == 0 {
		t.Error("every model equals Extra-P's selection: the case does not tell the options apart")
	}
}
