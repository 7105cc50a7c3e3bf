package analysis

import (
	"bytes"
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

// sampleStore loads sample data with the scaling series of two sites.
func sampleStore(t *testing.T) (*native.MemStore, sample.Summary) {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	sum, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: 40000, Seed: 1, Scaling: true})
	if err != nil {
		t.Fatal(err)
	}
	ds := native.OpenMemory()
	if _, err := rdfio.Load(ctx, ds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "sample.nq"}); err != nil {
		t.Fatal(err)
	}
	return ds, sum
}

// TestSampleScalingSeries: on sample data with scaling series, the
// SCALABILITY rules flag exactly the code regions planted to stop scaling
// (and no program), and PU similarity finds the planted imbalance.
func TestSampleScalingSeries(t *testing.T) {
	ctx := context.Background()
	ds, sum := sampleStore(t)
	if sum.ScalingExperiments != 2*2*2*len(sample.ScalingProcesses) {
		t.Fatalf("%d scaling experiments", sum.ScalingExperiments)
	}
	res, err := Run(ctx, ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	aggCR := map[string]string{}
	for _, e := range res.Experiments {
		for _, r := range e.Regions {
			aggCR[RegionIRI(e.Exp.IRI, r.Region.Path)] = r.Region.CR
		}
	}
	flagged := map[string]bool{}
	for _, f := range res.Findings {
		if f.Type != ontology.PoorScalability {
			continue
		}
		cr, ok := aggCR[f.Subject.Value]
		if !ok {
			t.Errorf("PoorScalability on %s, which is not a region aggregate (a program?)", f.Subject.Value)
			continue
		}
		flagged[cr] = true
	}
	var got []string
	for cr := range flagged {
		got = append(got, cr)
	}
	want := append([]string{}, sum.PlantedPoorScalability...)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("flagged code regions:\n%s\nplanted:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Overheads of the scaling runs: the unidentified part is small (below
	// 10% of the overhead of the main program) but not zero.
	for _, e := range res.Experiments {
		// The run with the planted load imbalance is left out: imbalance is
		// not an identified overhead class of 5.2, so it is unidentified.
		if !strings.Contains(e.Exp.IRI, "/exp/scaling-") || e.Exp.Units == 1 || e.Overhead == nil || strings.HasSuffix(e.Exp.IRI, "scaling-v1-1000-p8") {
			continue
		}
		o, u := e.Overhead["oall"], e.Overhead["oall_unid"]
		if !(u.Mean > 0) || !(u.Mean < 0.1*o.Mean) {
			t.Errorf("%s: oall mean %g, oall_unid mean %g: want 0 < unid < 10%% of oall", e.Exp.IRI, o.Mean, u.Mean)
		}
	}
	// PU similarity: in each site's v1 N=1000 p=8 run, process 3 is alone
	// in the compute kernel and in its ancestors (whose times include it);
	// no other scaling region is split.
	split := map[string]bool{}
	for _, g := range res.Soft.PUGroups {
		if !strings.Contains(g.Experiment, "/exp/scaling-") {
			continue
		}
		if !strings.HasSuffix(g.Experiment, "/exp/scaling-v1-1000-p8") || !strings.HasPrefix("main [CR_P] > solve [CR_Y] > time step loop [CR_U] > compute kernel [CR_L]", g.Region) {
			t.Errorf("unexpected PU groups for %s %s: %v", g.Experiment, g.Region, g.Groups)
			continue
		}
		if len(g.Groups) != 2 || len(g.Groups[1]) != 1 || !strings.HasSuffix(g.Groups[1][0], "/pu/p3t0") || len(g.Groups[0]) != 7 {
			t.Errorf("%s: groups %v, want process 3 alone", g.Experiment, g.Groups)
		}
		if strings.HasSuffix(g.Region, "compute kernel [CR_L]") {
			split[g.Experiment] = true
		}
	}
	if len(split) != len(sum.Sites) {
		t.Errorf("compute kernel split in %v, want once per site", split)
	}
}

// TestDiffMatchesSPARQL: analyze diff on two sample experiments equals a
// SPARQL query computing the same per code region and metric.
func TestDiffMatchesSPARQL(t *testing.T) {
	ctx := context.Background()
	ds, _ := sampleStore(t)
	site := sample.GraphIRI("", sample.SiteNames(2)[0])
	base, trial := site+"/exp/scaling-v1-1000-p4", site+"/exp/scaling-v1-1000-p8"
	res, err := Run(ctx, ds, Options{Diffs: [][2]string{{base, trial}}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	// Across sites the same regions match by their names.
	other := sample.GraphIRI("", sample.SiteNames(2)[1]) + "/exp/scaling-v1-1000-p8"
	d, err := Read(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	cross, err := Compare(ctx, d, trial, other)
	if err != nil {
		t.Fatal(err)
	}
	if !cross.ByName || len(cross.Rows) == 0 {
		t.Errorf("cross-site diff: by name %v, %d rows", cross.ByName, len(cross.Rows))
	}
	for _, r := range cross.Rows {
		if r.OnlyIn != "" {
			t.Errorf("cross-site diff: %s %s only in %s", r.Region, r.Metric, r.OnlyIn)
		}
	}
	df := res.Diffs[0]
	if df.ByName {
		t.Fatal("same version, matched by name")
	}
	q := `PREFIX perfonto: <` + ontology.Namespace + `>
SELECT ?cr ?name ?base ?trial (?trial - ?base AS ?diff) WHERE {
  { SELECT ?cr ?name (MAX(?v) AS ?base) WHERE {
      ?rs perfonto:inExperiment <` + base + `> ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
      ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?v } GROUP BY ?cr ?name }
  { SELECT ?cr ?name (MAX(?v) AS ?trial) WHERE {
      ?rs perfonto:inExperiment <` + trial + `> ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
      ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?v } GROUP BY ?cr ?name }
}`
	r, err := query.Run(ctx, ds, q, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := map[string][3]float64{}
	for {
		row, ok := r.Next()
		if !ok {
			break
		}
		var v [3]float64
		for i := 0; i < 3; i++ {
			if v[i], err = strconv.ParseFloat(row[2+i].Value, 64); err != nil {
				t.Fatalf("row %v: %v", row, err)
			}
		}
		want[row[0].Value+" "+row[1].Value] = v
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	got := map[string][3]float64{}
	for _, row := range df.Rows {
		if row.OnlyIn != "" {
			t.Errorf("row only in %s: %+v", row.OnlyIn, row)
			continue
		}
		got[row.CodeTrial+" "+row.Metric] = [3]float64{row.BaseVal, row.TrialVal, row.Diff}
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Errorf("diff has %d rows, SPARQL %d", len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || !near(g[0], w[0]) || !near(g[1], w[1]) || !near(g[2], w[2]) {
			t.Errorf("%s: diff %v, SPARQL %v", k, g, w)
		}
	}
}

// TestOverheadHierarchyQuery: the overhead classification copied into the
// analysis graph answers "all communication overhead" in one query: in the
// hand-built p = 4 run, odata_p2p on main (30+25+30+40) and on the exchange
// region (the same) is communication, osync is not.
func TestOverheadHierarchyQuery(t *testing.T) {
	ctx := context.Background()
	ds := loadTTL(t, "scaling.ttl")
	if _, err := Run(ctx, ds, Options{}); err != nil {
		t.Fatal(err)
	}
	q := `PREFIX perfonto: <` + ontology.Namespace + `>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?name (SUM(?v) AS ?total) WHERE {
  ?rs perfonto:inExperiment <http://example.org/e4> ; perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?v .
  ?def perfonto:metricMnemonic ?name ; perfonto:measuresOverhead ?class .
  ?class rdfs:subClassOf* perfonto:CommunicationOverhead .
} GROUP BY ?name`
	r, err := query.Run(ctx, ds, q, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]string{}
	for {
		row, ok := r.Next()
		if !ok {
			break
		}
		got[row[0].Value] = row[1].Value
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := strconv.ParseFloat(got["odata_p2p"], 64); len(got) != 1 || err != nil || v != 250 {
		t.Errorf("communication overhead %v, want odata_p2p 250 only", got)
	}
}
