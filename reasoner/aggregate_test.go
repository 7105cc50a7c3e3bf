package reasoner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// imbalanceData is one experiment with two code regions, each on three
// processing units (region summaries rs1-rs3 of cr1, rs4-rs6 of cr2).
func imbalanceData(wtimes [6]int) string {
	var b strings.Builder
	for i, w := range wtimes {
		cr := "cr1"
		if i >= 3 {
			cr = "cr2"
		}
		fmt.Fprintf(&b, "ex:rs%d perfonto:ofCodeRegion ex:%s ; perfonto:inExperiment ex:e1 ; perfonto:inProcessingUnit ex:pu%d ; perfonto:hasMetric ex:m%d .\n", i+1, cr, i%3, i+1)
		fmt.Fprintf(&b, "ex:m%d perfonto:hasMetricName \"wtime\" ; perfonto:hasMetricValue %d .\n", i+1, w)
	}
	return b.String()
}

// imbalanceFindings lists the subjects of LoadImbalance findings and the
// ratios the SPARQL rule gave them.
func imbalanceFindings(t *testing.T, ds kb.Dataset) (subjects, ratios []string) {
	t.Helper()
	fs, err := Findings(context.Background(), ds, FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if strings.HasSuffix(f.Type, "#LoadImbalance") {
			subjects = append(subjects, strings.TrimPrefix(f.Subject.Value, "http://example.org/"))
		}
	}
	slices.Sort(subjects)
	for _, line := range graphTriples(t, ds, kb.IRI(kb.RulesInternalGraphIRI)) {
		if strings.Contains(line, "maxMeanWtime") {
			ratios = append(ratios, line)
		}
	}
	slices.Sort(ratios)
	return subjects, ratios
}

// TestImbalanceAggregateRule runs the shipped IMBALANCE set (a SPARQL rule
// with GROUP BY, MAX and AVG, and a Jena rule over its output) and checks
// it against a hand computation, then changes wtimes through a live
// engine: the group whose max/mean falls under 1.2 loses its finding, the
// one that rises over it gets one.
func TestImbalanceAggregateRule(t *testing.T) {
	ctx := context.Background()
	// cr1: 10 10 16, mean 12, max/mean 16/12 = 1.33 > 1.2: rs3 flagged.
	// cr2: 10 11 12, mean 11, max/mean 12/11 = 1.09: nothing.
	ds := loadTurtle(t, imbalanceData([6]int{10, 10, 16, 10, 11, 12}))
	prog, err := LoadProgram([]string{"IMBALANCE"}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(ctx, ds, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := eng.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	subjects, ratios := imbalanceFindings(t, ds)
	if !slices.Equal(subjects, []string{"rs3"}) {
		t.Errorf("findings of %v, want rs3 (16 / mean 12)", subjects)
	}
	if len(ratios) != 1 || !strings.Contains(ratios[0], "<http://example.org/rs3>") || !strings.Contains(ratios[0], `"1.3333`) {
		t.Errorf("ratios %v, want rs3's 16/12 = 1.333…", ratios)
	}
	if sum.Firings["load_imbalance_max_mean_ratio"] != 1 {
		t.Errorf("firings %v, want 1 of the SPARQL rule", sum.Firings)
	}
	checkRecords(t, ds)

	// rs3 16 → 12 (cr1: 10 10 12, 12/10.67 = 1.125) and rs6 12 → 20
	// (cr2: 10 11 20, 20/13.67 = 1.46): rs3's finding goes, rs6 gets one.
	quad := func(m string, v int) kb.Quad {
		return internQuads(t, ds, []kb.TermQuad{{S: ex(m), P: kb.IRI("http://www.par.univie.ac.at/project/scalea/perfonto#hasMetricValue"),
			O: kb.Literal(fmt.Sprint(v), "http://www.w3.org/2001/XMLSchema#integer"), G: kb.DefaultGraph}})[0]
	}
	if _, err := eng.Change(ctx, kb.Delta{Remove: []kb.Quad{quad("m3", 16), quad("m6", 12)}, Add: []kb.Quad{quad("m3", 12), quad("m6", 20)}}); err != nil {
		t.Fatal(err)
	}
	subjects, ratios = imbalanceFindings(t, ds)
	if !slices.Equal(subjects, []string{"rs6"}) {
		t.Errorf("after the change: findings of %v, want rs6 (20 / mean 13.67)", subjects)
	}
	if len(ratios) != 1 || !strings.Contains(ratios[0], "<http://example.org/rs6>") || !strings.Contains(ratios[0], `"1.463`) {
		t.Errorf("after the change: ratios %v, want rs6's 20/13.67 = 1.463…", ratios)
	}
	checkRecords(t, ds)
	if got, want := storeClosure(t, ds), recompute(t, ds, prog); !slices.Equal(got, want) {
		t.Errorf("closure after the change differs from a recompute:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}
