package rules_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/reasoner/builtins"
)

// TestMonitoringDegrees checks the membership degrees monitoring.rules
// asserts for Fig. 6.7's variable against a table computed by hand from
// F.3, F.4 and ABLE's Shoulder (absent = degree 0, no membership asserted).
func TestMonitoringDegrees(t *testing.T) {
	type row struct {
		x                                 string
		veryLow, low, medium, high, vHigh float64
	}
	table := []row{
		{"0.0", 1, 0, 0, 0, 0},
		{"0.5", 0.5, 0, 0, 0, 0},
		{"1.0", 0, 0, 0, 0, 0},
		{"1.25", 0, 0.5, 0, 0, 0},
		{"1.5", 0, 1, 0, 0, 0},
		{"2.1", 0, 0, 0.5, 0, 0},
		{"2.5", 0, 0, 1, 0, 0},
		{"3.5", 0, 0, 0, 1, 0},
		{"4.5", 0, 0, 0, 0, 0.5},
		{"5.0", 0, 0, 0, 0, 1},
	}
	terms := []string{ontology.BandwidthVeryLow, ontology.BandwidthLow, ontology.BandwidthMedium, ontology.BandwidthHigh, ontology.BandwidthVeryHigh}
	prog, err := reasoner.LoadProgram([]string{"MONITORING"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// All measurements in one store: each must get exactly its own degrees.
	var data strings.Builder
	for i, r := range table {
		fmt.Fprintf(&data, "ex:m%d a perfonto:PathBandwidthMeasurement ; perfonto:aboutResource ex:path ; perfonto:bandwidth %q^^xsd:double .\n", i, r.x)
	}
	ds, _ := turtleTriples(t, "degrees", data.String())
	if _, err := reasoner.Run(ctx, ds, prog, reasoner.Options{}); err != nil {
		t.Fatal(err)
	}
	q := func(s, p kb.Term) []kb.Term {
		t.Helper()
		var out []kb.Term
		ids := [2]kb.ID{}
		for i, term := range []kb.Term{s, p} {
			id, ok, err := ds.Lookup(ctx, term)
			if err != nil || !ok {
				return nil
			}
			ids[i] = id
		}
		quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: ids[0], P: ids[1]}))
		if err != nil {
			t.Fatal(err)
		}
		for _, qd := range quads {
			tq, err := kb.ResolveQuad(ctx, ds, qd)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tq.O)
		}
		return out
	}
	findings, err := reasoner.Findings(ctx, ds, reasoner.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range table {
		m := kb.IRI(fmt.Sprintf("http://example.org/m%d", i))
		got := map[string]float64{}
		for _, fm := range q(m, kb.IRI(ontology.HasFuzzyMembership)) {
			term := q(fm, kb.IRI(ontology.MembershipTerm))
			deg := q(fm, kb.IRI(ontology.MembershipDegree))
			if len(term) != 1 || len(deg) != 1 {
				t.Fatalf("x=%s: membership %v has terms %v degrees %v", r.x, fm, term, deg)
			}
			n, ok := builtins.NumberOf(deg[0])
			if !ok || deg[0].Datatype != ontology.XSDDouble {
				t.Fatalf("x=%s: degree %v is not an xsd:double", r.x, deg[0])
			}
			got[term[0].Value] = n.AsFloat()
		}
		want := []float64{r.veryLow, r.low, r.medium, r.high, r.vHigh}
		for k, term := range terms {
			if math.Abs(got[term]-want[k]) > 1e-12 {
				t.Errorf("x=%s: degree of %s = %g, want %g", r.x, term, got[term], want[k])
			}
		}
		for term := range got {
			if got[term] == 0 {
				t.Errorf("x=%s: membership of degree 0 asserted for %s", r.x, term)
			}
		}
		// Findings: one per VERYLOW/LOW membership with severity = degree.
		wantSev := math.Max(r.veryLow, r.low)
		if wantSev > 0 && !hasSeverity(findings, wantSev, r.x) {
			t.Errorf("x=%s: no LowNetworkBandwidth finding with severity %g (findings %+v)", r.x, wantSev, findings)
		}
	}
	wantFindings := 0
	for _, r := range table {
		if r.veryLow > 0 || r.low > 0 {
			wantFindings++
		}
	}
	if len(findings) != wantFindings {
		t.Errorf("%d findings, want %d: %+v", len(findings), wantFindings, findings)
	}
}

// hasSeverity reports whether a LowNetworkBandwidth finding describes a
// measurement of bandwidth x with the given severity.
func hasSeverity(fs []reasoner.Finding, sev float64, x string) bool {
	for _, f := range fs {
		if f.TypeName() == "LowNetworkBandwidth" && f.HasSeverity && math.Abs(f.Severity-sev) < 1e-12 &&
			strings.HasPrefix(f.Description, "measured bandwidth "+x+" MB/s") {
			return true
		}
	}
	return false
}
