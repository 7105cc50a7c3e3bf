package backend

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/server"
)

// TestAnalysisService runs the real analysis behind the server interface
// on the hand-built scaling group of package analysis.
func TestAnalysisService(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	f, err := os.Open("../../analysis/testdata/scaling.ttl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := rdfio.Load(ctx, ds, f, rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "scaling.ttl", Graph: kb.IRI("http://example.org/g")}); err != nil {
		t.Fatal(err)
	}
	a := &Analysis{DS: ds}
	rep, err := a.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Experiments != 3 || rep.Groups != 1 || rep.Findings != 2 || rep.Quads == 0 || len(rep.Issues) != 0 {
		t.Errorf("report %+v", rep)
	}
	out, err := a.Scaling(ctx, "http://example.org/v1")
	if err != nil {
		t.Fatal(err)
	}
	tables := out.([]analysis.Table)
	if len(tables) != 1 || len(tables[0].Rows) < 3 {
		t.Errorf("scaling tables %+v", tables)
	}
	if _, err := a.Scaling(ctx, "http://example.org/none"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("unknown version: %v, want ErrNotFound", err)
	}
	// Three runs are too few to model (Extra-P asks for 5 points): the
	// model tables say so.
	out, err = a.Models(ctx, "http://example.org/v1")
	if err != nil {
		t.Fatal(err)
	}
	var notModelled *analysis.Table
	for _, tb := range out.([]analysis.Table) {
		if tb.Name == "series not modelled" {
			notModelled = &tb
		}
	}
	if notModelled == nil || len(notModelled.Rows) != 1 {
		t.Errorf("model tables %+v: want one series not modelled", out)
	}
	if _, err := a.Models(ctx, "http://example.org/none"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("models of an unknown version: %v, want ErrNotFound", err)
	}
	d, err := a.Diff(ctx, "http://example.org/e4", "http://example.org/e8")
	if err != nil {
		t.Fatal(err)
	}
	if df := d.(*analysis.Diff); len(df.Rows) == 0 {
		t.Error("empty diff")
	}
	if _, err := a.Diff(ctx, "http://example.org/e4", "http://example.org/nope"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("unknown experiment: %v, want ErrNotFound", err)
	}
}
