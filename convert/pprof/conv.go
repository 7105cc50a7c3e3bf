package pprof

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Options configure a pprof conversion.
type Options struct {
	// Experiment is the experiment IRI (default <base>exp/<file name>).
	Experiment string
}

// Converter converts one pprof profile file.
type Converter struct {
	path string
	base convert.Base
	opts Options
}

// New returns a converter of the profile at path (gzip-compressed or not).
func New(path string, base convert.Base, opts Options) *Converter {
	return &Converter{path: path, base: base, opts: opts}
}

// ExperimentIRI returns the experiment IRI.
func (c *Converter) ExperimentIRI() string {
	return c.base.ExperimentIRI(c.opts.Experiment, c.path)
}

// Read reads and checks a pprof protobuf (gzip-compressed or not). name
// labels errors: a *convert.Error at "byte N" of the uncompressed protobuf
// where the data stop following profile.proto, or at "sample N" for a
// sample that does not fit the profile.
func Read(data []byte, name string) (*profile.Profile, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, convert.Errorf(name, "byte 0", "gzip: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, convert.Errorf(name, fmt.Sprintf("byte %d of the uncompressed data", len(data)), "gzip: %w", err)
		}
	}
	if len(data) == 0 {
		return nil, convert.Errorf(name, "byte 0", "empty file: not a pprof profile")
	}
	if we := checkWire(data); we != nil {
		return nil, convert.Errorf(name, fmt.Sprintf("byte %d (%s)", we.Offset, we.Record), "%s", we.Reason)
	}
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		return nil, convert.Errorf(name, "", "not a pprof profile: %w", err)
	}
	if len(p.SampleType) == 0 {
		return nil, convert.Errorf(name, "", "no sample types: not a pprof profile")
	}
	for i, s := range p.Sample {
		if len(s.Value) != len(p.SampleType) {
			return nil, convert.Errorf(name, fmt.Sprintf("sample %d", i), "%d values for %d sample types", len(s.Value), len(p.SampleType))
		}
	}
	if err := p.CheckValid(); err != nil {
		return nil, convert.Errorf(name, "", "malformed profile: %w", err)
	}
	return p, nil
}

// metricMap says how one sample type becomes metrics.
type metricMap struct {
	incl, excl string  // metric names (inclusive, exclusive)
	scale      float64 // raw value × scale = metric value
	unit       string  // of site-local definitions
	long       bool    // integer values (xsd:long)
}

// timeScale returns the factor from a pprof time unit to microseconds.
func timeScale(unit string) (float64, bool) {
	switch unit {
	case "nanoseconds", "ns":
		return 1e-3, true
	case "microseconds", "us":
		return 1, true
	case "milliseconds", "ms":
		return 1e3, true
	case "seconds", "s":
		return 1e6, true
	}
	return 0, false
}

// mapSampleType maps a sample type to metric names: CPU time to the
// catalog's ctime, wall-clock time to wtime (µs), others to their pprof
// type name ("alloc_space", "samples") with the unit pprof gives.
func mapSampleType(typ, unit string) metricMap {
	if sc, ok := timeScale(unit); ok {
		switch typ {
		case "cpu":
			return metricMap{"ctime", "excl_ctime", sc, "microsecond", false}
		case "wall", "wall_time", "real", "wallclock":
			return metricMap{"wtime", "excl_wtime", sc, "microsecond", false}
		}
		n := metricName(typ)
		return metricMap{n, "excl_" + n, sc, "microsecond", false}
	}
	n := metricName(typ)
	u := unit
	switch unit {
	case "count", "":
		u = "counter"
	case "bytes":
		u = "byte"
	}
	return metricMap{n, "excl_" + n, 1, u, true}
}

func metricName(typ string) string {
	typ = strings.TrimSpace(typ)
	if typ == "" {
		return "value"
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' {
			return '_'
		}
		return r
	}, typ)
}

// node is one call path of the region-summary tree.
type node struct {
	path     string // "A => B => C", root first
	region   string
	parent   *node
	children map[string]*node
	incl     []int64
	excl     []int64
}

// frameName names a frame: the function, or the address of an
// unsymbolized location.
func frameName(loc *profile.Location, line *profile.Line) string {
	if line != nil && line.Function != nil && line.Function.Name != "" {
		return line.Function.Name
	}
	return "0x" + strconv.FormatUint(loc.Address, 16)
}

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter("pprof", c.path, sink)
	data, err := os.ReadFile(c.path)
	if err != nil {
		return em.Report(), err
	}
	name := filepath.Base(c.path)
	p, err := Read(data, c.path)
	if err != nil {
		return em.Report(), err
	}
	exp := c.ExperimentIRI()
	b := c.base.String()
	nm := trace.Names{Base: b, Exp: exp}
	loc := trace.Location{Node: "", Process: 0, Thread: 0, Name: name}
	defs := em.Table("profile")
	defs.Row()
	if _, err := trace.EmitDefs(ctx, tableSink{defs}, &trace.Defs{Locations: []trace.Location{loc}}, trace.EmitOptions{Base: b, Experiment: exp}); err != nil {
		return em.Report(), err
	}
	maps := make([]metricMap, len(p.SampleType))
	for i, st := range p.SampleType {
		maps[i] = mapSampleType(st.Type, st.Unit)
	}
	metricDefs, err := c.emitMetricDefs(ctx, defs, p, maps)
	if err != nil {
		return em.Report(), err
	}

	// Build the call-path tree: a sample adds its values to every node of
	// its path (inclusive) and to the leaf (exclusive). Inlined frames of a
	// location come leaf first, as the locations of a sample do.
	nvals := len(p.SampleType)
	roots := map[string]*node{}
	var order []*node
	funcs := map[string]*profile.Function{}
	unsymbolized := 0
	sampleT := em.Table("sample")
	var frames []string
	for i, s := range p.Sample {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return em.Report(), err
			}
		}
		sampleT.Row()
		frames = frames[:0]
		for _, l := range s.Location {
			if len(l.Line) == 0 {
				unsymbolized++
				frames = append(frames, frameName(l, nil))
				continue
			}
			for j := range l.Line {
				f := frameName(l, &l.Line[j])
				frames = append(frames, f)
				if fn := l.Line[j].Function; fn != nil && funcs[f] == nil {
					funcs[f] = fn
				}
			}
		}
		if len(frames) == 0 {
			em.Warn(fmt.Sprintf("sample %d", i), "sample without locations: its values are not attributed to a code region")
			continue
		}
		var n *node
		level := roots
		for k := len(frames) - 1; k >= 0; k-- {
			f := frames[k]
			child := level[f]
			if child == nil {
				path := f
				if n != nil {
					path = n.path + " => " + f
				}
				child = &node{path: path, region: f, parent: n, children: map[string]*node{},
					incl: make([]int64, nvals), excl: make([]int64, nvals)}
				level[f] = child
				order = append(order, child)
			}
			for v := range nvals {
				child.incl[v] += s.Value[v]
			}
			n, level = child, child.children
		}
		for v := range nvals {
			n.excl[v] += s.Value[v]
		}
	}
	if unsymbolized > 0 {
		em.Warn("", "%d frames of unsymbolized locations are named by their address", unsymbolized)
	}

	fnT := em.Table("function")
	regions := map[string]bool{}
	for _, n := range order {
		if regions[n.region] {
			continue
		}
		regions[n.region] = true
		fnT.Row()
		if err := c.emitRegion(ctx, fnT, nm, n.region, funcs[n.region]); err != nil {
			return em.Report(), err
		}
	}

	rsT := em.Table("call path")
	pu := kb.IRI(nm.PUOf(loc))
	expT := kb.IRI(exp)
	rsPrefix := exp + "/rs/" + strings.TrimPrefix(nm.PUOf(loc), exp+"/pu/") + "/"
	emit := func(s kb.Term, p string, o kb.Term) error { return rsT.Emit(ctx, s, kb.IRI(p), o) }
	for _, n := range order {
		rsT.Row()
		rs := kb.IRI(rsPrefix + trace.Segment(n.path))
		for _, e := range []error{
			emit(rs, ontology.RDFType, kb.IRI(ontology.RegionSummary)),
			emit(rs, ontology.OfCodeRegion, kb.IRI(nm.Region(n.region))),
			emit(rs, ontology.InProcessingUnit, pu),
			emit(rs, ontology.InExperiment, expT),
		} {
			if e != nil {
				return em.Report(), e
			}
		}
		if n.parent != nil {
			if err := emit(kb.IRI(rsPrefix+trace.Segment(n.parent.path)), ontology.HasChildRS, rs); err != nil {
				return em.Report(), err
			}
		}
		for v, m := range maps {
			for _, mv := range []struct {
				name string
				val  int64
			}{{m.incl, n.incl[v]}, {m.excl, n.excl[v]}} {
				mi := kb.IRI(rs.Value + "/" + trace.Segment(mv.name))
				var lit kb.Term
				if m.long && m.scale == 1 {
					lit = kb.Long(mv.val)
				} else {
					lit = kb.Double(float64(mv.val) * m.scale)
				}
				for _, e := range []error{
					emit(rs, ontology.HasMetric, mi),
					emit(mi, ontology.RDFType, kb.IRI(ontology.PerformanceMetric)),
					emit(mi, ontology.HasMetricName, kb.String(mv.name)),
					emit(mi, ontology.HasMetricValue, lit),
					emit(mi, ontology.HasMetricDefinition, metricDefs[mv.name]),
				} {
					if e != nil {
						return em.Report(), e
					}
				}
			}
		}
	}
	return em.Report(), nil
}

// emitMetricDefs returns each metric's definition: the catalog entry, or
// a definition under the base (MetricDefinition with mnemonic, unit, data
// type and description) for names the catalog lacks.
func (c *Converter) emitMetricDefs(ctx context.Context, t *convert.Table, p *profile.Profile, maps []metricMap) (map[string]kb.Term, error) {
	out := map[string]kb.Term{}
	for i, m := range maps {
		st := p.SampleType[i]
		for _, x := range []struct{ name, kind string }{{m.incl, "inclusive"}, {m.excl, "exclusive"}} {
			if _, ok := out[x.name]; ok {
				continue
			}
			if info, ok := ontology.LookupMetric(x.name); ok {
				out[x.name] = kb.IRI(info.IRI)
				continue
			}
			d := c.base.IRI("metric", x.name)
			out[x.name] = d
			dt := "double"
			if m.long && m.scale == 1 {
				dt = "int64"
			}
			desc := fmt.Sprintf("pprof sample type %s/%s, %s: summed over the samples whose call stack passes through (inclusive) or ends in (exclusive) the call path", st.Type, st.Unit, x.kind)
			for _, po := range [][2]kb.Term{
				{kb.IRI(ontology.RDFType), kb.IRI(ontology.MetricDefinition)},
				{kb.IRI(ontology.MetricMnemonic), kb.String(x.name)},
				{kb.IRI(ontology.MetricUnit), kb.String(m.unit)},
				{kb.IRI(ontology.MetricDataType), kb.String(dt)},
				{kb.IRI(ontology.MetricDescription), kb.String(desc)},
			} {
				if err := t.Emit(ctx, d, po[0], po[1]); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// emitRegion writes a function's code region: its C.1 classes (a Go
// main.main or C main is the program, the rest subroutines) and, when the
// profile says, its source file and first line.
func (c *Converter) emitRegion(ctx context.Context, t *convert.Table, nm trace.Names, name string, fn *profile.Function) error {
	key := name
	if key == "main.main" {
		key = "main"
	}
	iri := nm.Region(name)
	for _, err := range trace.EmitRegionTyped(ctx, tableSink{t}, iri, name, trace.Mnemonics(trace.Region{Name: key}), nil) {
		if err != nil {
			return err
		}
	}
	if fn == nil {
		return nil
	}
	r := kb.IRI(iri)
	if fn.Filename != "" {
		src := c.base.IRI("src", fn.Filename)
		for _, q := range [][3]kb.Term{
			{src, kb.IRI(ontology.RDFType), kb.IRI(ontology.SourceFile)},
			{src, kb.IRI(ontology.FileName), kb.String(fn.Filename)},
			{r, kb.IRI(ontology.InSourceFile), src},
		} {
			if err := t.Emit(ctx, q[0], q[1], q[2]); err != nil {
				return err
			}
		}
	}
	if fn.StartLine > 0 {
		if err := t.Emit(ctx, r, kb.IRI(ontology.StartLine), kb.Integer(fn.StartLine)); err != nil {
			return err
		}
	}
	return nil
}

// tableSink counts the statements of one report table.
type tableSink struct{ t *convert.Table }

func (s tableSink) Add(ctx context.Context, q kb.TermQuad) error { return s.t.Emit(ctx, q.S, q.P, q.O) }
