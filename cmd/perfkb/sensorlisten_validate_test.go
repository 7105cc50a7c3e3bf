package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/shacl"
)

// TestSensorCheck: sensor-listen --validate refuses a measurement whose
// value is not a number (the shipped shapes' pshape:Numeric), with the
// focus node and the shape's message in the error, accepts a numeric one,
// and with warn accepts both.
func TestSensorCheck(t *testing.T) {
	ctx := context.Background()
	shapes, err := shacl.Default(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := kb.IRI("http://e/m1")
	measurement := func(value kb.Term) []kb.TermQuad {
		g := kb.IRI("http://e/g")
		return []kb.TermQuad{
			{S: m, P: kb.IRI(ontology.RDFType), O: kb.IRI(ontology.PathBandwidthMeasurement), G: g},
			{S: m, P: kb.IRI(ontology.MeasuredValue), O: value, G: g},
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	reject := sensorCheck(shapes, server.ValidateReject, logger)
	if err := reject(ctx, measurement(kb.Double(2.5))); err != nil {
		t.Errorf("a numeric value refused: %v", err)
	}
	err = reject(ctx, measurement(kb.String("fast")))
	if err == nil || !strings.Contains(err.Error(), "<http://e/m1>") || !strings.Contains(err.Error(), "measured values are numbers") {
		t.Errorf("a string value: %v, want a refusal naming <http://e/m1> and the shape's message", err)
	}
	if err := sensorCheck(shapes, server.ValidateWarn, logger)(ctx, measurement(kb.String("fast"))); err != nil {
		t.Errorf("warn refused: %v", err)
	}
}
