package analysis

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// TestFactorSimilarityTable510 checks sim_f against the dissertation's
// Table 5.9/5.10 (atoms: linear over [0, 72]; 36 against 72 atoms is 0.5)
// and against S-function and categorical cases worked out by hand.
func TestFactorSimilarityTable510(t *testing.T) {
	cfg, err := ParseSoftConfig("t.conf", `
factor problemsize 1 72 linear
factor machine 1 160 s 0 1
factor site 1 same
factorvalue machine P4 40
factorvalue machine GM 160
`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		f    int
		a, b string
		want float64
		ok   bool
	}{
		{0, "36", "36", 1, true},
		{0, "36", "72", 0.5, true}, // Table 5.10, sim_f_atoms
		{0, "18", "54", 0.5, true}, // |0.25 - 0.75|
		// S(40/160 = 0.25; 0, 1) = 2·0.25² = 0.125, S(1) = 1 → 1 - 0.875
		{1, "P4", "GM", 0.125, true},
		{1, "GM", "GM", 1, true},
		{1, "P4", "Myrinet", 0, false},       // no number for Myrinet: not compared
		{0, "64x64x64", "64x64x64", 1, true}, // not numbers: equal or not
		{0, "64x64x64", "32x32x32", 0, true},
		{0, "64x64x64", "36", 0, false},
		{2, "a", "a", 1, true},
		{2, "a", "b", 0, true},
	}
	for _, tc := range tests {
		got, ok := factorSimilarity(cfg, cfg.Factors[tc.f], tc.a, tc.b, 0)
		if ok != tc.ok || (ok && !near(got, tc.want)) {
			t.Errorf("%s(%s, %s) = %g, %v; want %g, %v", cfg.Factors[tc.f].Name, tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}

// TestFactorComparisonWritten runs the analysis on the hand-built scaling
// group (e1, e4, e8 of version v1; 1, 4 and 8 units; problem size N=100)
// and checks the comparisons with the base e1, worked out by hand:
//
//	units, auto range 8, linear: e4 1 - |1/8 - 4/8| = 0.625, e8 1 - |1/8 - 1| = 0.125
//	problemsize "same": N=100 = N=100 → 1
//	overall e4 = 1 - sqrt((0.375² + 0²)/2), e8 = 1 - sqrt((0.875² + 0²)/2)
//	sim_o (wtime, linear, relative to the larger): main 1000 vs 400 → 1 - |1 - 0.4| = 0.4; vs 260 → 0.26
func TestFactorComparisonWritten(t *testing.T) {
	cfg, err := ParseSoftConfig("t.conf", `
factor units 1 auto linear
factor problemsize 1 same
factor machine 1 same
similarity wtime 1 linear
`)
	if err != nil {
		t.Fatal(err)
	}
	ds := loadTTL(t, "scaling.ttl")
	res, err := Run(context.Background(), ds, Options{Soft: cfg})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ units, overall, perf float64 }{
		"e4": {0.625, 1 - 0.375/math.Sqrt2, 0.4},
		"e8": {0.125, 1 - 0.875/math.Sqrt2, 0.26},
	}
	if len(res.Soft.Factors) != len(want) {
		t.Fatalf("%d comparisons, want %d: %+v", len(res.Soft.Factors), len(want), res.Soft.Factors)
	}
	for _, fc := range res.Soft.Factors {
		name := strings.TrimPrefix(fc.Experiment, ex)
		w, ok := want[name]
		if !ok || fc.Base != ex+"e1" {
			t.Errorf("comparison of %s with %s", fc.Experiment, fc.Base)
			continue
		}
		if !near(fc.Overall, w.overall) || !fc.HasPerformance || !near(fc.Performance, w.perf) {
			t.Errorf("%s: overall %g perf %g (%v), want %g %g", name, fc.Overall, fc.Performance, fc.HasPerformance, w.overall, w.perf)
		}
		// machine is unknown in the data: compared only where both have one.
		if len(fc.Factors) != 2 {
			t.Errorf("%s: factors %+v, want units and problemsize", name, fc.Factors)
		}
		node := kb.IRI(fc.Experiment + "/factors")
		units := kb.IRI(fc.Experiment + "/factors/units")
		for _, tr := range []kb.Triple{
			{S: kb.IRI(fc.Experiment), P: kb.IRI(ontology.HasFactorComparison), O: node},
			{S: node, P: kb.IRI(ontology.HasBaseline), O: kb.IRI(ex + "e1")},
			{S: node, P: kb.IRI(ontology.SimilarityValue), O: dbl(fc.Overall)}, // near w.overall, checked above
			{S: node, P: kb.IRI(ontology.PerformanceSimilarity), O: dbl(fc.Performance)},
			{S: node, P: kb.IRI(ontology.HasFactorSimilarity), O: units},
			{S: units, P: kb.IRI(ontology.ExperimentFactor), O: kb.String("units")},
			{S: units, P: kb.IRI(ontology.BaseFactorValue), O: kb.String("1")},
			{S: units, P: kb.IRI(ontology.SimilarityValue), O: dbl(w.units)},
		} {
			if !has(t, ds, tr) {
				t.Errorf("missing %v", tr)
			}
		}
	}
}

// TestPerformanceClassAsserted: the classified value is a metric of its
// subject that perfonto:hasPerformanceClass each class it belongs to, the
// degree on the same membership node. e4's efficiency is 0.625:
// Z(0.625; 0.3, 0.7) = 2((0.7-0.625)/0.4)² = 0.0703125 (poor),
// S(0.625; 0.5, 0.9) = 2((0.625-0.5)/0.4)² = 0.1953125 (good).
func TestPerformanceClassAsserted(t *testing.T) {
	cfg, err := ParseSoftConfig("t.conf", `
class efficiency poor z 0.3 0.7
class efficiency good s 0.5 0.9
class efficiency top  s 0.95 1
`)
	if err != nil {
		t.Fatal(err)
	}
	ds := loadTTL(t, "scaling.ttl")
	if _, err := Run(context.Background(), ds, Options{Soft: cfg}); err != nil {
		t.Fatal(err)
	}
	m := kb.IRI(ex + "e4/m/efficiency")
	class := func(term string) kb.Term { return kb.IRI(GraphIRI + ":class:efficiency:" + term) }
	for _, tc := range []struct {
		term   string
		degree float64
		in     bool
	}{{"poor", 0.0703125, true}, {"good", 0.1953125, true}, {"top", 0, false}} {
		if got := has(t, ds, kb.Triple{S: m, P: kb.IRI(ontology.HasPerformanceClass), O: class(tc.term)}); got != tc.in {
			t.Errorf("e4 efficiency hasPerformanceClass %s: %v, want %v", tc.term, got, tc.in)
		}
		if !tc.in {
			continue
		}
		node := kb.IRI(ex + "e4/fm/" + strconvHash("efficiency", tc.term))
		for _, tr := range []kb.Triple{
			{S: m, P: kb.IRI(ontology.HasFuzzyMembership), O: node},
			{S: node, P: kb.IRI(ontology.MembershipTerm), O: class(tc.term)},
			{S: node, P: kb.IRI(ontology.MembershipDegree), O: dbl(tc.degree)},
			{S: class(tc.term), P: kb.IRI(ontology.CharacteristicTerm), O: kb.String(tc.term)},
		} {
			if !has(t, ds, tr) {
				t.Errorf("missing %v", tr)
			}
		}
	}
}

// TestFuzzyClustersWritten clusters e4's region summaries by wtime relative
// to the program's largest (400). The check is independent of the
// iteration: at convergence every membership satisfies Bezdek's update
// u_ij = 1 / Σ_k (d_ij/d_kj)^(2/(m-1)) for the written centers, each row
// sums to 1, and without the filter the program's summaries (scores
// 0.925–1, the others at most 0.55) belong to the upper cluster. The filter rule (wtime/program below 0.6 → out) must
// drop exactly the summaries whose wtime is under 240.
func TestFuzzyClustersWritten(t *testing.T) {
	for _, withFilter := range []bool{false, true} {
		conf := "score wtime 1 linear\ncluster 2 2 1e-9\n"
		if withFilter {
			conf += "filter wtime/program z 0.6 0.6000001\n"
		}
		cfg, err := ParseSoftConfig("t.conf", conf)
		if err != nil {
			t.Fatal(err)
		}
		ds := loadTTL(t, "scaling.ttl")
		res, err := Run(context.Background(), ds, Options{Soft: cfg})
		if err != nil {
			t.Fatal(err)
		}
		var cl *Clustering
		for i := range res.Soft.Clusters {
			if res.Soft.Clusters[i].Experiment == ex+"e4" {
				cl = &res.Soft.Clusters[i]
			}
		}
		if cl == nil {
			t.Fatalf("filter %v: no clustering of e4", withFilter)
		}
		// The data: e4's summaries and their wtime, read from the store's
		// own experiment, not from the clustering.
		e4 := res.Experiment(ex + "e4").Exp
		wt := map[string]float64{}
		under := 0
		for _, r := range e4.Regions {
			for _, s := range r.Summary {
				wt[s.IRI] = s.Metrics.Value("wtime")
				if s.Metrics.Value("wtime")/400 < 0.6 {
					under++
				}
			}
		}
		wantN := len(wt)
		if withFilter {
			wantN -= under
			if cl.Filtered != under || under == 0 {
				t.Errorf("filtered %d, want %d (> 0)", cl.Filtered, under)
			}
		}
		if len(cl.Members) != wantN {
			t.Fatalf("filter %v: %d members, want %d", withFilter, len(cl.Members), wantN)
		}
		for _, mb := range cl.Members {
			x := wt[mb.Summary] / 400
			sum := 0.0
			for i, u := range mb.Degrees {
				sum += u
				di := math.Abs(x - cl.Centers[i][0])
				inv := 0.0
				for k := range cl.Centers {
					dk := math.Abs(x - cl.Centers[k][0])
					inv += (di / dk) * (di / dk)
				}
				if want := 1 / inv; math.Abs(u-want) > 1e-6 {
					t.Errorf("%s cluster %d: u = %g, Bezdek's update gives %g", mb.Summary, i+1, u, want)
				}
				fm := kb.IRI(mb.Summary + "/fcm/" + string(rune('0'+i+1)))
				if !has(t, ds, kb.Triple{S: fm, P: kb.IRI(ontology.MembershipDegree), O: dbl(u)}) {
					t.Errorf("membership %s not in the store", fm.Value)
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("%s: memberships sum to %g", mb.Summary, sum)
			}
			if !withFilter && x >= 0.9 && mb.Degrees[1] < 0.9 {
				t.Errorf("%s (score %g): upper cluster degree %g", mb.Summary, x, mb.Degrees[1])
			}
			if withFilter && x < 0.6 {
				t.Errorf("%s (score %g) should have been filtered out", mb.Summary, x)
			}
		}
		if !(cl.Centers[0][0] < cl.Centers[1][0]) {
			t.Errorf("centers %v not numbered from the origin", cl.Centers)
		}
		c2 := kb.IRI(ex + "e4/fcm/2")
		for _, tr := range []kb.Triple{
			{S: kb.IRI(ex + "e4"), P: kb.IRI(ontology.HasFuzzyCluster), O: c2},
			{S: c2, P: kb.IRI(ontology.RDFType), O: kb.IRI(ontology.FuzzyCluster)},
			{S: c2, P: kb.IRI(ontology.ClusterIndex), O: integer(2)},
		} {
			if !has(t, ds, tr) {
				t.Errorf("missing %v", tr)
			}
		}
	}
}

// strconvHash is the membership node's name for an expression and term.
func strconvHash(expr, term string) string {
	return strconv.FormatUint(hash64(expr+"\x00"+term), 16)
}

// TestCommLibFactor: the communication library (5.5.3.2) is an experiment
// factor, read through the machine: cluster perfonto:hasNetwork, network
// perfonto:hasMPP2PPerf, perfonto:mpiLibName. e1 (the base) and e8 ran on
// cluster A (MPICH), e4 on cluster B (LAM/MPI); a cluster whose networks
// name two libraries has none.
func TestCommLibFactor(t *testing.T) {
	cfg, err := ParseSoftConfig("t.conf", "factor commlib 1 same\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ttl  string
		want map[string]float64 // experiment → sim of commlib; absent: not compared
	}{
		{"two libraries", `
ex:clB perfonto:hasNetwork ex:netB . ex:netB perfonto:hasMPP2PPerf ex:pB . ex:pB perfonto:mpiLibName "LAM/MPI 7.0" .`,
			map[string]float64{"e4": 0, "e8": 1}},
		{"B's networks disagree", `
ex:clB perfonto:hasNetwork ex:netB , ex:netB2 . ex:netB perfonto:hasMPP2PPerf ex:pB . ex:pB perfonto:mpiLibName "LAM/MPI 7.0" .
ex:netB2 perfonto:hasMPP2PPerf ex:pB2 . ex:pB2 perfonto:mpiLibName "MPICH 1.2.5" .`,
			map[string]float64{"e8": 1}},
	} {
		ds := loadTTL(t, "scaling.ttl")
		extra := `@prefix ex: <http://example.org/> .
@prefix perfonto: <` + ontology.Namespace + `> .
ex:e1 perfonto:usesNode ex:n1 . ex:e8 perfonto:usesNode ex:n8 . ex:e4 perfonto:usesNode ex:n4 .
ex:n1 perfonto:inCluster ex:clA . ex:n8 perfonto:inCluster ex:clA . ex:n4 perfonto:inCluster ex:clB .
ex:clA perfonto:hasNetwork ex:netA . ex:netA perfonto:hasMPP2PPerf ex:pA . ex:pA perfonto:mpiLibName "MPICH 1.2.5" .
ex:colA perfonto:mpiLibName "MPICH-GM 1.2.5" .
` + tc.ttl
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(extra), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "extra.ttl", Graph: kb.IRI("http://example.org/site")}); err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), ds, Options{Soft: cfg})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, fc := range res.Soft.Factors {
			if fc.Base != ex+"e1" {
				t.Errorf("%s: %s compared with %s", tc.name, fc.Experiment, fc.Base)
			}
			for _, f := range fc.Factors {
				if f.Factor == "commlib" {
					got[strings.TrimPrefix(fc.Experiment, ex)] = f.Similarity
					if f.BaseValue != "MPICH 1.2.5" {
						t.Errorf("%s: base library %q", tc.name, f.BaseValue)
					}
					node := kb.IRI(fc.Experiment + "/factors/commlib")
					if !has(t, ds, kb.Triple{S: node, P: kb.IRI(ontology.SimilarityValue), O: dbl(f.Similarity)}) {
						t.Errorf("%s: %s's commlib similarity not in the store", tc.name, fc.Experiment)
					}
				}
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: commlib compared for %v, want %v", tc.name, got, tc.want)
		}
		for e, w := range tc.want {
			if g, ok := got[e]; !ok || g != w {
				t.Errorf("%s: %s commlib similarity %g (%v), want %g", tc.name, e, g, ok, w)
			}
		}
	}
}
