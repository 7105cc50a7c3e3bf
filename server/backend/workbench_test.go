package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/internal/pmnf"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// mylabGraph holds data pushed with another base than perfkb's sample
// (convert tau --push --base http://mylab.org/hpc/): its site is the
// graph's, whatever its IRIs look like.
const mylabGraph = "http://mylab.org/hpc/"

// workbenchStore is a scaling sample (p = 1 … 32 per problem size, so the
// analysis fits models and writes PoorScalability findings) analysed into
// the store, plus one experiment with one finding in mylabGraph.
func workbenchStore(t *testing.T) kb.Dataset {
	t.Helper()
	ctx := context.Background()
	ds := native.OpenMemory()
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: 8000, Seed: 3, Scaling: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := rdfio.Load(ctx, ds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "scaling.nq"}); err != nil {
		t.Fatal(err)
	}
	// PERFONTO in its graph, as every store perfkb opens holds it.
	if _, err := store.EnsureOntology(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if _, err := analysis.Run(ctx, ds, analysis.Options{}); err != nil {
		t.Fatal(err)
	}
	mylab := `<http://mylab.org/hpc/run/42> <` + rdfType + `> <` + ontology.Experiment + `> <` + mylabGraph + `> .
<http://mylab.org/hpc/run/42> <` + ontology.NumberOfProcesses + `> "64"^^<http://www.w3.org/2001/XMLSchema#integer> <` + mylabGraph + `> .
<http://mylab.org/hpc/run/42/rs/1> <` + ontology.InExperiment + `> <http://mylab.org/hpc/run/42> <` + mylabGraph + `> .
<http://mylab.org/hpc/run/42/rs/1> <` + ontology.HasProblem + `> <http://mylab.org/hpc/run/42/f/1> <` + mylabGraph + `> .
<http://mylab.org/hpc/run/42/f/1> <` + rdfType + `> <` + ontology.LoadImbalance + `> <` + mylabGraph + `> .
`
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(mylab), rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "mylab.nq"}); err != nil {
		t.Fatal(err)
	}
	return ds
}

const rdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

// TestWorkbenchViewsInChromium drives the analyst's views in headless
// Chromium and checks each against an independent answer: the experiment
// table against SPARQL (and its sort order by hand), statistics across
// processing units against per-unit sums added up here, the per-region
// scaling curve against the store's model evaluated by package pmnf, the
// flame graph against perfkb tree's tree (analysis.BuildCallTree), the
// findings' sites against the graphs that hold the experiments, and saved
// queries and conditions across a reload. PERFKB_SCREENSHOT_DIR=dir keeps
// a screenshot of each view at 1400 and 800 px.
func TestWorkbenchViewsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test takes several seconds; skipped with -short")
	}
	wd := startChromium(t)
	ds := workbenchStore(t)
	store := graphstore.New(ds)
	ts := httptest.NewServer(server.New(server.Options{Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds}, Analysis: &Analysis{DS: ds}, Graphs: store, Sites: store, Store: store, Token: token}))
	defer ts.Close()
	ctx := context.Background()
	// The shipped rules, as perfkb demo runs them: RDFS types every finding
	// with its superclasses too.
	if rec := post(t, ts.Config.Handler, "/rules/run", "", "", "Authorization", "Bearer "+token); rec.Code != 200 {
		t.Fatalf("POST /rules/run: %d %s", rec.Code, rec.Body)
	}

	open := func(u string) {
		wd.call("POST", "/url", map[string]string{"url": u})
		wd.waitFor("the page", `window.perfkb && window.perfkb.ready`)
	}
	open(ts.URL + "/")
	wd.script(`localStorage.clear(); return true`, nil)
	open(ts.URL + "/")
	run := func(name string, f func(t *testing.T)) {
		parent := wd.t
		t.Run(name, func(t *testing.T) {
			wd.t = t
			defer func() { wd.t = parent }()
			f(t)
		})
	}
	tab := func(name string) { wd.click(`button[data-tab="` + name + `"]`) }

	run("experiment table", func(t *testing.T) {
		type exp struct {
			iri, site string
			procs     float64
		}
		var want []exp
		graphSite := map[string]string{}
		sites, err := store.Sites(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sites {
			graphSite[s.Graph] = s.Name
		}
		for _, r := range sparqlRows(t, ds, pfx+`SELECT ?e ?g ?p WHERE { GRAPH ?g { ?e a perfonto:Experiment } OPTIONAL { ?e perfonto:numberOfProcesses ?p } FILTER(!STRSTARTS(STR(?g), "urn:x-perfkb:")) }`) {
			p, err := strconv.ParseFloat(r[2], 64)
			if err != nil {
				p = math.NaN()
			}
			want = append(want, exp{r[0], graphSite[r[1]], p})
		}
		start := time.Now()
		tab("experiments")
		wd.waitFor("the experiment table", `/^\d+ of \d+ experiments/.test(document.getElementById("exp-status").textContent)`)
		t.Logf("experiment table: %d experiments shown in %v", len(want), time.Since(start).Round(time.Millisecond))
		var rows [][]string
		wd.script(`return Array.from(document.querySelectorAll("#experiments tbody tr")).map(tr => [tr.dataset.iri, tr.cells[1].textContent, tr.cells[3].textContent])`, &rows)
		if len(rows) != len(want) {
			t.Fatalf("table has %d experiments, SPARQL %d", len(rows), len(want))
		}
		got := map[string][]string{}
		for _, r := range rows {
			got[r[0]] = r
		}
		for _, w := range want {
			g, ok := got[w.iri]
			if !ok || g[1] != w.site {
				t.Errorf("experiment %s: row %q, want site %q (the site of its graph)", w.iri, g, w.site)
			}
		}
		if got["http://mylab.org/hpc/run/42"] == nil || got["http://mylab.org/hpc/run/42"][1] != "hpc" {
			t.Errorf("the mylab experiment's row %q, want site hpc", got["http://mylab.org/hpc/run/42"])
		}
		// Sorted by processes (click the head), numbers by value.
		wd.click(`#experiments th[data-col="3"]`)
		wd.script(`return Array.from(document.querySelectorAll("#experiments tbody tr")).map(tr => [tr.dataset.iri, tr.cells[1].textContent, tr.cells[3].textContent])`, &rows)
		last := -1.0
		for _, r := range rows {
			if r[2] == "" {
				continue
			}
			p, _ := strconv.ParseFloat(r[2], 64)
			if p < last {
				t.Errorf("sorted by processes, %s (%v) follows %v", r[0], p, last)
			}
			last = p
		}
		wd.screenshotWidths("experiments")
		// A row's tree button makes it the call tree's experiment.
		first := rows[0][0]
		wd.click(`#experiments tbody tr[data-iri="` + first + `"] button.open-tree`)
		wd.waitFor("the tree of the picked experiment", `document.getElementById("tree-exp").value === "`+first+`" && window.perfkb.treeFor === "`+first+`"`)
	})

	// The experiment with a PoorScalability finding (written by the
	// analysis) with the most processing units.
	top := sparqlRows(t, ds, pfx+`SELECT ?e (COUNT(DISTINCT ?pu) AS ?n) WHERE { ?a perfonto:inExperiment ?e ; perfonto:hasProblem ?f . ?f a perfonto:PoorScalability .
		?rs perfonto:inExperiment ?e ; perfonto:inProcessingUnit ?pu } GROUP BY ?e ORDER BY DESC(?n) ?e LIMIT 1`)
	if len(top) == 0 {
		t.Fatal("no experiment with processing units")
	}
	exp := top[0][0]

	run("statistics across processing units", func(t *testing.T) {
		// Per code region and unit the sum of its summaries' wtime, added
		// up here from the raw values.
		sums := map[string]map[string]float64{}
		for _, r := range sparqlRows(t, ds, pfx+`SELECT ?rs ?cr ?pu ?v WHERE { ?rs perfonto:inExperiment <`+exp+`> ; perfonto:inProcessingUnit ?pu ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
			?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }`) {
			v, _ := strconv.ParseFloat(r[3], 64)
			if sums[r[1]] == nil {
				sums[r[1]] = map[string]float64{}
			}
			sums[r[1]][r[2]] += v
		}
		tab("stats")
		wd.waitFor("the unit list", `Array.from(document.querySelectorAll("#stat-exp option")).some(o => o.value === "`+exp+`")`)
		start := time.Now()
		wd.script(`const s = document.getElementById("stat-exp"); s.value = "`+exp+`"; document.getElementById("stat-status").textContent = ""; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the statistics", `window.perfkb.statsFor === "`+exp+`|wtime" && /regions over/.test(document.getElementById("stat-status").textContent) && document.querySelector("#stats-chart canvas")`)
		t.Logf("statistics of %s: %v", exp, time.Since(start).Round(time.Millisecond))
		var rows []struct{ CR, N, Min, Mean, Max, Stddev string }
		wd.script(`return Array.from(document.querySelectorAll("#stats tbody tr")).map(tr => ({CR: tr.dataset.cr, N: tr.dataset.n, Min: tr.dataset.min, Mean: tr.dataset.mean, Max: tr.dataset.max, Stddev: tr.dataset.stddev}))`, &rows)
		if len(rows) != len(sums) {
			t.Errorf("%d regions in the table, %d with wtime in the store", len(rows), len(sums))
		}
		num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-9 }
		for _, r := range rows {
			per := sums[r.CR]
			n := float64(len(per))
			lo, hi, total := math.Inf(1), math.Inf(-1), 0.0
			for _, v := range per {
				lo, hi, total = math.Min(lo, v), math.Max(hi, v), total+v
			}
			mean := total / n
			ss := 0.0
			for _, v := range per {
				ss += (v - mean) * (v - mean)
			}
			sd := math.Sqrt(ss / n)
			if num(r.N) != n || !close(num(r.Min), lo) || !close(num(r.Mean), mean) || !close(num(r.Max), hi) || !close(num(r.Stddev), sd) {
				t.Errorf("region %s: page n=%s min=%s mean=%s max=%s sd=%s; by hand n=%v min=%v mean=%v max=%v sd=%v", r.CR, r.N, r.Min, r.Mean, r.Max, r.Stddev, n, lo, mean, hi, sd)
			}
		}
		var points string
		wd.script(`return document.getElementById("stats-chart").dataset.points`, &points)
		if want := min(30, len(rows)); points != strconv.Itoa(want) {
			t.Errorf("statistics chart draws %s regions, want %d", points, want)
		}
		wd.screenshotWidths("statistics")
	})

	run("per-region scaling curve with the store's model", func(t *testing.T) {
		models := sparqlRows(t, ds, pfx+`SELECT ?v ?model ?formula WHERE { ?model a perfonto:PerformanceModel ; perfonto:modelledMetric "wtime" ; perfonto:modelFormula ?formula ; perfonto:callPath ?path ; perfonto:fittedFrom ?e . ?e perfonto:ofVersion ?v FILTER(!CONTAINS(?path, ">")) } ORDER BY ?v ?model LIMIT 1`)
		if len(models) == 0 {
			t.Fatal("the analysed scaling sample has no wtime models")
		}
		version, model, formula := models[0][0], models[0][1], models[0][2]
		tab("scaling")
		wd.waitFor("versions", `Array.from(document.querySelectorAll("#scal-version option")).some(o => o.value === "`+version+`")`)
		// It opens on the version with the most process counts (ties: the
		// first by name), not on one with a single count.
		most := sparqlRows(t, ds, pfx+`SELECT ?v (COUNT(DISTINCT ?p) AS ?n) WHERE { ?e perfonto:ofVersion ?v ; perfonto:numberOfProcesses ?p ; a perfonto:Experiment } GROUP BY ?v ORDER BY DESC(?n) ?v`)
		var opened string
		wd.script(`return document.getElementById("scal-version").value`, &opened)
		countOf := map[string]string{}
		for _, r := range most {
			countOf[r[0]] = r[1]
		}
		if len(most) == 0 || countOf[opened] != most[0][1] {
			t.Errorf("scaling opens on %s (%s process counts); the most any version has is %v", opened, countOf[opened], most)
		}
		start := time.Now()
		wd.script(`const s = document.getElementById("scal-version"); s.value = "`+version+`"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the model list", `window.perfkb.modelsFor === "`+version+`" && Array.from(document.querySelectorAll("#curve-region option")).some(o => o.value === "`+model+`")`)
		wd.script(`const s = document.getElementById("curve-region"); s.value = "`+model+`"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the curve", `window.perfkb.curve && window.perfkb.curve.model === "`+model+`" && document.querySelector("#region-chart canvas")`)
		t.Logf("per-region curve of %s: %v", version, time.Since(start).Round(time.Millisecond))
		var got struct {
			Formula string
			Points  []struct{ P, T float64 }
			Fitted  []float64
			Drawn   string
		}
		wd.script(`const c = window.perfkb.curve; return {Formula: c.formula, Points: c.points.map(q => ({P: q.p, T: q.t})), Fitted: c.fitted, Drawn: document.getElementById("region-chart").dataset.points}`, &got)
		if got.Formula != formula {
			t.Errorf("curve of model %s: formula %q, store %q", model, got.Formula, formula)
		}
		// Measured points: per experiment the model was fitted from, the
		// largest wtime over the region's summaries; repetitions at one p
		// averaged.
		perExp := map[string]float64{}
		procs := map[string]float64{}
		for _, r := range sparqlRows(t, ds, pfx+`SELECT ?e ?p ?v WHERE { <`+model+`> perfonto:fittedFrom ?e ; ^perfonto:hasPerformanceModel ?cr . ?e perfonto:numberOfProcesses ?p .
			?rs perfonto:inExperiment ?e ; perfonto:ofCodeRegion ?cr ; perfonto:inProcessingUnit ?pu ; perfonto:hasMetric ?m . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }`) {
			v, _ := strconv.ParseFloat(r[2], 64)
			p, _ := strconv.ParseFloat(r[1], 64)
			if old, ok := perExp[r[0]]; !ok || v > old {
				perExp[r[0]] = v
			}
			procs[r[0]] = p
		}
		byP := map[float64][]float64{}
		for e, v := range perExp {
			byP[procs[e]] = append(byP[procs[e]], v)
		}
		ps := slices.Sorted(func(yield func(float64) bool) {
			for p := range byP {
				if !yield(p) {
					return
				}
			}
		})
		m, err := pmnf.ParseFormula(formula)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Points) != len(ps) || len(got.Fitted) != len(ps) || got.Drawn != strconv.Itoa(len(ps)) {
			t.Fatalf("curve: %d points (%d fitted, %s drawn), want %d process counts %v", len(got.Points), len(got.Fitted), got.Drawn, len(ps), ps)
		}
		for i, p := range ps {
			mean := 0.0
			for _, v := range byP[p] {
				mean += v / float64(len(byP[p]))
			}
			want := m.Eval([]float64{p})
			if got.Points[i].P != p || math.Abs(got.Points[i].T-mean) > 1e-9*mean || math.Abs(got.Fitted[i]-want) > 1e-9*math.Abs(want)+1e-9 {
				t.Errorf("p=%v: page measured %v, model %v; want measured %v, model %v (pmnf)", p, got.Points[i].T, got.Fitted[i], mean, want)
			}
		}
		wd.script(`document.getElementById("region-chart").scrollIntoView(); return true`, nil)
		wd.screenshotWidths("scaling-region")
	})

	run("flame graph", func(t *testing.T) {
		tree, err := analysis.BuildCallTree(ctx, ds, exp, analysis.TreeOptions{Agg: "mean"})
		if err != nil {
			t.Fatal(err)
		}
		tab("tree")
		start := time.Now()
		wd.script(`const s = document.getElementById("tree-exp"); s.value = "`+exp+`"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the flame graph", `window.perfkb.treeFor === "`+exp+`" && window.perfkb.flame && document.querySelectorAll("#flame g.frame").length > 0`)
		t.Logf("call tree and flame graph of %s: %v", exp, time.Since(start).Round(time.Millisecond))
		type frame struct {
			Name        string
			Value, Excl float64
			Children    []frame
		}
		var got frame
		wd.script(`const conv = (d) => ({Name: d.name, Value: d.value, Excl: Number.isFinite(d.exclusive) ? d.exclusive : -1, Children: d.children.map(conv)}); return conv(window.perfkb.flame.data)`, &got)
		var walk func(f frame, n *analysis.TreeNode, at string)
		walk = func(f frame, n *analysis.TreeNode, at string) {
			at += "/" + n.Name
			excl := -1.0
			if n.Exclusive != nil {
				excl = *n.Exclusive
			}
			// The tree sums the units' values in no fixed order: an
			// exclusive time of 0 comes out as ±2e-11 µs either way.
			tol := 1e-9 * math.Abs(n.Metrics["wtime"])
			if f.Name != n.Name || f.Value != math.Max(0, n.Metrics["wtime"]) || math.Abs(f.Excl-excl) > tol || len(f.Children) != len(n.Children) {
				t.Errorf("frame %s: %s incl %v excl %v with %d children; perfkb tree: %s %v %v with %d", at, f.Name, f.Value, f.Excl, len(f.Children), n.Name, n.Metrics["wtime"], excl, len(n.Children))
				return
			}
			for i := range n.Children {
				walk(f.Children[i], n.Children[i], at)
			}
		}
		if len(tree.Roots) == 1 {
			walk(got, tree.Roots[0], "")
		} else {
			if len(got.Children) != len(tree.Roots) {
				t.Fatalf("flame graph has %d roots, perfkb tree %d", len(got.Children), len(tree.Roots))
			}
			for i := range tree.Roots {
				walk(got.Children[i], tree.Roots[i], "")
			}
		}
		// Every node wide enough to draw is a frame of the picture.
		var frames int
		wd.script(`return document.querySelectorAll("#flame g.frame").length`, &frames)
		if frames == 0 || frames > tree.Nodes+1 {
			t.Errorf("%d frames drawn for %d nodes", frames, tree.Nodes)
		}
		// Clicking a frame zooms to it: it then spans the whole width.
		var zoom struct {
			Path         string
			Width, Total float64
		}
		wd.script(`const g = Array.from(document.querySelectorAll("#flame g.frame")).find(g => g.__data__.depth === 1 && g.__data__.children);
			const target = g || document.querySelectorAll("#flame g.frame")[1];
			target.dispatchEvent(new MouseEvent("click", {bubbles: true})); window.perfkb.zoomed = target.__data__.data.path; return true`, nil)
		wd.waitFor("the zoom", `window.perfkb.flameZoom === window.perfkb.zoomed`)
		time.Sleep(400 * time.Millisecond) // the zoom's transition
		wd.script(`const g = Array.from(document.querySelectorAll("#flame g.frame")).find(g => g.__data__.data.path === window.perfkb.zoomed);
			return {Path: window.perfkb.flameZoom, Width: Number(g.querySelector("rect").getAttribute("width")), Total: document.querySelector("#flame svg").getBoundingClientRect().width}`, &zoom)
		if zoom.Width < 0.98*zoom.Total {
			t.Errorf("zoomed to %s: its frame is %v px of %v", zoom.Path, zoom.Width, zoom.Total)
		}
		wd.screenshotWidths("flame-graph")
	})

	run("tree shows the most specific findings, analysis findings too", func(t *testing.T) {
		// RDFS types each finding with its superclasses too (perfkb demo's
		// store has them); the test store gets them spelled out.
		if rec := post(t, ts.Config.Handler, "/sparql", "application/sparql-update", pfx+`INSERT { GRAPH <urn:x-test:entailed> { ?f a perfonto:PerformanceProblem } }
			WHERE { ?rs perfonto:inExperiment <`+exp+`> ; perfonto:hasProblem ?f }`, "Authorization", "Bearer "+token); rec.Code/100 != 2 {
			t.Fatalf("typing the findings PerformanceProblem: %d %s", rec.Code, rec.Body)
		}
		// The classes of the experiment's findings per code region, each
		// without the classes it is a subclass of (asked of the store's
		// ontology here, not of the page).
		rows := sparqlRows(t, ds, pfx+`PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
			SELECT ?cr ?class WHERE { ?rs perfonto:inExperiment <`+exp+`> ; perfonto:ofCodeRegion ?cr ; perfonto:hasProblem ?f . ?f a ?class }`)
		supers := map[string]map[string]bool{}
		for _, r := range sparqlRows(t, ds, `SELECT ?a ?b WHERE { ?a <http://www.w3.org/2000/01/rdf-schema#subClassOf> ?b FILTER(?a != ?b) }`) {
			if supers[r[0]] == nil {
				supers[r[0]] = map[string]bool{}
			}
			supers[r[0]][r[1]] = true
		}
		if !supers[ontology.PoorScalability][ontology.PerformanceProblem] {
			t.Fatalf("the store does not say PoorScalability is a PerformanceProblem: %v", supers[ontology.PoorScalability])
		}
		byCR := map[string]map[string]bool{}
		for _, r := range rows {
			if byCR[r[0]] == nil {
				byCR[r[0]] = map[string]bool{}
			}
			byCR[r[0]][r[1]] = true
		}
		want := map[string][]string{}
		for cr, classes := range byCR {
			for c := range classes {
				specific := true
				for o := range classes {
					if supers[o][c] {
						specific = false
					}
				}
				if specific {
					want[cr] = append(want[cr], strings.TrimPrefix(c, ontology.Namespace))
				}
			}
			sort.Strings(want[cr])
		}
		if !slices.ContainsFunc(slices.Collect(func(yield func([]string) bool) {
			for _, v := range want {
				if !yield(v) {
					return
				}
			}
		}), func(v []string) bool { return slices.Contains(v, "PoorScalability") }) {
			t.Fatalf("experiment %s has no PoorScalability finding to show: %v", exp, want)
		}
		tab("tree")
		wd.script(`const s = document.getElementById("tree-exp"); s.value = "`+exp+`"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the tree", `window.perfkb.treeFor === "`+exp+`" && document.querySelector('#tree tbody tr[data-depth="0"]')`)
		var shown [][]string
		wd.script(`const regionOf = new Map(); const walk = (n) => { regionOf.set(n.path, n.region); n.children.forEach(walk); }; window.perfkb.tree.roots.forEach(walk);
			return Array.from(document.querySelectorAll("#tree tbody tr")).map(tr => [regionOf.get(tr.dataset.key), tr.cells[6].textContent])`, &shown)
		for _, r := range shown {
			var got []string
			if r[1] != "" {
				got = strings.Split(r[1], ", ")
			}
			sort.Strings(got)
			if !slices.Equal(got, want[r[0]]) {
				t.Errorf("region %s: tree shows %q, want %q", r[0], got, want[r[0]])
			}
		}
		wd.screenshot("call-tree-findings")
	})

	run("findings' sites from the store", func(t *testing.T) {
		tab("findings")
		wd.waitFor("the findings", `/^\d+ of \d+ findings$/.test(document.getElementById("findings-status").textContent)`)
		var sites []string
		wd.script(`return Array.from(document.querySelectorAll("#f-site option")).map(o => o.value).filter(Boolean)`, &sites)
		if !slices.Contains(sites, "hpc") {
			t.Errorf("site filter offers %v, want hpc (the graph %s holds the experiment of a finding)", sites, mylabGraph)
		}
		// An analysis finding (PoorScalability, on a region aggregate)
		// explains itself like the rules' findings.
		wd.script(`const s = document.getElementById("f-class"); s.value = "PoorScalability"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.click("#findings tbody tr")
		wd.waitFor("the explanation", `document.querySelector("#explanation .summary") || document.querySelector("#explanation .error")`)
		var explained struct{ Error, Summary string }
		wd.script(`const e = document.querySelector("#explanation .error"), s = document.querySelector("#explanation .summary"); return {Error: e ? e.textContent : "", Summary: s ? s.textContent : ""}`, &explained)
		if explained.Error != "" || !strings.Contains(explained.Summary, "PoorScalability") {
			t.Errorf("a PoorScalability finding explains as %+v", explained)
		}
		wd.script(`const c = document.getElementById("f-class"); c.value = ""; const s = document.getElementById("f-site"); s.value = "hpc"; s.dispatchEvent(new Event("change")); return true`, nil)
		var status string
		wd.script(`return document.getElementById("findings-status").textContent`, &status)
		if !strings.HasPrefix(status, "1 of ") {
			t.Errorf("site hpc: %q, want the one finding of run/42", status)
		}
	})

	run("saved queries and conditions", func(t *testing.T) {
		tab("query")
		const text = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 3"
		b, _ := json.Marshal(text)
		wd.script(`window.perfkb.yasgui.getTab().getYasqe().setValue(`+string(b)+`); document.getElementById("save-name").value = "three subjects"; return true`, nil)
		wd.click("#save-query")
		// A condition: LoadImbalance findings at site hpc.
		tab("findings")
		wd.script(`const set = (id, v) => { const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event("change")); }; set("f-class", "LoadImbalance"); set("f-site", "hpc");
			document.getElementById("cond-name").value = "imbalance at mylab"; return true`, nil)
		wd.click("#save-condition")
		var link string
		wd.script(`return document.getElementById("cond-link").href`, &link)
		// Both survive a reload; the query reopens in a tab of its own.
		open(ts.URL + "/")
		var saved []string
		wd.script(`return Array.from(document.querySelectorAll("#saved-queries option")).map(o => o.textContent)`, &saved)
		if !slices.Contains(saved, "three subjects") {
			t.Fatalf("saved queries after a reload: %v", saved)
		}
		wd.script(`window.perfkb.openSavedQuery(0); return true`, nil)
		var value string
		wd.script(`return window.perfkb.yasgui.getTab().getYasqe().getValue()`, &value)
		if value != text {
			t.Errorf("saved query reopened as %q, want %q", value, text)
		}
		// The condition's link applies it on a fresh page.
		if !strings.Contains(link, "#condition=") {
			t.Fatalf("condition link %q", link)
		}
		u, _ := url.Parse(link)
		open(ts.URL + "/?c=1#" + u.Fragment)
		wd.waitFor("the condition", `document.getElementById("f-site").value === "hpc" && /^\d+ of \d+ findings$/.test(document.getElementById("findings-status").textContent)`)
		var got struct{ Class, Status string }
		wd.script(`return {Class: document.getElementById("f-class").value, Status: document.getElementById("findings-status").textContent}`, &got)
		if got.Class != "LoadImbalance" || !strings.HasPrefix(got.Status, "1 of ") {
			t.Errorf("condition link opened class %q, %q; want LoadImbalance, 1 finding", got.Class, got.Status)
		}
		var conds []string
		wd.script(`return Array.from(document.querySelectorAll("#saved-conditions option")).map(o => o.textContent)`, &conds)
		if !slices.Contains(conds, "imbalance at mylab") {
			t.Errorf("saved conditions: %v", conds)
		}
		wd.screenshotWidths("findings-condition")
	})
}

// screenshotWidths saves the view at 1400 and 800 px wide (name-1400.png,
// name-800.png) when PERFKB_SCREENSHOT_DIR is set, and restores the window.
func (wd *webDriver) screenshotWidths(name string) {
	if os.Getenv("PERFKB_SCREENSHOT_DIR") == "" {
		return
	}
	for _, w := range []int{1400, 800} {
		wd.call("POST", "/window/rect", map[string]int{"width": w, "height": 1000})
		time.Sleep(400 * time.Millisecond) // the charts follow the width after 150 ms
		wd.screenshot(fmt.Sprintf("%s-%d", name, w))
	}
	wd.call("POST", "/window/rect", map[string]int{"width": 1280, "height": 1000})
}
