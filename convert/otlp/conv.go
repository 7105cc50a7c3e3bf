package otlp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
)

// Options configure a file conversion.
type Options struct {
	// Experiment is the experiment IRI (default <base>exp/<file name>).
	Experiment string
	// Signal says what a protobuf file holds: "traces" (default) or
	// "metrics". JSON lines name their signal themselves.
	Signal string
}

// Converter converts a file of OTLP messages: one protobuf
// ExportTraceServiceRequest or ExportMetricsServiceRequest, or JSON
// lines, one request per line, as the collector's file exporter writes.
type Converter struct {
	path string
	base convert.Base
	opts Options
}

// New returns a converter of the file at path.
func New(path string, base convert.Base, opts Options) *Converter {
	return &Converter{path: path, base: base, opts: opts}
}

// ExperimentIRI returns the experiment IRI.
func (c *Converter) ExperimentIRI() string {
	return c.base.ExperimentIRI(c.opts.Experiment, c.path)
}

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter("otlp", c.path, sink)
	data, err := os.ReadFile(c.path)
	if err != nil {
		return em.Report(), err
	}
	err = c.convert(ctx, em, data)
	return em.Report(), err
}

func (c *Converter) convert(ctx context.Context, em *convert.Emitter, data []byte) error {
	m := &Mapper{Base: c.base, Experiment: c.ExperimentIRI()}
	spansT, pointsT := em.Table("span"), em.Table("data point")
	emitTo := func(t *convert.Table) Emit {
		return func(s, p, o kb.Term) error { return t.Emit(ctx, s, p, o) }
	}
	one := func(body []byte, enc Encoding, signal, pos string) error {
		if signal == "metrics" {
			md, err := DecodeMetrics(body, enc, c.path, pos)
			if err != nil {
				return err
			}
			n, err := m.Metrics(ctx, md, c.path, emitTo(pointsT))
			for range n {
				pointsT.Row()
			}
			return err
		}
		td, err := DecodeTraces(body, enc, c.path, pos)
		if err != nil {
			return err
		}
		n, err := m.Traces(ctx, td, c.path, emitTo(spansT))
		for range n {
			spansT.Row()
		}
		return err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		// One JSON request, or several one after the other (JSON lines,
		// as the collector's file exporter writes them).
		dec := json.NewDecoder(bytes.NewReader(data))
		for k := 1; ; k++ {
			at := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				return nil
			} else if err != nil {
				return convert.Errorf(c.path, c.where(data, at, k), "not JSON: %v", err)
			}
			signal := "traces"
			var probe struct {
				Spans   json.RawMessage `json:"resourceSpans"`
				Metrics json.RawMessage `json:"resourceMetrics"`
			}
			if json.Unmarshal(raw, &probe) != nil || probe.Spans == nil && probe.Metrics == nil {
				return convert.Errorf(c.path, c.where(data, at, k), `expected an OTLP JSON request with "resourceSpans" or "resourceMetrics"`)
			}
			if probe.Metrics != nil {
				signal = "metrics"
			}
			if err := one(raw, JSON, signal, c.where(data, at, k)); err != nil {
				return err
			}
		}
	}
	switch c.opts.Signal {
	case "", "traces":
		return one(data, Protobuf, "traces", "byte 0")
	case "metrics":
		return one(data, Protobuf, "metrics", "byte 0")
	}
	return fmt.Errorf("signal %q: want traces or metrics", c.opts.Signal)
}

// where names the k-th JSON request of a file, starting at byte at.
func (c *Converter) where(data []byte, at int64, k int) string {
	for at < int64(len(data)) && (data[at] == ' ' || data[at] == '\n' || data[at] == '\r' || data[at] == '\t') {
		at++
	}
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	return fmt.Sprintf("request %d (line %d)", k, line)
}
