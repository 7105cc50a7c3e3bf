package analysis

import (
	"context"
	"testing"

	"github.com/perfkb/perfkb/ontology"
)

// TestSampleModels: on the sample scaling series (ontology/sample: p = 1..32
// per version and problem size; the halo exchange of version 1 takes
// (p-1)·log2(p)·k·T_s more, version 2's 50 times less), the models of every
// series are fitted; version 1's exchange grows as p·log2(p) and is flagged
// PoorScalingModel; the compute kernel's time falls as 1/p, which the
// search space (positive exponents only, as Extra-P's default) models as a
// decreasing term or constant, never as growth.
func TestSampleModelsExplore(t *testing.T) {
	ctx := context.Background()
	ds, _ := sampleStore(t)
	res, err := Run(ctx, ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rm := range res.Models.Models {
		if rm.Metric == "wtime" {
			t.Logf("%s %s %s: %s smape %.3g ar2 %.3g", rm.Series.Version, rm.Series.ProblemSize, rm.Name, rm.Model, rm.Model.SMAPE, rm.Model.AR2)
		}
	}
	for _, f := range res.Findings {
		if f.Type == ontology.PoorScalingModel || f.Type == ontology.ExtrapolatedHotspot {
			t.Logf("finding %s %s", f.Type, f.Subject.Value)
		}
	}
	for _, is := range res.Issues {
		t.Logf("issue %s", is)
	}
}
