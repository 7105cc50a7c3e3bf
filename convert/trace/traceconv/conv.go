package traceconv

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/convert/trace/compensate"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Options configure a trace conversion.
type Options struct {
	// Experiment is the measured experiment's IRI (default
	// <base>exp/<source name>).
	Experiment string
	// Events also writes region instances, events and messages.
	Events bool
	// AcceptViolations converts despite fatal CHECKTRACE violations.
	AcceptViolations bool
	// Calibration, when set, adds the compensated experiment
	// <exp>/compensated-<bound>.
	Calibration *compensate.Calibration
	Bound       compensate.Bound
	Collective  compensate.CollectiveMode
	// Progress, when set, is called with the number of events processed.
	Progress func(events int64)
}

// Converter converts one trace.
type Converter struct {
	src    trace.Source
	name   string
	kind   string
	base   convert.Base
	opts   Options
	Stats  *trace.Summary // the measured summary, after Convert
	Report compensate.Report
}

// New returns a converter of src; name names the source in errors and
// IRIs, kind the converter ("otf2").
func New(src trace.Source, kind, name string, base convert.Base, opts Options) *Converter {
	return &Converter{src: src, kind: kind, name: name, base: base, opts: opts}
}

// ExperimentIRI returns the measured experiment's IRI.
func (c *Converter) ExperimentIRI() string {
	if c.opts.Experiment != "" {
		return c.opts.Experiment
	}
	n := c.name
	if i := strings.LastIndexAny(n, "/\\"); i >= 0 {
		n = n[i+1:]
	}
	return c.base.IRI("exp", n).Value
}

// tableSink counts the statements of one report table.
type tableSink struct{ t *convert.Table }

func (s tableSink) Add(ctx context.Context, q kb.TermQuad) error { return s.t.Emit(ctx, q.S, q.P, q.O) }

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter(c.kind, c.name, sink)
	d := c.src.Defs()
	vs, err := trace.Check(ctx, c.src)
	if err != nil {
		return em.Report(), convert.Errorf(c.name, "", "reading the trace: %w", err)
	}
	for _, v := range vs {
		pos := fmt.Sprintf("location %d event %d", v.Loc, v.Index)
		if v.Fatal && !c.opts.AcceptViolations {
			return em.Report(), convert.Errorf(c.name, pos, "%s: %s (time %d); summaries would be wrong — fix the trace or pass --accept-violations", v.Kind, v.Detail, v.Time)
		}
		em.Warn(pos, "%s: %s", v.Kind, v.Detail)
	}
	exp := c.ExperimentIRI()
	opts := trace.EmitOptions{Base: c.base.String(), Experiment: exp}
	tbl := em.Table("region summary")
	sum, err := trace.Summarize(ctx, c.src)
	if err != nil {
		return em.Report(), convert.Errorf(c.name, "", "reading the trace: %w", err)
	}
	c.Stats = sum
	for range sum.Nodes {
		tbl.Row()
	}
	if c.opts.Progress != nil {
		c.opts.Progress(sum.Events)
	}
	if _, err := trace.EmitSummary(ctx, tableSink{tbl}, sum, opts); err != nil {
		return em.Report(), err
	}
	if c.opts.Events {
		et := em.Table("event")
		for range sum.Events {
			et.Row()
		}
		if _, err := trace.EmitEvents(ctx, tableSink{et}, d, trace.Merge(ctx, c.src), trace.EventOptions{EmitOptions: opts}); err != nil {
			return em.Report(), err
		}
	}
	if c.opts.Calibration == nil {
		return em.Report(), nil
	}
	model := compensate.NewModel(c.opts.Calibration, c.opts.Bound)
	model.Collective = c.opts.Collective
	// The compensated trace is streamed twice (summaries, then events)
	// rather than held: the engine keeps a bounded window (003 §4).
	cdefs := *d
	cdefs.Offsets = nil
	csum, err := trace.SummarizeEvents(&cdefs, compensate.Stream(ctx, c.src, model, &c.Report))
	if err != nil {
		return em.Report(), convert.Errorf(c.name, "", "compensation: %w", err)
	}
	for _, flag := range slices.Sorted(maps.Keys(c.Report.Flags)) {
		em.Warn("", "compensation used an extension beyond Wolf et al.: %s (%d times)", flag, c.Report.Flags[flag])
	}
	cexp := exp + "/compensated-" + c.opts.Bound.String()
	copts := trace.EmitOptions{Base: c.base.String(), Experiment: cexp, ExperimentProps: []kb.Triple{
		{P: kb.IRI(ontology.CompensatedFrom), O: kb.IRI(exp)},
		{P: kb.IRI(ontology.CompensationBound), O: kb.String(c.opts.Bound.String())},
		{P: kb.IRI(ontology.PerEventOverhead), O: kb.Double(c.opts.Calibration.OverheadUs)},
	}, ValueProps: []kb.Triple{
		{P: kb.IRI(ontology.ValueCompensationBound), O: kb.String(c.opts.Bound.String())},
		{P: kb.IRI(ontology.ValuePerEventOverhead), O: kb.Double(c.opts.Calibration.OverheadUs)},
	}}
	ct := em.Table("compensated region summary")
	for range csum.Nodes {
		ct.Row()
	}
	if _, err := trace.EmitSummary(ctx, tableSink{ct}, csum, copts); err != nil {
		return em.Report(), err
	}
	if c.opts.Events {
		approx := func(e *trace.Event) (trace.Time, bool) { return e.Time, true }
		cet := em.Table("compensated event")
		if _, err := trace.EmitEvents(ctx, tableSink{cet}, &cdefs, compensate.Stream(ctx, c.src, model, nil),
			trace.EventOptions{EmitOptions: copts, Approx: approx}); err != nil {
			return em.Report(), err
		}
	}
	return em.Report(), nil
}
