package trace

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Sink receives statements; convert.Sink satisfies it. A zero G means the
// sink's target graph.
type Sink interface {
	Add(ctx context.Context, q kb.TermQuad) error
}

// EmitOptions say where and how the triples of a trace are written.
type EmitOptions struct {
	// Base is the IRI prefix of code regions ("<Base>region/<name>"); it
	// ends in / or #.
	Base string
	// Experiment is the experiment IRI; processing units, region summaries
	// and events are named below it.
	Experiment string
	// Extra statements about the experiment (e.g. compensation metadata),
	// as predicate → object.
	ExperimentProps []kb.Triple
	// ValueProps annotate every metric value statement of the summaries
	// (RDF 1.2, convert.ValueAnnotation), e.g. a compensated value's bound
	// and calibration.
	ValueProps []kb.Triple
}

// writer builds terms and counts statements.
type writer struct {
	ctx        context.Context
	sink       Sink
	n          int64
	valueProps []kb.Triple // annotations of each metric value (EmitOptions.ValueProps)
}

func (w *writer) add(s kb.Term, p string, o kb.Term) error {
	w.n++
	return w.sink.Add(w.ctx, kb.TermQuad{S: s, P: kb.IRI(p), O: o})
}

func dbl(f float64) kb.Term { return kb.Double(f) }

func lng(n int64) kb.Term { return kb.Long(n) }

func integer(n int64) kb.Term { return kb.Integer(n) }

// Segment escapes a source key as one IRI path segment, as
// convert.EscapeSegment does (distinct keys give distinct segments).
func Segment(s string) string { return convert.EscapeSegment(s) }

// Names gives the IRIs of one experiment's resources.
type Names struct {
	Base, Exp string
}

// Region returns the code region IRI of a region name.
func (n Names) Region(name string) string { return n.Base + "region/" + Segment(name) }

// PU returns the thread-level processing unit IRI of (process, thread).
func (n Names) PU(p, t int) string {
	return n.Exp + "/pu/p" + strconv.Itoa(p) + "t" + strconv.Itoa(t)
}

// PUOf returns the thread-level processing unit IRI of a location; a
// context (TAU's C in profile.N.C.T) above 0 is kept in the IRI.
func (n Names) PUOf(l Location) string {
	if l.Context > 0 {
		return n.Exp + "/pu/p" + strconv.Itoa(l.Process) + "c" + strconv.Itoa(l.Context) + "t" + strconv.Itoa(l.Thread)
	}
	return n.PU(l.Process, l.Thread)
}

// Process returns the process-level processing unit IRI.
func (n Names) Process(p int) string { return n.Exp + "/pu/p" + strconv.Itoa(p) }

// Node returns the node-level processing unit IRI.
func (n Names) Node(host string) string { return n.Exp + "/pu/" + Segment(host) }

// RS returns the region summary IRI of a DRG node from its region path.
func (n Names) RS(p, t int, path []int) string {
	var b strings.Builder
	b.WriteString(n.Exp + "/rs/p" + strconv.Itoa(p) + "t" + strconv.Itoa(t) + "/")
	for i, r := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(r))
	}
	return b.String()
}

// EmitDefs writes the experiment, its processing units (node, process and
// thread level, as convert/sample writes the DPG) and the code regions.
func EmitDefs(ctx context.Context, sink Sink, d *Defs, opts EmitOptions) (int64, error) {
	w := &writer{ctx: ctx, sink: sink}
	err := emitDefs(w, d, opts)
	return w.n, err
}

func emitDefs(w *writer, d *Defs, opts EmitOptions) error {
	nm := Names{opts.Base, opts.Experiment}
	exp := kb.IRI(opts.Experiment)
	typ := ontology.RDFType
	errs := []error{w.add(exp, typ, kb.IRI(ontology.Experiment))}
	for _, t := range opts.ExperimentProps {
		errs = append(errs, w.add(exp, t.P.Value, t.O))
	}
	procs := map[int]bool{}
	nodes := map[string]bool{}
	threads := 0
	for _, l := range d.Locations {
		host := l.Node
		if host == "" {
			host = "node " + strconv.Itoa(l.Process)
		}
		if !nodes[host] {
			nodes[host] = true
			nu := kb.IRI(nm.Node(host))
			errs = append(errs, w.add(nu, typ, kb.IRI(ontology.NodeUnit)), w.add(nu, ontology.InExperiment, exp),
				w.add(nu, ontology.InNode, kb.String(host)))
		}
		if !procs[l.Process] {
			procs[l.Process] = true
			pu := kb.IRI(nm.Process(l.Process))
			errs = append(errs, w.add(pu, typ, kb.IRI(ontology.ProcessUnit)), w.add(pu, ontology.InExperiment, exp),
				w.add(pu, ontology.InNode, kb.String(host)), w.add(pu, ontology.ProcessID, integer(int64(l.Process))),
				w.add(pu, ontology.HasParentPU, kb.IRI(nm.Node(host))))
		}
		threads = max(threads, l.Thread+1)
		tu := kb.IRI(nm.PUOf(l))
		errs = append(errs, w.add(tu, typ, kb.IRI(ontology.ThreadUnit)), w.add(tu, ontology.InExperiment, exp),
			w.add(tu, ontology.InNode, kb.String(host)), w.add(tu, ontology.ProcessID, integer(int64(l.Process))),
			w.add(tu, ontology.ThreadID, integer(int64(l.Thread))), w.add(tu, ontology.HasParentPU, kb.IRI(nm.Process(l.Process))))
	}
	errs = append(errs, w.add(exp, ontology.NumberOfProcesses, integer(int64(len(procs)))),
		w.add(exp, ontology.NumberOfThreads, integer(int64(threads))))
	seen := map[string]bool{}
	for _, r := range d.Regions {
		if seen[r.Name] {
			continue
		}
		seen[r.Name] = true
		errs = append(errs, EmitRegion(w.ctx, w.sink, nm.Region(r.Name), r, &w.n)...)
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// EmitRegion writes a code region: its C.1 classes (specific class and
// family, from ontology.LookupCodeRegionType, so rules that test the family
// fire without the ontology loaded), its hasCrType mnemonics and its name.
// n, when not nil, is increased by the statements written.
func EmitRegion(ctx context.Context, sink Sink, iri string, r Region, n *int64) []error {
	return EmitRegionTyped(ctx, sink, iri, r.Name, Mnemonics(r), n)
}

// EmitRegionTyped is EmitRegion with the name and mnemonics given.
func EmitRegionTyped(ctx context.Context, sink Sink, iri, name string, mnemonics []string, n *int64) []error {
	w := &writer{ctx: ctx, sink: sink}
	s := kb.IRI(iri)
	var errs []error
	types := map[string]bool{}
	for _, m := range mnemonics {
		ct, ok := ontology.LookupCodeRegionType(m)
		if ok {
			for _, c := range []string{ct.Class, ct.Family} {
				if c != "" && !types[c] {
					types[c] = true
					errs = append(errs, w.add(s, ontology.RDFType, kb.IRI(c)))
				}
			}
		}
		errs = append(errs, w.add(s, ontology.HasCrType, kb.String(m)))
	}
	if !types[ontology.CodeRegion] {
		errs = append(errs, w.add(s, ontology.RDFType, kb.IRI(ontology.CodeRegion)))
	}
	errs = append(errs, w.add(s, ontology.RegionName, kb.String(name)))
	if n != nil {
		*n += w.n
	}
	return errs
}

// metric writes one metric of a region summary in the catalog's datatype.
func (w *writer) metric(rs kb.Term, rsIRI, name string, v float64) error {
	info, ok := ontology.LookupMetric(name)
	if !ok {
		return fmt.Errorf("metric %q is not in the PERFONTO catalog", name)
	}
	m := kb.IRI(rsIRI + "/" + name)
	var val kb.Term
	if info.ValueDatatype == ontology.XSDLong {
		val = lng(int64(v))
	} else {
		val = dbl(v)
	}
	for _, err := range []error{
		w.add(rs, ontology.HasMetric, m),
		w.add(m, ontology.RDFType, kb.IRI(ontology.PerformanceMetric)),
		w.add(m, ontology.HasMetricName, kb.String(name)),
		w.add(m, ontology.HasMetricValue, val),
	} {
		if err != nil {
			return err
		}
	}
	for _, st := range convert.ValueAnnotation(m, val, w.valueProps) {
		w.n++
		if err := w.sink.Add(w.ctx, kb.TermQuad{S: st[0], P: st[1], O: st[2]}); err != nil {
			return err
		}
	}
	return nil
}

// IsP2P reports whether a region is an MPI point-to-point region (its
// mnemonics include CR_MPIP2P).
func IsP2P(r Region) bool {
	for _, m := range Mnemonics(r) {
		if m == "CR_MPIP2P" {
			return true
		}
	}
	return false
}

// EmitSummary writes the experiment, processing units, code regions and one
// RegionSummary per DRG node with its metrics (times in microseconds):
// ncalls, nsubs, wtime (inclusive), excl_wtime, min/max/mean/stddev_wtime,
// message counts and bytes, AvgMessageLength on point-to-point regions,
// ls_wait/ls_count and wnxn_wait/wnxn_count where there was waiting.
func EmitSummary(ctx context.Context, sink Sink, s *Summary, opts EmitOptions) (int64, error) {
	w := &writer{ctx: ctx, sink: sink, valueProps: opts.ValueProps}
	if err := emitDefs(w, s.Defs, opts); err != nil {
		return w.n, err
	}
	d := s.Defs
	nm := Names{opts.Base, opts.Experiment}
	exp := kb.IRI(opts.Experiment)
	us := d.Micros
	for _, n := range s.Nodes {
		loc := d.Locations[n.Loc]
		reg := d.Regions[n.Region]
		rsIRI := nm.RS(loc.Process, loc.Thread, n.Path())
		rs := kb.IRI(rsIRI)
		errs := []error{
			w.add(rs, ontology.RDFType, kb.IRI(ontology.RegionSummary)),
			w.add(rs, ontology.OfCodeRegion, kb.IRI(nm.Region(reg.Name))),
			w.add(rs, ontology.InProcessingUnit, kb.IRI(nm.PUOf(loc))),
			w.add(rs, ontology.InExperiment, exp),
		}
		if n.Parent != nil {
			errs = append(errs, w.add(kb.IRI(nm.RS(loc.Process, loc.Thread, n.Parent.Path())), ontology.HasChildRS, rs))
		}
		for _, err := range errs {
			if err != nil {
				return w.n, err
			}
		}
		type mv struct {
			name string
			v    float64
		}
		ms := []mv{{"ncalls", float64(n.Calls)}, {"nsubs", float64(n.Subs)}, {"wtime", us(n.Incl)}, {"excl_wtime", us(n.Excl)}}
		if n.Calls > 0 {
			ms = append(ms, mv{"min_wtime", us(n.Min)}, mv{"max_wtime", us(n.Max)}, mv{"mean_wtime", n.Mean() * us(1)}, mv{"stddev_wtime", n.StdDev() * us(1)})
		}
		if n.MsgsSent > 0 {
			ms = append(ms, mv{"nmsgs_sent", float64(n.MsgsSent)}, mv{"bytes_sent", float64(n.BytesSent)})
		}
		if n.MsgsRecv > 0 {
			ms = append(ms, mv{"nmsgs_recv", float64(n.MsgsRecv)}, mv{"bytes_recv", float64(n.BytesRecv)})
		}
		if IsP2P(reg) && n.MsgsSent+n.MsgsRecv > 0 {
			ms = append(ms, mv{"AvgMessageLength", float64(n.BytesSent+n.BytesRecv) / float64(n.MsgsSent+n.MsgsRecv)})
		}
		if n.LSCount > 0 || n.MsgsRecv > 0 {
			ms = append(ms, mv{"ls_wait", us(n.LSWait)}, mv{"ls_count", float64(n.LSCount)})
		}
		if n.NxNCount > 0 || isNxN(reg) {
			ms = append(ms, mv{"wnxn_wait", us(n.NxNWait)}, mv{"wnxn_count", float64(n.NxNCount)})
		}
		for _, m := range ms {
			if err := w.metric(rs, rsIRI, m.name, m.v); err != nil {
				return w.n, err
			}
		}
	}
	return w.n, nil
}

func isNxN(r Region) bool {
	for _, m := range Mnemonics(r) {
		if m == "CR_MPIBA" || m == "CR_MPICOL" {
			return true
		}
	}
	return false
}
