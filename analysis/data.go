package analysis

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// GraphIRI is the named graph analysis results are written to; each run
// replaces it as a whole, atomically.
const GraphIRI = "urn:x-perfkb:analysis"

// Graph is GraphIRI as a term.
var Graph = kb.IRI(GraphIRI)

// Experiment is one experiment as read from the store, with its factors
// and its region summaries grouped by call path.
type Experiment struct {
	IRI         string
	Version     string // IRI of perfonto:ofVersion
	ProblemSize string // perfonto:problemSize, "" when absent
	Site        string // IRI of perfonto:atSite, "" when absent
	Machine     string // cluster IRI of the nodes it used, "" when unknown
	Processes   int    // distinct perfonto:processID among its processing units
	Threads     int    // largest number of threads of one process
	Units       int    // thread-level processing units: the machine size n

	PUs     []*PU              // thread-level units that ran region summaries, sorted
	Regions map[string]*Region // by call path key
	// Program is the call path key of the main program region (CR_P), ""
	// when the experiment has none.
	Program string
}

// PU is a thread-level processing unit.
type PU struct {
	IRI     string
	Process int
	Thread  int
	// ProcessIRI is the process-level unit (perfonto:hasParentPU), "" when
	// the data has none.
	ProcessIRI string
}

// Region is one node of an experiment's dynamic region graph: the region
// summaries of one call path on every processing unit that executed it.
type Region struct {
	Path    string // key: code region IRIs from the root, joined by ' '
	Depth   int
	CR      string // IRI of the code region at the end of the path
	Name    string // perfonto:regionName of the code region
	CrType  string // perfonto:hasCrType
	Parent  string // path of the parent region, "" for roots
	Summary []*Summary
}

// Summary is one region summary with its numeric metrics.
type Summary struct {
	IRI     string
	PU      *PU
	Metrics map[string]float64
	// raw holds the value IDs of metrics not resolved yet (ReadMetrics
	// resolves only the names an analysis needs).
	raw map[string]kb.ID
}

// Max returns the largest value of metric over the region's processing
// units, and false when no summary has it.
func (r *Region) Max(metric string) (float64, bool) {
	best, ok := 0.0, false
	for _, s := range r.Summary {
		if v, has := s.Metrics[metric]; has && (!ok || v > best) {
			best, ok = v, true
		}
	}
	return best, ok
}

// Issue is bad input found while reading or analysing: which experiment (or
// other subject), and why it was skipped.
type Issue struct {
	Experiment string `json:"experiment"`
	Subject    string `json:"subject,omitempty"`
	Reason     string `json:"reason"`
}

func (i Issue) String() string {
	if i.Subject != "" && i.Subject != i.Experiment {
		return i.Experiment + ": " + i.Subject + ": " + i.Reason
	}
	return i.Experiment + ": " + i.Reason
}

// Data is what analysis reads from the store.
type Data struct {
	Experiments []*Experiment // sorted by IRI
	Issues      []Issue
	byIRI       map[string]*Experiment
	ds          kb.Dataset
}

// resolve reads the metric values of e that ReadMetrics left unresolved;
// non-numeric ones are reported and skipped.
func (d *Data) resolve(ctx context.Context, e *Experiment) error {
	for _, reg := range e.Regions {
		for _, s := range reg.Summary {
			for name, id := range s.raw {
				t, err := d.ds.Resolve(ctx, id)
				if err != nil {
					return fmt.Errorf("analysis: read: %w", err)
				}
				v, perr := strconv.ParseFloat(strings.TrimSpace(t.Value), 64)
				if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					d.Issues = append(d.Issues, Issue{Experiment: e.IRI, Subject: s.IRI, Reason: fmt.Sprintf("metric %s has the non-numeric value %q; skipped", name, t.Value)})
					continue
				}
				s.Metrics[name] = v
			}
			s.raw = nil
		}
	}
	return nil
}

// Experiment returns the experiment with the IRI, or nil.
func (d *Data) Experiment(iri string) *Experiment { return d.byIRI[iri] }

// reader scans predicates of a Dataset, skipping the analysis graph.
type reader struct {
	ds    kb.Dataset
	skipG kb.ID
	terms map[kb.ID]kb.Term
}

func (r *reader) id(ctx context.Context, iri string) (kb.ID, error) {
	id, ok, err := r.ds.Lookup(ctx, kb.IRI(iri))
	if err != nil || !ok {
		return kb.Any, err
	}
	return id, nil
}

// scan calls fn for every (s, o) of predicate p outside the analysis graph.
func (r *reader) scan(ctx context.Context, p kb.ID, fn func(s, o kb.ID)) error {
	if p == kb.Any {
		return nil
	}
	it := r.ds.Match(ctx, kb.Pattern{P: p})
	defer it.Close()
	n := 0
	for it.Next() {
		q := it.Quad()
		if q.G == r.skipG && r.skipG != kb.Any {
			continue
		}
		fn(q.S, q.O)
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return it.Err()
}

func (r *reader) term(ctx context.Context, id kb.ID) (kb.Term, error) {
	if t, ok := r.terms[id]; ok {
		return t, nil
	}
	t, err := r.ds.Resolve(ctx, id)
	if err != nil {
		return t, err
	}
	r.terms[id] = t
	return t, nil
}

// Read loads the experiments, processing units, region summaries and their
// metrics from every graph of ds except the analysis graph. Bad input
// (non-numeric metric values, units without a process ID) is reported in
// Data.Issues and skipped.
func Read(ctx context.Context, ds kb.Dataset) (*Data, error) {
	return ReadMetrics(ctx, ds, nil)
}

// ReadMetrics is Read that resolves only the values of the metrics named in
// needed (nil: all); the others are resolved when an analysis asks for them
// (Compare does), which saves most of the reading time on large stores.
func ReadMetrics(ctx context.Context, ds kb.Dataset, needed map[string]bool) (*Data, error) {
	r := &reader{ds: ds, terms: map[kb.ID]kb.Term{}}
	var err error
	if r.skipG, _, err = ds.Lookup(ctx, Graph); err != nil {
		return nil, fmt.Errorf("analysis: read: %w", err)
	}
	preds := map[string]kb.ID{}
	for _, iri := range []string{ontology.RDFType, ontology.Experiment, ontology.OfVersion, ontology.ProblemSize, ontology.AtSite,
		ontology.UsesNode, ontology.InCluster, ontology.InExperiment, ontology.InProcessingUnit, ontology.ProcessID,
		ontology.ThreadID, ontology.HasParentPU, ontology.OfCodeRegion, ontology.HasChildRS, ontology.HasMetric,
		ontology.HasMetricName, ontology.HasMetricValue, ontology.HasCrType, ontology.RegionName} {
		if preds[iri], err = r.id(ctx, iri); err != nil {
			return nil, fmt.Errorf("analysis: read: %w", err)
		}
	}
	d := &Data{byIRI: map[string]*Experiment{}, ds: ds}
	exps := map[kb.ID]*Experiment{}
	getExp := func(id kb.ID) *Experiment {
		if e := exps[id]; e != nil {
			return e
		}
		e := &Experiment{Regions: map[string]*Region{}}
		exps[id] = e
		return e
	}
	fail := func(err error) (*Data, error) { return nil, fmt.Errorf("analysis: read: %w", err) }
	if preds[ontology.Experiment] != kb.Any {
		it := ds.Match(ctx, kb.Pattern{P: preds[ontology.RDFType], O: preds[ontology.Experiment]})
		for it.Next() {
			if q := it.Quad(); q.G != r.skipG || r.skipG == kb.Any {
				getExp(q.S)
			}
		}
		it.Close()
		if err := it.Err(); err != nil {
			return fail(err)
		}
	}
	version := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.OfVersion], func(s, o kb.ID) { getExp(s); version[s] = o }); err != nil {
		return fail(err)
	}
	size := map[kb.ID]kb.ID{}
	site := map[kb.ID]kb.ID{}
	nodes := map[kb.ID][]kb.ID{}
	cluster := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.ProblemSize], func(s, o kb.ID) { size[s] = o }); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.AtSite], func(s, o kb.ID) { site[s] = o }); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.UsesNode], func(s, o kb.ID) {
		if exps[s] != nil {
			nodes[s] = append(nodes[s], o)
		}
	}); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.InCluster], func(s, o kb.ID) { cluster[s] = o }); err != nil {
		return fail(err)
	}
	// Processing units and region summaries of the experiments.
	inExp := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.InExperiment], func(s, o kb.ID) {
		if exps[o] != nil {
			inExp[s] = o
		}
	}); err != nil {
		return fail(err)
	}
	rsPU := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.InProcessingUnit], func(s, o kb.ID) { rsPU[s] = o }); err != nil {
		return fail(err)
	}
	pid := map[kb.ID]kb.ID{}
	tid := map[kb.ID]kb.ID{}
	parentPU := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.ProcessID], func(s, o kb.ID) { pid[s] = o }); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.ThreadID], func(s, o kb.ID) { tid[s] = o }); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.HasParentPU], func(s, o kb.ID) { parentPU[s] = o }); err != nil {
		return fail(err)
	}
	rsCR := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.OfCodeRegion], func(s, o kb.ID) {
		if _, ok := rsPU[s]; ok {
			rsCR[s] = o
		}
	}); err != nil {
		return fail(err)
	}
	parentRS := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.HasChildRS], func(s, o kb.ID) { parentRS[o] = s }); err != nil {
		return fail(err)
	}
	crType := map[kb.ID]kb.ID{}
	crName := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.HasCrType], func(s, o kb.ID) { crType[s] = o }); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.RegionName], func(s, o kb.ID) { crName[s] = o }); err != nil {
		return fail(err)
	}
	rsMetrics := map[kb.ID][]kb.ID{}
	if err := r.scan(ctx, preds[ontology.HasMetric], func(s, o kb.ID) {
		if _, ok := rsCR[s]; ok {
			rsMetrics[s] = append(rsMetrics[s], o)
		}
	}); err != nil {
		return fail(err)
	}
	mName := map[kb.ID]kb.ID{}
	mValue := map[kb.ID]kb.ID{}
	if err := r.scan(ctx, preds[ontology.HasMetricName], func(s, o kb.ID) { mName[s] = o }); err != nil {
		return fail(err)
	}
	if err := r.scan(ctx, preds[ontology.HasMetricValue], func(s, o kb.ID) { mValue[s] = o }); err != nil {
		return fail(err)
	}

	str := func(id kb.ID) (string, error) {
		if id == kb.Any {
			return "", nil
		}
		t, err := r.term(ctx, id)
		return t.Value, err
	}
	// Experiments: IRIs and factors.
	for id, e := range exps {
		var err error
		if e.IRI, err = str(id); err != nil {
			return fail(err)
		}
		if e.Version, err = str(version[id]); err != nil {
			return fail(err)
		}
		if e.ProblemSize, err = str(size[id]); err != nil {
			return fail(err)
		}
		if e.Site, err = str(site[id]); err != nil {
			return fail(err)
		}
		clusters := map[kb.ID]bool{}
		for _, n := range nodes[id] {
			if c, ok := cluster[n]; ok {
				clusters[c] = true
			}
		}
		if len(clusters) == 1 {
			for c := range clusters {
				if e.Machine, err = str(c); err != nil {
					return fail(err)
				}
			}
		}
	}
	// Processing units (thread level: those that ran region summaries).
	pus := map[kb.ID]*PU{}
	puExp := map[kb.ID]kb.ID{}
	intOf := func(id kb.ID) (int, bool, error) {
		if id == kb.Any {
			return 0, false, nil
		}
		t, err := r.term(ctx, id)
		if err != nil {
			return 0, false, err
		}
		n, perr := strconv.Atoi(strings.TrimSpace(t.Value))
		return n, perr == nil, nil
	}
	for rs, pu := range rsPU {
		if _, ok := rsCR[rs]; !ok {
			continue
		}
		if _, done := pus[pu]; done {
			continue
		}
		e, ok := inExp[pu]
		if !ok {
			e, ok = inExp[rs]
		}
		if !ok {
			continue
		}
		p := &PU{}
		var err error
		if p.IRI, err = str(pu); err != nil {
			return fail(err)
		}
		var okP, okT bool
		if p.Process, okP, err = intOf(pid[pu]); err != nil {
			return fail(err)
		}
		if p.Thread, okT, err = intOf(tid[pu]); err != nil {
			return fail(err)
		}
		if !okP {
			d.Issues = append(d.Issues, Issue{Experiment: exps[e].IRI, Subject: p.IRI, Reason: "processing unit has no numeric perfonto:processID; counted as process 0"})
		}
		if !okT {
			p.Thread = 0
		}
		if pp, ok := parentPU[pu]; ok {
			if p.ProcessIRI, err = str(pp); err != nil {
				return fail(err)
			}
		}
		pus[pu] = p
		puExp[pu] = e
	}
	// Region summaries, their call paths and metrics.
	pathOf := map[kb.ID]string{}
	depthOf := map[kb.ID]int{}
	var path func(rs kb.ID, guard int) (string, int)
	path = func(rs kb.ID, guard int) (string, int) {
		if p, ok := pathOf[rs]; ok {
			return p, depthOf[rs]
		}
		own, err := str(rsCR[rs])
		if err != nil {
			own = strconv.FormatUint(uint64(rsCR[rs]), 10)
		}
		p, depth := own, 0
		if parent, ok := parentRS[rs]; ok && guard < 1000 {
			pp, pd := path(parent, guard+1)
			p, depth = pp+" "+own, pd+1
		}
		pathOf[rs], depthOf[rs] = p, depth
		return p, depth
	}
	names := map[kb.ID]string{}
	for rs, cr := range rsCR {
		pu := pus[rsPU[rs]]
		if pu == nil {
			continue
		}
		e := exps[puExp[rsPU[rs]]]
		key, depth := path(rs, 0)
		reg := e.Regions[key]
		if reg == nil {
			reg = &Region{Path: key, Depth: depth}
			var err error
			if reg.CR, err = str(cr); err != nil {
				return fail(err)
			}
			if reg.Name, err = str(crName[cr]); err != nil {
				return fail(err)
			}
			if reg.CrType, err = str(crType[cr]); err != nil {
				return fail(err)
			}
			if i := strings.LastIndexByte(key, ' '); i >= 0 {
				reg.Parent = key[:i]
			}
			e.Regions[key] = reg
			if reg.CrType == "CR_P" && (e.Program == "" || depth == 0) {
				e.Program = key
			}
		}
		s := &Summary{PU: pu, Metrics: map[string]float64{}}
		var err error
		if s.IRI, err = str(rs); err != nil {
			return fail(err)
		}
		for _, m := range rsMetrics[rs] {
			nameID, ok1 := mName[m]
			valID, ok2 := mValue[m]
			if !ok1 || !ok2 {
				continue
			}
			name, ok := names[nameID]
			if !ok {
				if name, err = str(nameID); err != nil {
					return fail(err)
				}
				names[nameID] = name
			}
			if needed != nil && !needed[name] {
				if s.raw == nil {
					s.raw = map[string]kb.ID{}
				}
				s.raw[name] = valID
				continue
			}
			vt, err := r.ds.Resolve(ctx, valID) // values are mostly distinct: not cached
			if err != nil {
				return fail(err)
			}
			v, perr := strconv.ParseFloat(strings.TrimSpace(vt.Value), 64)
			if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				d.Issues = append(d.Issues, Issue{Experiment: e.IRI, Subject: s.IRI, Reason: fmt.Sprintf("metric %s has the non-numeric value %q; skipped", name, vt.Value)})
				continue
			}
			s.Metrics[name] = v
		}
		reg.Summary = append(reg.Summary, s)
	}
	// Factors from the processing units; stable order.
	for _, e := range exps {
		seen := map[*PU]bool{}
		threads := map[int]map[int]bool{}
		for _, reg := range e.Regions {
			for _, s := range reg.Summary {
				if !seen[s.PU] {
					seen[s.PU] = true
					e.PUs = append(e.PUs, s.PU)
				}
				if threads[s.PU.Process] == nil {
					threads[s.PU.Process] = map[int]bool{}
				}
				threads[s.PU.Process][s.PU.Thread] = true
			}
			sort.Slice(reg.Summary, func(i, j int) bool { return puLess(reg.Summary[i].PU, reg.Summary[j].PU) })
		}
		sort.Slice(e.PUs, func(i, j int) bool { return puLess(e.PUs[i], e.PUs[j]) })
		e.Processes = len(threads)
		for _, ts := range threads {
			if len(ts) > e.Threads {
				e.Threads = len(ts)
			}
			e.Units += len(ts)
		}
		d.Experiments = append(d.Experiments, e)
		d.byIRI[e.IRI] = e
	}
	sort.Slice(d.Experiments, func(i, j int) bool { return d.Experiments[i].IRI < d.Experiments[j].IRI })
	sort.Slice(d.Issues, func(i, j int) bool { return d.Issues[i].String() < d.Issues[j].String() })
	return d, nil
}

func puLess(a, b *PU) bool {
	if a.Process != b.Process {
		return a.Process < b.Process
	}
	if a.Thread != b.Thread {
		return a.Thread < b.Thread
	}
	return a.IRI < b.IRI
}

// sortedRegions returns the regions of e in path order (parents first).
func (e *Experiment) sortedRegions() []*Region {
	out := make([]*Region, 0, len(e.Regions))
	for _, r := range e.Regions {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Depth != out[j].Depth {
			return out[i].Depth < out[j].Depth
		}
		return out[i].Path < out[j].Path
	})
	return out
}
