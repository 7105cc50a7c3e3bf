package tau

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// Options configure a TAU conversion.
type Options struct {
	// Experiment is the experiment IRI (default <base>exp/<run directory name>).
	Experiment string
}

// Converter converts one TAU run directory.
type Converter struct {
	dir  string
	base convert.Base
	opts Options
}

// New returns a converter of the run directory dir.
func New(dir string, base convert.Base, opts Options) *Converter {
	return &Converter{dir: dir, base: base, opts: opts}
}

// timeMetrics are TAU's names of wall-clock time metrics (µs), → wtime.
var timeMetrics = map[string]bool{"TIME": true, "WALL_CLOCK": true, "P_WALL_CLOCK_TIME": true,
	"GET_TIME_OF_DAY": true, "LINUX_TIMERS": true, "WALLCLOCK": true}

// metricName maps a TAU metric to its C.2 name.
func metricName(m string) string {
	if m == "" || timeMetrics[m] {
		return "wtime"
	}
	return strings.TrimPrefix(m, "PAPI_")
}

type threadKey struct{ n, c, t int }

func (k threadKey) file() string { return fmt.Sprintf("profile.%d.%d.%d", k.n, k.c, k.t) }

// metricDir is one metric's directory of profile files.
type metricDir struct {
	metric string // TAU name ("" when the profiles say nothing)
	dir    string
	rel    string // as shown in errors: "MULTI__TIME/" or ""
	files  map[threadKey]bool
}

func (c *Converter) layout() ([]*metricDir, []threadKey, error) {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, nil, err
	}
	list := func(dir, rel, metric string) (*metricDir, error) {
		md := &metricDir{metric: metric, dir: dir, rel: rel, files: map[threadKey]bool{}}
		es, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if n, cc, t, ok := ParseName(e.Name()); ok && !e.IsDir() {
				md.files[threadKey{n, cc, t}] = true
			}
		}
		return md, nil
	}
	var dirs []*metricDir
	for _, e := range ents {
		if m, ok := strings.CutPrefix(e.Name(), "MULTI__"); ok && e.IsDir() {
			md, err := list(filepath.Join(c.dir, e.Name()), e.Name()+"/", m)
			if err != nil {
				return nil, nil, err
			}
			dirs = append(dirs, md)
		}
	}
	if len(dirs) == 0 {
		md, err := list(c.dir, "", "")
		if err != nil {
			return nil, nil, err
		}
		if len(md.files) == 0 {
			return nil, nil, convert.Errorf(c.dir, "", "no profile.N.C.T files and no MULTI__<metric> directories")
		}
		dirs = append(dirs, md)
	}
	// The time metric first, so ncalls, nsubs and user events come from it.
	sort.SliceStable(dirs, func(i, j int) bool {
		ti, tj := metricName(dirs[i].metric) == "wtime", metricName(dirs[j].metric) == "wtime"
		if ti != tj {
			return ti
		}
		return dirs[i].metric < dirs[j].metric
	})
	all := map[threadKey]bool{}
	for _, d := range dirs {
		for k := range d.files {
			all[k] = true
		}
	}
	var keys []threadKey
	for k := range all {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.n != b.n {
			return a.n < b.n
		}
		if a.c != b.c {
			return a.c < b.c
		}
		return a.t < b.t
	})
	for _, k := range keys {
		for _, d := range dirs {
			if !d.files[k] {
				var has string
				for _, o := range dirs {
					if o.files[k] {
						has = o.rel
						break
					}
				}
				p := d.rel + k.file()
				return nil, nil, convert.TextErrorf(c.dir, textpos.Position{Source: p, Line: 1}, "file missing: %s has %s but %s does not", has+k.file(), k.file(), strings.TrimSuffix(d.rel, "/"))
			}
		}
	}
	return dirs, keys, nil
}

// cleanName is the region name of a TAU function: trimmed, and "MPI_Send()"
// without its empty parentheses.
func cleanName(s string) string {
	s = strings.TrimSpace(s)
	if b, ok := strings.CutSuffix(s, "()"); ok && !strings.ContainsAny(b, " ()") {
		return b
	}
	return s
}

// classifyKey is the identifier used for the C.1 mapping: "int main(int,
// char **) C" → "main".
func classifyKey(name string) string {
	s := name
	if i := strings.Index(s, "("); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, " *&"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func regionOf(name, group string) ([]string, string) {
	cn := cleanName(name)
	key := classifyKey(cn)
	r := trace.Region{Name: key}
	switch {
	case strings.Contains(group, "MPI") || strings.HasPrefix(key, "MPI_"):
		r.Paradigm = trace.ParadigmMPI
	case strings.Contains(group, "OpenMP") || strings.HasPrefix(strings.ToLower(cn), "openmp") || strings.HasPrefix(strings.ToLower(cn), "!$omp"):
		r.Paradigm = trace.ParadigmOpenMP
		r.Name = cn
	}
	return trace.Mnemonics(r), cn
}

// pathParts splits a call path "A => B => C".
func pathParts(name string) []string {
	parts := strings.Split(name, " => ")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

var perNode = regexp.MustCompile(` (to|from) node [0-9]+`)

// isMessageSize reports whether a user event records message sizes (TAU's
// "Message size sent to all nodes", "Message size received from all
// nodes"; the per-node variants would count messages twice).
func isMessageSize(name string) bool {
	return strings.HasPrefix(name, "Message size") && !perNode.MatchString(name)
}

type sinkAdapter struct{ t *convert.Table }

func (s sinkAdapter) Add(ctx context.Context, q kb.TermQuad) error {
	return s.t.Emit(ctx, q.S, q.P, q.O)
}

// ExperimentIRI returns the experiment IRI.
func (c *Converter) ExperimentIRI() string {
	return c.base.ExperimentIRI(c.opts.Experiment, c.dir)
}

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter("tau", c.dir, sink)
	dirs, keys, err := c.layout()
	if err != nil {
		return em.Report(), err
	}
	exp := c.ExperimentIRI()
	nm := trace.Names{Base: c.base.String(), Exp: exp}
	regions := map[string]bool{}
	defsT := em.Table("thread")
	fnT := em.Table("function")
	evT := em.Table("user event")
	// Locations (and their DPG) are written after reading each thread's
	// metadata; collect them first from the time metric's files.
	profiles := make([][]*Profile, len(keys))
	var locs []trace.Location
	for i, k := range keys {
		for _, d := range dirs {
			path := filepath.Join(d.dir, k.file())
			f, err := os.Open(path)
			if err != nil {
				return em.Report(), err
			}
			p, err := Parse(f, filepath.Join(d.rel, k.file()))
			f.Close()
			if err != nil {
				return em.Report(), err
			}
			if p.Metric == "" {
				p.Metric = d.metric
			}
			profiles[i] = append(profiles[i], p)
		}
		locs = append(locs, trace.Location{ID: i, Node: nodeName(profiles[i], k.n), Process: k.n, Thread: k.t, Context: k.c})
		defsT.Row()
	}
	if _, err := trace.EmitDefs(ctx, sinkAdapter{defsT}, &trace.Defs{Locations: locs}, trace.EmitOptions{Base: c.base.String(), Experiment: exp}); err != nil {
		return em.Report(), err
	}
	for i, k := range keys {
		if err := c.thread(ctx, em, fnT, evT, nm, locs[i], k, profiles[i], regions); err != nil {
			return em.Report(), err
		}
		profiles[i] = nil
	}
	return em.Report(), nil
}

// nodeKeys are the metadata attributes TAU writes (TauMetaData.cpp) that
// name the node a thread ran on, in the order they are preferred: uname's
// nodename, the Blue Gene compute card or location, then gethostname.
var nodeKeys = []string{"Node Name", "BGQ Node Name", "BGP Location", "BGL Location", "Hostname"}

// nodeName returns the node of a thread from the metadata of its profile
// files (one per metric), or "node N" when none names it.
func nodeName(ps []*Profile, n int) string {
	for _, key := range nodeKeys {
		for _, p := range ps {
			if v := strings.TrimSpace(p.Metadata[key]); v != "" {
				return v
			}
		}
	}
	return "node " + strconv.Itoa(n)
}

type msgAcc struct{ n, sum float64 }

func (c *Converter) thread(ctx context.Context, em *convert.Emitter, fnT, evT *convert.Table, nm trace.Names, loc trace.Location,
	k threadKey, profs []*Profile, regions map[string]bool) error {
	main := profs[0]
	exp := kb.IRI(nm.Exp)
	pu := kb.IRI(nm.PUOf(loc))
	rsPrefix := nm.Exp + "/rs/" + strings.TrimPrefix(nm.PUOf(loc), nm.Exp+"/pu/") + "/"
	rsIRI := func(name string) string { return rsPrefix + trace.Segment(name) }
	emit := func(t *convert.Table, s kb.Term, p string, o kb.Term) error { return t.Emit(ctx, s, kb.IRI(p), o) }
	byName := map[string]*Function{}
	callPaths := false
	for i := range main.Functions {
		f := &main.Functions[i]
		byName[f.Name] = f
		if strings.Contains(f.Name, " => ") {
			callPaths = true
		}
	}
	// Values of the other metrics by function name.
	others := make([]map[string]*Function, len(profs))
	for j, p := range profs[1:] {
		m := map[string]*Function{}
		for i := range p.Functions {
			m[p.Functions[i].Name] = &p.Functions[i]
		}
		for _, f := range main.Functions {
			if m[f.Name] == nil {
				return convert.TextErrorf(c.dir, textpos.Position{Source: p.File, Line: 1}, "function %q of %s is missing from this metric's profile", f.Name, main.File)
			}
		}
		others[j+1] = m
	}
	// The thread root: the flat function with the largest inclusive value.
	root := ""
	best := -1.0
	for _, f := range main.Functions {
		if strings.Contains(f.Name, " => ") {
			continue
		}
		v, _ := strconv.ParseFloat(f.Incl, 64)
		if v > best {
			root, best = f.Name, v
		}
	}
	mnem := map[string][]string{}
	for _, f := range main.Functions {
		fnT.Row()
		parts := pathParts(f.Name)
		leaf := parts[len(parts)-1]
		mn, cn := regionOf(leaf, f.Group)
		mnem[f.Name] = mn
		region := nm.Region(cn)
		if !regions[region] {
			regions[region] = true
			for _, err := range trace.EmitRegionTyped(ctx, sinkAdapter{fnT}, region, cn, mn, nil) {
				if err != nil {
					return err
				}
			}
		}
		rs := kb.IRI(rsIRI(f.Name))
		for _, e := range []error{
			emit(fnT, rs, ontology.RDFType, kb.IRI(ontology.RegionSummary)),
			emit(fnT, rs, ontology.OfCodeRegion, kb.IRI(region)),
			emit(fnT, rs, ontology.InProcessingUnit, pu),
			emit(fnT, rs, ontology.InExperiment, exp),
		} {
			if e != nil {
				return e
			}
		}
		parent := ""
		switch {
		case len(parts) > 1:
			parent = strings.Join(parts[:len(parts)-1], " => ")
			if byName[parent] == nil {
				em.Warn(convert.TextPosition(main.File, f.Line, 0), "call path %q has no entry for its parent %q", f.Name, parent)
				parent = ""
			}
		case !callPaths && f.Name != root:
			parent = root
		}
		if parent != "" {
			if err := emit(fnT, kb.IRI(rsIRI(parent)), ontology.HasChildRS, rs); err != nil {
				return err
			}
		}
		metric := func(name, lexical string, line int, file string) error {
			lit, warn, err := convert.MetricLiteral(convert.MetricDatatype(name), lexical)
			if err != nil {
				return convert.TextErrorf(c.dir, textpos.Position{Source: file, Line: line}, "%s value %q: %v", name, lexical, err)
			}
			if warn != "" {
				em.Warn(convert.TextPosition(file, line, 0), "%s", warn)
			}
			mi := kb.IRI(rsIRI(f.Name) + "/" + name)
			for _, e := range []error{
				emit(fnT, rs, ontology.HasMetric, mi),
				emit(fnT, mi, ontology.RDFType, kb.IRI(ontology.PerformanceMetric)),
				emit(fnT, mi, ontology.HasMetricName, kb.String(name)),
				emit(fnT, mi, ontology.HasMetricValue, lit),
				annotate(ctx, fnT, main, mi, lit),
			} {
				if e != nil {
					return e
				}
			}
			return nil
		}
		if err := metric("ncalls", f.Calls, f.Line, main.File); err != nil {
			return err
		}
		if err := metric("nsubs", f.Subrs, f.Line, main.File); err != nil {
			return err
		}
		for j, p := range profs {
			g := f
			if j > 0 {
				g = *others[j][f.Name]
			}
			name := metricName(p.Metric)
			if err := metric(name, g.Incl, g.Line, p.File); err != nil {
				return err
			}
			if name == "wtime" {
				if err := metric("excl_wtime", g.Excl, g.Line, p.File); err != nil {
					return err
				}
			}
		}
	}
	// Message sizes → AvgMessageLength.
	acc := map[string]*msgAcc{}
	var global []UserEvent
	hasContext := false
	for _, ev := range main.Events {
		evT.Row()
		if err := c.userEvent(ctx, em, evT, main, ev, byName, root, rsIRI); err != nil {
			return err
		}
		name, path, ok := strings.Cut(ev.Name, " : ")
		if !isMessageSize(strings.TrimSpace(name)) {
			continue
		}
		n, _ := strconv.ParseFloat(ev.NumEvents, 64)
		mean, _ := strconv.ParseFloat(ev.Mean, 64)
		if !ok {
			global = append(global, ev)
			continue
		}
		hasContext = true
		path = strings.TrimSpace(path)
		if byName[path] == nil {
			em.Warn(convert.TextPosition(main.File, ev.Line, 0), "user event %q names a call path the profile does not have", ev.Name)
			continue
		}
		a := acc[path]
		if a == nil {
			a = &msgAcc{}
			acc[path] = a
		}
		a.n += n
		a.sum += n * mean
	}
	if !hasContext && len(global) > 0 {
		var sends []string
		for _, f := range main.Functions {
			if !strings.Contains(f.Name, " => ") && contains(mnem[f.Name], "CR_MPISEND") {
				sends = append(sends, f.Name)
			}
		}
		target := root
		if len(sends) == 1 {
			target = sends[0]
		} else {
			em.Warn(convert.TextPosition(main.File, global[0].Line, 0), "message-size event without context and %d MPI send regions: attached to the thread root %q", len(sends), root)
		}
		for _, ev := range global {
			n, _ := strconv.ParseFloat(ev.NumEvents, 64)
			mean, _ := strconv.ParseFloat(ev.Mean, 64)
			a := acc[target]
			if a == nil {
				a = &msgAcc{}
				acc[target] = a
			}
			a.n += n
			a.sum += n * mean
		}
	}
	paths := make([]string, 0, len(acc))
	for p := range acc {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		a := acc[p]
		if a.n == 0 {
			continue
		}
		if !contains(mnem[p], "CR_MPIP2P") && p != root {
			em.Warn("", "message sizes recorded in %q, which is not an MPI point-to-point region; no AvgMessageLength", p)
			continue
		}
		rsS := rsIRI(p)
		mi := kb.IRI(rsS + "/AvgMessageLength")
		for _, e := range []error{
			emit(evT, kb.IRI(rsS), ontology.HasMetric, mi),
			emit(evT, mi, ontology.RDFType, kb.IRI(ontology.PerformanceMetric)),
			emit(evT, mi, ontology.HasMetricName, kb.String("AvgMessageLength")),
			emit(evT, mi, ontology.HasMetricValue, kb.Double(a.sum/a.n)),
			annotate(ctx, evT, main, mi, kb.Double(a.sum/a.n)),
		} {
			if e != nil {
				return e
			}
		}
	}
	return nil
}

// toolOf names the tool that measured a thread's values: TAU, with the
// version its metadata gives (TauMetaData.cpp writes "TAU Version").
func toolOf(p *Profile) []kb.Triple {
	if v := strings.TrimSpace(p.Metadata["TAU Version"]); v != "" {
		return convert.MeasuredBy("TAU " + v)
	}
	return convert.MeasuredBy("TAU")
}

// annotate states who measured the value statement (mi, hasMetricValue, v).
func annotate(ctx context.Context, t *convert.Table, p *Profile, mi, v kb.Term) error {
	for _, st := range convert.ValueAnnotation(mi, v, toolOf(p)) {
		if err := t.Emit(ctx, st[0], st[1], st[2]); err != nil {
			return err
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// userEvent stores a user event's statistics on the region summary of its
// context path (thread-global events: on the thread root), one metric per
// statistic (ue_numevents, ue_max, ue_min, ue_mean, ue_sumsqr) named by
// userEventName, with the profile's lexical values.
func (c *Converter) userEvent(ctx context.Context, em *convert.Emitter, t *convert.Table, p *Profile, ev UserEvent,
	byName map[string]*Function, root string, rsIRI func(string) string) error {
	name, path, ok := strings.Cut(ev.Name, " : ")
	name = strings.TrimSpace(name)
	target := root
	if ok {
		target = strings.TrimSpace(path)
		if byName[target] == nil {
			return nil // warned about by the message-size pass when it matters
		}
	}
	if target == "" {
		em.Warn(convert.TextPosition(p.File, ev.Line, 0), "user event %q: the profile has no function to attach it to", ev.Name)
		return nil
	}
	rs := rsIRI(target)
	for _, st := range []struct{ metric, lexical string }{
		{"ue_numevents", ev.NumEvents}, {"ue_max", ev.Max}, {"ue_min", ev.Min}, {"ue_mean", ev.Mean}, {"ue_sumsqr", ev.SumSqr},
	} {
		lit, warn, err := convert.MetricLiteral(convert.MetricDatatype(st.metric), st.lexical)
		if err != nil {
			return convert.TextErrorf(c.dir, textpos.Position{Source: p.File, Line: ev.Line}, "user event %q %s %q: %v", ev.Name, st.metric, st.lexical, err)
		}
		if warn != "" {
			em.Warn(convert.TextPosition(p.File, ev.Line, 0), "%s", warn)
		}
		mi := kb.IRI(rs + "/ue/" + trace.Segment(name) + "/" + st.metric)
		for _, q := range [][2]kb.Term{
			{kb.IRI(ontology.HasMetric), mi},
		} {
			if err := t.Emit(ctx, kb.IRI(rs), q[0], q[1]); err != nil {
				return err
			}
		}
		for _, po := range [][2]kb.Term{
			{kb.IRI(ontology.RDFType), kb.IRI(ontology.PerformanceMetric)},
			{kb.IRI(ontology.HasMetricName), kb.String(st.metric)},
			{kb.IRI(ontology.HasMetricValue), lit},
			{kb.IRI(ontology.UserEventName), kb.String(name)},
		} {
			if err := t.Emit(ctx, mi, po[0], po[1]); err != nil {
				return err
			}
		}
		if err := annotate(ctx, t, p, mi, lit); err != nil {
			return err
		}
	}
	return nil
}
