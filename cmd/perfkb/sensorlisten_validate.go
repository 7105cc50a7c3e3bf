package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/shacl"
)

// sensorCheck returns the monitor.SensorOptions.Check of sensor-listen
// --validate: the triples of a batch (or of one message) are validated on
// their own, beside PERFONTO's class hierarchy, against shapes. Rejecting,
// a non-conforming batch is refused with the report's results as the
// error; warning, it is logged and written.
func sensorCheck(shapes *shacl.Shapes, mode server.ValidationMode, logger *slog.Logger) func(context.Context, []kb.TermQuad) error {
	return func(ctx context.Context, quads []kb.TermQuad) error {
		rep, err := validateQuads(ctx, shapes, quads)
		if err != nil {
			return err
		}
		if rep.Conforms {
			return nil
		}
		msg := describeReport(rep)
		if mode == server.ValidateWarn {
			logger.Warn("sensor data does not conform to the shapes; stored anyway", "report", msg)
			return nil
		}
		return fmt.Errorf("does not conform to the shapes: %s", msg)
	}
}

// validateQuads validates quads in a scratch store beside the built-in
// ontology.
func validateQuads(ctx context.Context, shapes *shacl.Shapes, quads []kb.TermQuad) (*shacl.Report, error) {
	mem := native.OpenMemory()
	defer mem.Close()
	ids, err := kb.InternQuads(ctx, mem, quads)
	if err != nil {
		return nil, err
	}
	if err := mem.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		return nil, err
	}
	if err := shacl.AddOntology(ctx, mem); err != nil {
		return nil, err
	}
	return shacl.Validate(ctx, mem, shapes, shacl.Options{})
}

// describeReport sums a report up in one log line: the count and the
// first results (focus node, path, value and message).
func describeReport(rep *shacl.Report) string {
	const show = 3
	parts := []string{fmt.Sprintf("%d results", len(rep.Results))}
	for i, r := range rep.Results {
		if i == show {
			parts = append(parts, "…")
			break
		}
		s := r.Focus.String()
		if r.Path != nil {
			s += " " + r.Path.String()
		}
		if !r.Value.IsZero() {
			s += " " + r.Value.String()
		}
		if len(r.Messages) > 0 {
			s += ": " + r.Messages[0].Value
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
