package cube

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// Options configure a CUBE conversion.
type Options struct {
	// Experiment is the experiment IRI (default <base>exp/<directory>/<file
	// name without .cubex>, e.g. <base>exp/scorep_bt_sum/profile).
	Experiment string
}

// Converter converts one .cubex file.
type Converter struct {
	path string
	base convert.Base
	opts Options
}

// New returns a converter of the CUBE4 file path.
func New(path string, base convert.Base, opts Options) *Converter {
	return &Converter{path: path, base: base, opts: opts}
}

// ExperimentIRI returns the experiment IRI.
func (c *Converter) ExperimentIRI() string {
	if c.opts.Experiment != "" {
		return c.opts.Experiment
	}
	abs, err := filepath.Abs(c.path)
	if err != nil {
		abs = c.path
	}
	dir := filepath.Base(filepath.Dir(abs))
	return c.base.IRI("exp", dir, strings.TrimSuffix(filepath.Base(c.path), ".cubex")).Value
}

// target is a PERFONTO metric name and the CUBE metrics that give it.
type target struct {
	name    string
	scale   float64 // applied to float values (seconds → µs)
	sources []int   // indices in Anchor.Metrics
}

// known maps CUBE metrics (Score-P and Scalasca uniq_names) to catalog
// names; scale 1e6 turns seconds into the catalog's microseconds. Several
// sources of one name are added up per call path (a call path is either a
// barrier or another collective, so only one of them is non-zero there).
var known = map[string]struct {
	name  string
	scale float64
}{
	"visits":           {"ncalls", 1},
	"time":             {"wtime", 1e6},
	"min_time":         {"min_wtime", 1e6},
	"max_time":         {"max_wtime", 1e6},
	"bytes_sent":       {"bytes_sent", 1},
	"bytes_received":   {"bytes_recv", 1}, // Score-P
	"bytes_rcvd":       {"bytes_recv", 1}, // Scalasca
	"mpi_latesender":   {"ls_wait", 1e6},
	"mpi_wait_nxn":     {"wnxn_wait", 1e6},
	"mpi_barrier_wait": {"wnxn_wait", 1e6},
}

// MetricName returns the name a CUBE metric (its uniq_name) is stored
// under, and the factor its floating-point values are multiplied by.
func MetricName(uniq string) (string, float64) {
	if k, ok := known[uniq]; ok {
		return k.name, k.scale
	}
	return strings.TrimPrefix(uniq, "PAPI_"), 1
}

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter("cube", c.path, sink)
	f, err := os.Open(c.path)
	if err != nil {
		return em.Report(), err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return em.Report(), err
	}
	ar, err := openArchive(f, st.Size())
	if err != nil {
		return em.Report(), c.wrap(err)
	}
	where := "archive"
	if ar.gzipped {
		where = "decompressed archive"
	}
	if n := len(ar.badChecksums); n > 0 {
		em.Warn(fmt.Sprintf("%s byte %d", where, ar.badChecksums[0]), "%d tar header(s) with a wrong checksum (as CubeWriter 4.8 writes them); read anyway", n)
	}
	am, ok := ar.members["anchor.xml"]
	if !ok {
		return em.Report(), convert.Errorf(c.path, "", "the archive has no anchor.xml member: not a CUBE4 file")
	}
	raw, err := ar.read(am)
	if err != nil {
		return em.Report(), c.wrap(err)
	}
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err == nil {
			raw, err = io.ReadAll(zr)
		}
		if err != nil {
			return em.Report(), convert.Errorf(c.path, fmt.Sprintf("anchor.xml byte 0 (%s byte %d)", where, am.offset), "gzip-compressed anchor.xml: %v", err)
		}
	}
	a, err := parseAnchor(raw)
	if err != nil {
		return em.Report(), c.wrap(err)
	}
	return c.emit(ctx, em, ar, a)
}

// wrap turns a package error into a positioned *convert.Error.
func (c *Converter) wrap(err error) error {
	var pe *posError
	if errors.As(err, &pe) {
		return convert.Errorf(c.path, pe.position(), "%s", pe.msg)
	}
	var xe *xmlError
	if errors.As(err, &xe) {
		return convert.TextErrorf(c.path, textpos.Position{Source: "anchor.xml", Line: xe.line, Column: xe.col}, "%s", xe.msg)
	}
	return err
}

type tables struct {
	loc, region, path, metric *convert.Table
}

func (c *Converter) emit(ctx context.Context, em *convert.Emitter, ar *archive, a *Anchor) (convert.Report, error) {
	exp := c.ExperimentIRI()
	nm := trace.Names{Base: c.base.String(), Exp: exp}
	tb := tables{em.Table("location"), em.Table("region"), em.Table("call path"), em.Table("metric")}

	// System tree → processing units. Locations that share a (process,
	// rank) pair (GPU streams beside the master thread) keep their
	// location ID as the context, so their PUs stay apart.
	locs := make([]trace.Location, len(a.Locations))
	taken := map[[2]int]bool{}
	for i, l := range a.Locations {
		tb.loc.Row()
		proc, thread := l.Process, l.Rank
		if proc < 0 {
			proc = 0
		}
		if thread < 0 {
			thread = l.ID
		}
		tl := trace.Location{ID: i, Node: l.Node, Process: proc, Thread: thread, Name: l.Name}
		if taken[[2]int{proc, thread}] {
			tl.Context = l.ID + 1
			em.Warn(convert.TextPosition("anchor.xml", l.Line, 0), "location %d (%q, %s) has the process and rank of another location; its processing unit is named with context %d", l.ID, l.Name, l.Type, tl.Context)
		}
		taken[[2]int{proc, thread}] = true
		locs[i] = tl
	}
	if _, err := trace.EmitDefs(ctx, tableSink{tb.loc}, &trace.Defs{Locations: locs}, trace.EmitOptions{Base: c.base.String(), Experiment: exp}); err != nil {
		return em.Report(), err
	}

	// Code regions of the call tree.
	regionIRI := map[int]string{}
	seen := map[string]bool{}
	ids := make([]int, 0, len(a.Regions))
	for id := range a.Regions {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r := a.Regions[id]
		tb.region.Row()
		name := r.Name
		if name == "" {
			name = r.Mangled
		}
		iri := nm.Region(name)
		regionIRI[id] = iri
		if seen[iri] {
			continue
		}
		seen[iri] = true
		for _, err := range trace.EmitRegion(ctx, tableSink{tb.region}, iri, trace.Region{Name: name, Paradigm: paradigm(r.Paradigm), Role: r.Role}, nil) {
			if err != nil {
				return em.Report(), err
			}
		}
	}

	// Metrics → targets.
	var targets []*target
	byName := map[string]*target{}
	var derived, empty []string
	for i := range a.Metrics {
		m := &a.Metrics[i]
		_, hasIndex := ar.members[fmt.Sprintf("%d.index", m.ID)]
		_, hasData := ar.members[fmt.Sprintf("%d.data", m.ID)]
		switch {
		case m.ID < 0 || !hasIndex && !hasData:
			if m.Type != "INCLUSIVE" && m.Type != "EXCLUSIVE" {
				derived = append(derived, m.UniqName)
			} else {
				empty = append(empty, m.UniqName)
			}
			continue
		case !hasIndex:
			return em.Report(), convert.Errorf(c.path, convert.TextPosition("anchor.xml", m.Line, 0), "metric %q has %d.data but no %d.index", m.UniqName, m.ID, m.ID)
		case !hasData:
			return em.Report(), convert.Errorf(c.path, convert.TextPosition("anchor.xml", m.Line, 0), "metric %q has %d.index but no %d.data", m.UniqName, m.ID, m.ID)
		case m.Type != "INCLUSIVE" && m.Type != "EXCLUSIVE":
			return em.Report(), convert.TextErrorf(c.path, textpos.Position{Source: "anchor.xml", Line: m.Line}, "metric %q has data but type %q: expected INCLUSIVE or EXCLUSIVE", m.UniqName, m.Type)
		}
		if _, ok := dtypeOf(m.DType); !ok {
			em.Warn(convert.TextPosition("anchor.xml", m.Line, 0), "metric %q: data type %s is not a scalar; not converted", m.UniqName, m.DType)
			continue
		}
		name, scale := MetricName(m.UniqName)
		t := byName[name]
		if t == nil {
			t = &target{name: name, scale: scale}
			byName[name] = t
			targets = append(targets, t)
		} else if known[m.UniqName].name != name || known[a.Metrics[t.sources[0]].UniqName].name != name {
			em.Warn(convert.TextPosition("anchor.xml", m.Line, 0), "metric %q would be stored as %q like metric %q; not converted", m.UniqName, name, a.Metrics[t.sources[0]].UniqName)
			continue
		}
		t.sources = append(t.sources, i)
	}
	if len(empty) > 0 {
		em.Warn("anchor.xml", "%d metric(s) have no stored values (no <id>.index/<id>.data: zero everywhere): %s", len(empty), strings.Join(empty, ", "))
	}
	if len(derived) > 0 {
		em.Warn("anchor.xml", "%d derived metric(s) computed by CubePL have no stored values and are not converted: %s", len(derived), strings.Join(derived, ", "))
	}

	deep, wide := deepEnumeration(a.CNodes), wideEnumeration(a.CNodes)
	st := &state{c: c, ctx: ctx, em: em, a: a, tb: tb, nm: nm, exp: kb.IRI(exp), locs: locs, regionIRI: regionIRI,
		done: make([]bool, len(a.CNodes)*len(a.Locations))}
	for _, t := range targets {
		var sum *values
		var kind valueKind
		inclusive := false
		for _, mi := range t.sources {
			m := &a.Metrics[mi]
			tb.metric.Row()
			dt, _ := dtypeOf(m.DType)
			enum := deep
			if m.Type == "INCLUSIVE" {
				enum = wide
				inclusive = true
			}
			v, err := c.load(ar, m, dt, enum, a)
			if err != nil {
				return em.Report(), c.wrap(err)
			}
			if sum == nil {
				sum, kind = v, dt.kind
				continue
			}
			if dt.kind != kind || v.isInt() != sum.isInt() {
				return em.Report(), convert.TextErrorf(c.path, textpos.Position{Source: "anchor.xml", Line: m.Line}, "metric %q (%s) cannot be added to metric %q (%s) as %s", m.UniqName, m.DType, a.Metrics[t.sources[0]].UniqName, a.Metrics[t.sources[0]].DType, t.name)
			}
			for i := range sum.has {
				sum.has[i] = sum.has[i] || v.has[i]
			}
			if sum.isInt() {
				for i := range sum.ints {
					sum.ints[i] += v.ints[i]
				}
			} else {
				for i := range sum.floats {
					sum.floats[i] += v.floats[i]
				}
			}
		}
		if err := st.emitMetric(t, sum, kind, inclusive && len(t.sources) == 1); err != nil {
			return em.Report(), err
		}
	}
	return em.Report(), nil
}

func (c *Converter) load(ar *archive, m *Metric, dt dtype, enum []int, a *Anchor) (*values, error) {
	im := ar.members[fmt.Sprintf("%d.index", m.ID)]
	dm := ar.members[fmt.Sprintf("%d.data", m.ID)]
	ib, err := ar.read(im)
	if err != nil {
		return nil, err
	}
	ix, err := parseIndex(im.name, ib, im.offset)
	if err != nil {
		return nil, err
	}
	db, err := ar.read(dm)
	if err != nil {
		return nil, err
	}
	raw, err := decodeData(dm.name, db, dm.offset, ix.order, int64(len(ix.entries))*int64(dt.size)*int64(len(a.Locations)))
	if err != nil {
		return nil, err
	}
	at := spot{member: dm.name, base: int64(len(dataMagic)), arch: dm.offset + int64(len(dataMagic))}
	if bytes.HasPrefix(db, []byte(zdataMagic)) {
		at = spot{member: dm.name + " (decompressed values)", arch: -1}
	}
	const ixHeader = int64(len(indexMagic) + 4 + 2 + 1 + 4)
	ixAt := spot{member: im.name, base: ixHeader, arch: im.offset + ixHeader}
	return readValues(m, dt, ix, raw, at, ixAt, enum, len(a.CNodes), len(a.Locations))
}

type state struct {
	c         *Converter
	ctx       context.Context
	em        *convert.Emitter
	a         *Anchor
	tb        tables
	nm        trace.Names
	exp       kb.Term
	locs      []trace.Location
	regionIRI map[int]string
	done      []bool // per (cnode, location): region summary written
}

func (s *state) rs(c, l int) kb.Term {
	pu := strings.TrimPrefix(s.nm.PUOf(s.locs[l]), s.nm.Exp+"/pu/")
	return kb.IRI(s.nm.Exp + "/rs/" + pu + "/" + strconv.Itoa(s.a.CNodes[c].ID))
}

// ensure writes the region summary of (cnode c, location l) and, first,
// those of its ancestors, with the hasChildRS edge from its parent.
func (s *state) ensure(c, l int) error {
	i := c*len(s.locs) + l
	if s.done[i] {
		return nil
	}
	s.done[i] = true
	cn := s.a.CNodes[c]
	if cn.Parent >= 0 {
		if err := s.ensure(cn.Parent, l); err != nil {
			return err
		}
	}
	s.tb.path.Row()
	rs := s.rs(c, l)
	t := s.tb.path
	for _, po := range [][2]kb.Term{
		{kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionSummary)},
		{kb.IRI(ontology.OfCodeRegion), kb.IRI(s.regionIRI[cn.Callee])},
		{kb.IRI(ontology.InProcessingUnit), kb.IRI(s.nm.PUOf(s.locs[l]))},
		{kb.IRI(ontology.InExperiment), s.exp},
	} {
		if err := t.Emit(s.ctx, rs, po[0], po[1]); err != nil {
			return err
		}
	}
	if cn.Parent >= 0 {
		return t.Emit(s.ctx, s.rs(cn.Parent, l), kb.IRI(ontology.HasChildRS), rs)
	}
	return nil
}

// emitMetric writes a target's non-zero values, and for an inclusive
// additive metric its exclusive value (inclusive minus the children's
// inclusive values) as excl_<name>.
func (s *state) emitMetric(t *target, v *values, kind valueKind, inclusive bool) error {
	L := len(s.locs)
	exclName := "excl_" + t.name
	for c := range s.a.CNodes {
		if !v.has[c] {
			continue
		}
		for l := 0; l < L; l++ {
			if v.zero(c, l) {
				continue
			}
			if err := s.ensure(c, l); err != nil {
				return err
			}
			if err := s.value(t.name, c, l, v, t.scale, nil); err != nil {
				return err
			}
			if inclusive && (kind == kindFloat || kind == kindInt) {
				if err := s.value(exclName, c, l, v, t.scale, s.a.CNodes[c].Children); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// value writes one metric instance; with children it writes the value
// minus the children's values.
func (s *state) value(name string, c, l int, v *values, scale float64, children []int) error {
	L := len(s.locs)
	var lex string
	if v.isInt() {
		n := v.ints[c*L+l]
		for _, k := range children {
			n -= v.ints[k*L+l]
		}
		lex = strconv.FormatInt(n, 10)
	} else {
		x := v.floats[c*L+l]
		for _, k := range children {
			x -= v.floats[k*L+l]
		}
		lex = strconv.FormatFloat(x*scale, 'g', -1, 64)
	}
	lit, warn, err := convert.MetricLiteral(convert.MetricDatatype(name), lex)
	if err != nil {
		return convert.Errorf(s.c.path, "", "%s value %q: %v", name, lex, err)
	}
	if warn != "" {
		s.em.Warn("", "%s", warn)
	}
	rs := s.rs(c, l)
	mi := kb.IRI(rs.Value + "/" + trace.Segment(name))
	t := s.tb.metric
	for _, q := range [][3]kb.Term{
		{rs, kb.IRI(ontology.HasMetric), mi},
		{mi, kb.IRI(ontology.RDFType), kb.IRI(ontology.PerformanceMetric)},
		{mi, kb.IRI(ontology.HasMetricName), kb.String(name)},
		{mi, kb.IRI(ontology.HasMetricValue), lit},
	} {
		if err := t.Emit(s.ctx, q[0], q[1], q[2]); err != nil {
			return err
		}
	}
	for _, q := range convert.ValueAnnotation(mi, lit, convert.MeasuredBy(s.a.Tool())) {
		if err := t.Emit(s.ctx, q[0], q[1], q[2]); err != nil {
			return err
		}
	}
	return nil
}

func paradigm(p string) trace.Paradigm {
	switch strings.ToLower(p) {
	case "mpi":
		return trace.ParadigmMPI
	case "openmp", "omp":
		return trace.ParadigmOpenMP
	case "measurement":
		return trace.ParadigmMeasurement
	}
	return trace.ParadigmUser
}

type tableSink struct{ t *convert.Table }

func (s tableSink) Add(ctx context.Context, q kb.TermQuad) error { return s.t.Emit(ctx, q.S, q.P, q.O) }
