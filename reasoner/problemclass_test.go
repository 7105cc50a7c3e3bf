package reasoner

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// TestFindingClasses checks that a finding is named by its most specific
// problem class in any namespace, as the store's rdfs:subClassOf
// hierarchy says, and that an unknown class name is refused.
func TestFindingClasses(t *testing.T) {
	ctx := context.Background()
	ds := loadTurtle(t, `
@prefix audit: <http://audit.example/ns#> .
perfonto:CommunicationProblem rdfs:subClassOf perfonto:PerformanceProblem .
perfonto:BigMessage rdfs:subClassOf perfonto:CommunicationProblem .
audit:PairImbalance rdfs:subClassOf perfonto:PerformanceProblem .
audit:Unrelated rdfs:subClassOf ex:Thing .

ex:rs1 perfonto:hasProblem ex:f1 .
ex:f1 a perfonto:BigMessage, perfonto:CommunicationProblem, perfonto:PerformanceProblem .
ex:rs2 perfonto:hasProblem ex:f2 .
ex:f2 a audit:PairImbalance, perfonto:PerformanceProblem, audit:Unrelated .
ex:rs3 perfonto:hasProblem perfonto:BigMessage .
`)
	all, err := Findings(ctx, ds, FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range all {
		got[f.Subject.Value] = f.Type
	}
	want := map[string]string{
		"http://example.org/rs1": "http://www.par.univie.ac.at/project/scalea/perfonto#BigMessage",
		"http://example.org/rs2": "http://audit.example/ns#PairImbalance",
		"http://example.org/rs3": "http://www.par.univie.ac.at/project/scalea/perfonto#BigMessage",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("finding types:\n got %v\nwant %v", got, want)
	}

	pair, err := Findings(ctx, ds, FindingFilter{Type: "PairImbalance"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pair) != 1 || pair[0].Subject.Value != "http://example.org/rs2" {
		t.Errorf("--type PairImbalance: got %v, want the one finding of ex:rs2", pair)
	}

	for _, name := range []string{"PairImbalance", "BigMessage", "http://audit.example/ns#PairImbalance", "CommunicationProblem"} {
		if err := CheckProblemClass(ctx, ds, name); err != nil {
			t.Errorf("CheckProblemClass(%q): %v", name, err)
		}
	}
	for _, name := range []string{"NoSuchClass", "Unrelated", "PerformanceProblem"} {
		err := CheckProblemClass(ctx, ds, name)
		var u *UnknownProblemClassError
		if !errors.As(err, &u) {
			t.Errorf("CheckProblemClass(%q) = %v, want an UnknownProblemClassError", name, err)
			continue
		}
		if want := []string{"BigMessage", "CommunicationProblem", "PairImbalance"}; !reflect.DeepEqual(u.Known, want) {
			t.Errorf("known classes %v, want %v", u.Known, want)
		}
	}
}
