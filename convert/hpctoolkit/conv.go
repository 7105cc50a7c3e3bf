package hpctoolkit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Options configure a conversion.
type Options struct {
	// Experiment is the experiment IRI (default <base>exp/<database
	// directory name>).
	Experiment string
}

// Converter converts one HPCToolkit database directory.
type Converter struct {
	dir  string
	base convert.Base
	opts Options
}

// New returns a converter of the database in dir (the directory holding
// meta.db and profile.db).
func New(dir string, base convert.Base, opts Options) *Converter {
	return &Converter{dir: dir, base: base, opts: opts}
}

// ExperimentIRI returns the experiment IRI.
func (c *Converter) ExperimentIRI() string {
	return c.base.ExperimentIRI(c.opts.Experiment, c.dir)
}

// metricOut says how a propagated metric is written.
type metricOut struct {
	name  string
	scale float64
}

// mapMetric names the PERFONTO metric of a propagated metric: the
// execution scope is the inclusive value, the function scope the
// exclusive one (excl_ prefix); time in seconds becomes µs, REALTIME
// wtime and CPUTIME ctime, Linux perf's cycles and instructions the
// catalog's TOT_CYC and TOT_INS, and PAPI events lose their PAPI_
// prefix, as the catalog names them. Other scopes are not converted (ok
// false).
func mapMetric(pm PropMetric) (metricOut, bool) {
	var prefix string
	switch {
	case pm.ScopeType == scopeExecution:
	case pm.ScopeType == scopeTransit && pm.Scope == "function":
		prefix = "excl_"
	default:
		return metricOut{}, false
	}
	name, scale := catalogName(pm.Metric)
	return metricOut{prefix + name, scale}, true
}

// catalogName names the PERFONTO metric of a HPCToolkit event name and
// gives the factor to its unit: time in seconds or milliseconds becomes
// µs, REALTIME wtime and CPUTIME ctime, Linux perf's cycles and
// instructions the catalog's TOT_CYC and TOT_INS, and PAPI events lose
// their PAPI_ prefix, as the catalog names them.
func catalogName(name string) (string, float64) {
	scale := 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{" (sec)", 1e6}, {" (msec)", 1e3}, {" (usec)", 1}, {" (nsec)", 1e-3}} {
		if s, ok := strings.CutSuffix(name, u.suffix); ok {
			name, scale = s, u.scale
			break
		}
	}
	switch strings.ToUpper(name) {
	case "REALTIME":
		name = "wtime"
	case "CPUTIME":
		name = "ctime"
	case "CYCLES", "PAPI_TOT_CYC":
		name = "TOT_CYC"
	case "INSTRUCTIONS", "PAPI_TOT_INS":
		name = "TOT_INS"
	default:
		name = metricName(strings.TrimPrefix(name, "PAPI_"))
	}
	return name, scale
}

// metricName makes a metric name of a HPCToolkit event name: letters,
// digits and '_' kept, runs of anything else one '_'.
func metricName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.TrimSpace(s) {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "value"
	}
	return out
}

// regionOf names the code region of a context and gives its C.1
// mnemonics: a function by its name (main → CR_P, MPI → CR_MPI…, others
// CR_Y), a loop "loop at FILE:LINE" (CR_L), a source line "FILE:LINE"
// and an instruction "MODULE@0xOFFSET" (CR_A), an entry point by its
// pretty name (CR_A).
func regionOf(c *Context) (name string, mnemonics []string) {
	if c.Entry != "" {
		return c.Entry, []string{"CR_A"}
	}
	src := c.File + ":" + strconv.FormatUint(uint64(c.Line), 10)
	switch c.Lexical {
	case lexFunction:
		if c.Function != nil && c.Function.Name != "" {
			return c.Function.Name, trace.Mnemonics(trace.Region{Name: c.Function.Name})
		}
		name = "<unknown function>"
		if c.Function != nil && c.Function.Module != "" {
			name += " " + path.Base(c.Function.Module) + "@0x" + strconv.FormatUint(c.Function.Offset, 16)
		}
		return name, []string{"CR_Y"}
	case lexLoop:
		return "loop at " + src, []string{"CR_L"}
	case lexLine:
		return src, []string{"CR_A"}
	case lexInstruction:
		return path.Base(c.Module) + "@0x" + strconv.FormatUint(c.Offset, 16), []string{"CR_A"}
	}
	return fmt.Sprintf("<lexical type %d>", c.Lexical), []string{"CR_A"}
}

// location maps an identifier tuple to a processing unit: NODE (its
// physical host id), RANK and THREAD; ok is false for a tuple with other
// kinds (GPU contexts and streams), which has no PERFONTO processing unit.
func location(m *Meta, tuple []Identifier) (trace.Location, string, bool) {
	var l trace.Location
	for _, id := range tuple {
		kind := fmt.Sprintf("kind %d", id.Kind)
		if int(id.Kind) < len(m.Kinds) {
			kind = m.Kinds[id.Kind]
		}
		switch kind {
		case "NODE":
			v := id.PhysicalID
			if !id.Physical {
				v = uint64(id.LogicalID)
			}
			l.Node = "hostid " + strconv.FormatUint(v, 16)
		case "RANK":
			l.Process = int(id.LogicalID)
		case "THREAD":
			l.Thread = int(id.LogicalID)
		case "CORE":
		default:
			return l, kind, false
		}
	}
	return l, "", true
}

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	metaPath := filepath.Join(c.dir, "meta.db")
	profPath := filepath.Join(c.dir, "profile.db")
	em := convert.NewEmitter("hpctoolkit", c.dir, sink)
	if st, err := os.Stat(c.dir); err != nil {
		return em.Report(), err
	} else if !st.IsDir() {
		return em.Report(), convert.Errorf(c.dir, "", "not a directory: an HPCToolkit database is the directory holding meta.db and profile.db, or experiment.xml and *.metric-db files")
	}
	if _, err := os.Stat(metaPath); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(c.dir, "experiment.xml")); err == nil {
			err := c.convertXMLDir(ctx, em)
			return em.Report(), err
		}
		return em.Report(), convert.Errorf(c.dir, "", "neither meta.db (hpcprof 2022.10 and later) nor experiment.xml (earlier hpcprof) is in the directory: not an HPCToolkit database")
	}
	metaData, err := os.ReadFile(metaPath)
	if err != nil {
		return em.Report(), err
	}
	profData, err := os.ReadFile(profPath)
	if err != nil {
		return em.Report(), err
	}
	err = c.convert(ctx, em, metaPath, metaData, profPath, profData)
	return em.Report(), err
}

// convert converts the contents of meta.db and profile.db.
func (c *Converter) convert(ctx context.Context, em *convert.Emitter, metaPath string, metaData []byte, profPath string, profData []byte) error {
	meta, err := ReadMeta(metaData, metaPath)
	if err != nil {
		return err
	}
	profs, err := ReadProfiles(profData, profPath)
	if err != nil {
		return err
	}

	outs := map[uint16]metricOut{}
	skipped := map[string]bool{}
	for _, pm := range meta.Metrics {
		if o, ok := mapMetric(pm); ok {
			outs[pm.ID] = o
		} else if !skipped[pm.Scope] {
			skipped[pm.Scope] = true
			em.Warn(metaPath, "propagation scope %q (type %d) is not converted: only execution (inclusive) and function (exclusive) values are", pm.Scope, pm.ScopeType)
		}
	}

	exp := c.ExperimentIRI()
	nm := trace.Names{Base: c.base.String(), Exp: exp}

	// The processing units: one per thread profile.
	var ps []prof
	seen := map[string]int{}
	for i := range profs.Len() {
		if profs.Summary(i) {
			continue
		}
		l, kind, ok := location(meta, profs.Tuple(i))
		if !ok {
			em.Warn(fmt.Sprintf("%s profile %d", profPath, i), "identifier kind %s has no PERFONTO processing unit: profile not converted", kind)
			continue
		}
		key := nm.PUOf(l)
		if j, dup := seen[key]; dup {
			em.Warn(fmt.Sprintf("%s profile %d", profPath, i), "same rank and thread as profile %d: profile not converted", j)
			continue
		}
		seen[key] = i
		l.ID = len(ps)
		ps = append(ps, prof{i, l})
	}
	if len(ps) == 0 {
		return convert.Errorf(profPath, "", "no thread profiles to convert (%d profiles, all summaries or GPU streams)", profs.Len())
	}
	return c.emit(ctx, em, exp, meta.Contexts, meta.Context, ps, func(p prof, valT *convert.Table) (map[uint32][]val, error) {
		vals := map[uint32][]val{}
		unlisted := 0
		err := profs.Values(p.index, func(v Value) error {
			valT.Row()
			if v.Ctx == 0 {
				return nil // the global context: the profile's total
			}
			if meta.Context(v.Ctx) == nil {
				unlisted++
				return nil
			}
			o, ok := outs[v.Metric]
			if !ok {
				return nil
			}
			vals[v.Ctx] = append(vals[v.Ctx], val{o.name, v.V * o.scale})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if unlisted > 0 {
			// hpcprof writes values of call-site and instruction
			// contexts that meta.db does not list; hpcviewer skips them
			// too (their costs are in the listed ancestors' values).
			em.Warn(fmt.Sprintf("%s profile %d", profPath, p.index), "%d values of contexts that meta.db does not list are not converted", unlisted)
		}
		return vals, nil
	})
}

// prof is one thread profile: where its values are and its processing unit.
type prof struct {
	index int
	loc   trace.Location
}

// val is one metric value of a context.
type val struct {
	name string
	v    float64
}

// emit writes the processing units, the code regions of the contexts
// (parents before children) and, per thread profile (its values read by
// valuesOf, counting them in the table it is given), the region summaries
// of the contexts with values and of their ancestors, whichever database
// layout they were read from.
func (c *Converter) emit(ctx context.Context, em *convert.Emitter, exp string, contexts []*Context, lookup func(uint32) *Context, ps []prof, valuesOf func(prof, *convert.Table) (map[uint32][]val, error)) error {
	b := c.base.String()
	nm := trace.Names{Base: b, Exp: exp}
	locs := make([]trace.Location, len(ps))
	for i, p := range ps {
		locs[i] = p.loc
	}
	defs := em.Table("database")
	defs.Row()
	if _, err := trace.EmitDefs(ctx, tableSink{defs}, &trace.Defs{Locations: locs}, trace.EmitOptions{Base: b, Experiment: exp}); err != nil {
		return err
	}

	ctxT := em.Table("context")
	regions := map[string]bool{}
	regionIRI := map[uint32]kb.Term{}
	for _, cx := range contexts {
		ctxT.Row()
		name, mn := regionOf(cx)
		iri := nm.Region(name)
		regionIRI[cx.ID] = kb.IRI(iri)
		if regions[iri] {
			continue
		}
		regions[iri] = true
		for _, err := range trace.EmitRegionTyped(ctx, tableSink{ctxT}, iri, name, mn, nil) {
			if err != nil {
				return err
			}
		}
		if fn := cx.Function; cx.Lexical == lexFunction && cx.Entry == "" && fn != nil {
			if err := c.emitSource(ctx, ctxT, kb.IRI(iri), fn); err != nil {
				return err
			}
		}
	}

	valT := em.Table("profile value")
	rsT := em.Table("call path")
	expT := kb.IRI(exp)
	emit := func(s kb.Term, p string, o kb.Term) error { return rsT.Emit(ctx, s, kb.IRI(p), o) }
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return err
		}
		vals, err := valuesOf(p, valT)
		if err != nil {
			return err
		}
		// A context with values has a summary, and so have its ancestors,
		// so that the hasChildRS tree reaches it from an entry point.
		with := map[uint32]bool{}
		for id := range vals {
			for cx := lookup(id); cx != nil && !with[cx.ID]; cx = lookup(cx.Parent) {
				with[cx.ID] = true
			}
		}
		pu := nm.PUOf(p.loc)
		rsPrefix := exp + "/rs/" + strings.TrimPrefix(pu, exp+"/pu/") + "/"
		puT := kb.IRI(pu)
		ids := make([]uint32, 0, len(with))
		for id := range with {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			rsT.Row()
			cx := lookup(id)
			rs := kb.IRI(rsPrefix + strconv.FormatUint(uint64(id), 10))
			for _, e := range []error{
				emit(rs, ontology.RDFType, kb.IRI(ontology.RegionSummary)),
				emit(rs, ontology.OfCodeRegion, regionIRI[id]),
				emit(rs, ontology.InProcessingUnit, puT),
				emit(rs, ontology.InExperiment, expT),
			} {
				if e != nil {
					return e
				}
			}
			if cx.Parent != 0 {
				if err := emit(kb.IRI(rsPrefix+strconv.FormatUint(uint64(cx.Parent), 10)), ontology.HasChildRS, rs); err != nil {
					return err
				}
			}
			for _, v := range vals[id] {
				mi := kb.IRI(rs.Value + "/" + trace.Segment(v.name))
				for _, e := range []error{
					emit(rs, ontology.HasMetric, mi),
					emit(mi, ontology.RDFType, kb.IRI(ontology.PerformanceMetric)),
					emit(mi, ontology.HasMetricName, kb.String(v.name)),
					emit(mi, ontology.HasMetricValue, literal(v.name, v.v)),
				} {
					if e != nil {
						return e
					}
				}
			}
		}
	}
	return nil
}

// literal is a metric value in the catalog's datatype: xsd:long for
// integer metrics (counters) when the value is whole, else xsd:double.
func literal(name string, v float64) kb.Term {
	if info, ok := ontology.LookupMetric(name); ok && info.ValueDatatype == ontology.XSDLong && v == math.Trunc(v) && math.Abs(v) < 1<<62 {
		return kb.Long(int64(v))
	}
	return kb.Double(v)
}

// emitSource writes a function's source file and line.
func (c *Converter) emitSource(ctx context.Context, t *convert.Table, r kb.Term, fn *Function) error {
	if fn.File != "" {
		src := c.base.IRI("src", fn.File)
		for _, q := range [][3]kb.Term{
			{src, kb.IRI(ontology.RDFType), kb.IRI(ontology.SourceFile)},
			{src, kb.IRI(ontology.FileName), kb.String(fn.File)},
			{r, kb.IRI(ontology.InSourceFile), src},
		} {
			if err := t.Emit(ctx, q[0], q[1], q[2]); err != nil {
				return err
			}
		}
	}
	if fn.Line > 0 {
		return t.Emit(ctx, r, kb.IRI(ontology.StartLine), kb.Integer(int64(fn.Line)))
	}
	return nil
}

// tableSink counts the statements of one report table.
type tableSink struct{ t *convert.Table }

func (s tableSink) Add(ctx context.Context, q kb.TermQuad) error { return s.t.Emit(ctx, q.S, q.P, q.O) }
