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
//
// Reading is one scan per predicate at the ID level (a store's predicate
// index is its fastest access path), entity by entity: experiments and
// their factors, processing units, region summaries with their call paths,
// then metric values. Terms are decoded only for what is kept.
func ReadMetrics(ctx context.Context, ds kb.Dataset, needed map[string]bool) (*Data, error) {
	r := &reader{ds: ds, terms: map[kb.ID]kb.Term{}, preds: map[string]kb.ID{}, exps: map[kb.ID]*Experiment{}, names: newMetricNames()}
	d := &Data{byIRI: map[string]*Experiment{}, ds: ds}
	err := r.start(ctx)
	for _, step := range []func(context.Context, *Data) error{r.experiments, r.units, r.summaries} {
		if err != nil {
			break
		}
		err = step(ctx, d)
	}
	if err == nil {
		err = r.metrics(ctx, d, needed)
	}
	if err != nil {
		return nil, fmt.Errorf("analysis: read: %w", err)
	}
	for _, e := range r.exps {
		e.countUnits()
		d.Experiments = append(d.Experiments, e)
		d.byIRI[e.IRI] = e
	}
	sort.Slice(d.Experiments, func(i, j int) bool { return d.Experiments[i].IRI < d.Experiments[j].IRI })
	sort.Slice(d.Issues, func(i, j int) bool { return d.Issues[i].String() < d.Issues[j].String() })
	return d, nil
}

// reader scans predicates of a Dataset, skipping the analysis graph, and
// keeps the ID-level maps that link the entities until they are built.
type reader struct {
	ds    kb.Dataset
	skipG kb.ID
	terms map[kb.ID]kb.Term
	preds map[string]kb.ID

	exps map[kb.ID]*Experiment
	// Units and summaries: experiment of a unit or summary, unit and
	// code region of a summary, IDs of a unit, parent summary.
	inExp, rsPU, rsCR, pid, tid, parentPU, parentRS map[kb.ID]kb.ID
	crType, crName                                  map[kb.ID]kb.ID
	pus                                             map[kb.ID]*PU
	puExp                                           map[kb.ID]kb.ID
	sums                                            map[kb.ID]*Summary
	sumExp                                          map[kb.ID]*Experiment
	rsMetrics                                       map[kb.ID][]kb.ID
	pathOf                                          map[kb.ID]string
	depthOf                                         map[kb.ID]int
	// names numbers the metric names of every summary read.
	names *metricNames
}

// start looks up the predicates read; one absent from the store reads as
// kb.Any and its scan yields nothing.
func (r *reader) start(ctx context.Context) error {
	var err error
	if r.skipG, _, err = r.ds.Lookup(ctx, Graph); err != nil {
		return err
	}
	for _, iri := range []string{ontology.RDFType, ontology.Experiment, ontology.OfVersion, ontology.ProblemSize, ontology.AtSite,
		ontology.UsesNode, ontology.InCluster, ontology.InExperiment, ontology.InProcessingUnit, ontology.ProcessID,
		ontology.ThreadID, ontology.HasParentPU, ontology.OfCodeRegion, ontology.HasChildRS, ontology.HasMetric,
		ontology.HasMetricName, ontology.HasMetricValue, ontology.HasCrType, ontology.RegionName,
		ontology.HasNetwork, ontology.HasMPP2PPerf, ontology.MpiLibName} {
		if r.preds[iri], err = r.id(ctx, iri); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) exp(id kb.ID) *Experiment {
	if e := r.exps[id]; e != nil {
		return e
	}
	e := &Experiment{Regions: map[string]*Region{}}
	r.exps[id] = e
	return e
}

// experiments finds the experiments (typed perfonto:Experiment or with a
// version) and their factors: version, problem size, site, and the machine
// when all the nodes it used are in one cluster.
func (r *reader) experiments(ctx context.Context, d *Data) error {
	if r.preds[ontology.Experiment] != kb.Any {
		it := r.ds.Match(ctx, kb.Pattern{P: r.preds[ontology.RDFType], O: r.preds[ontology.Experiment]})
		for it.Next() {
			if q := it.Quad(); q.G != r.skipG || r.skipG == kb.Any {
				r.exp(q.S)
			}
		}
		it.Close()
		if err := it.Err(); err != nil {
			return err
		}
	}
	version, size, site, cluster := map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}
	nodes := map[kb.ID][]kb.ID{}
	// The communication library: cluster → network → point-to-point
	// performance → library name.
	networks, p2p, lib := map[kb.ID][]kb.ID{}, map[kb.ID][]kb.ID{}, map[kb.ID]kb.ID{}
	scans := []struct {
		pred string
		fn   func(s, o kb.ID)
	}{
		{ontology.HasNetwork, func(s, o kb.ID) { networks[s] = append(networks[s], o) }},
		{ontology.HasMPP2PPerf, func(s, o kb.ID) { p2p[s] = append(p2p[s], o) }},
		{ontology.MpiLibName, func(s, o kb.ID) { lib[s] = o }},
		{ontology.OfVersion, func(s, o kb.ID) { r.exp(s); version[s] = o }},
		{ontology.ProblemSize, func(s, o kb.ID) { size[s] = o }},
		{ontology.AtSite, func(s, o kb.ID) { site[s] = o }},
		{ontology.UsesNode, func(s, o kb.ID) {
			if r.exps[s] != nil {
				nodes[s] = append(nodes[s], o)
			}
		}},
		{ontology.InCluster, func(s, o kb.ID) { cluster[s] = o }},
	}
	for _, sc := range scans {
		if err := r.scan(ctx, r.preds[sc.pred], sc.fn); err != nil {
			return err
		}
	}
	for id, e := range r.exps {
		var err error
		if e.IRI, err = r.str(ctx, id); err != nil {
			return err
		}
		if e.Version, err = r.str(ctx, version[id]); err != nil {
			return err
		}
		if e.ProblemSize, err = r.str(ctx, size[id]); err != nil {
			return err
		}
		if e.Site, err = r.str(ctx, site[id]); err != nil {
			return err
		}
		clusters := map[kb.ID]bool{}
		for _, n := range nodes[id] {
			if c, ok := cluster[n]; ok {
				clusters[c] = true
			}
		}
		if len(clusters) == 1 {
			for c := range clusters {
				if e.Machine, err = r.str(ctx, c); err != nil {
					return err
				}
				libs := map[kb.ID]bool{}
				for _, n := range networks[c] {
					for _, p := range p2p[n] {
						if l, ok := lib[p]; ok {
							libs[l] = true
						}
					}
				}
				if len(libs) == 1 {
					for l := range libs {
						if e.CommLib, err = r.str(ctx, l); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// units builds the thread-level processing units: those that ran region
// summaries of a known experiment, with process and thread IDs.
func (r *reader) units(ctx context.Context, d *Data) error {
	r.inExp, r.rsPU, r.rsCR = map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}
	r.pid, r.tid, r.parentPU = map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}
	scans := []struct {
		pred string
		fn   func(s, o kb.ID)
	}{
		{ontology.InExperiment, func(s, o kb.ID) {
			if r.exps[o] != nil {
				r.inExp[s] = o
			}
		}},
		{ontology.InProcessingUnit, func(s, o kb.ID) { r.rsPU[s] = o }},
		{ontology.ProcessID, func(s, o kb.ID) { r.pid[s] = o }},
		{ontology.ThreadID, func(s, o kb.ID) { r.tid[s] = o }},
		{ontology.HasParentPU, func(s, o kb.ID) { r.parentPU[s] = o }},
		// Only region summaries (subjects with a unit) keep their region.
		{ontology.OfCodeRegion, func(s, o kb.ID) {
			if _, ok := r.rsPU[s]; ok {
				r.rsCR[s] = o
			}
		}},
	}
	for _, sc := range scans {
		if err := r.scan(ctx, r.preds[sc.pred], sc.fn); err != nil {
			return err
		}
	}
	r.pus, r.puExp = map[kb.ID]*PU{}, map[kb.ID]kb.ID{}
	for rs, pu := range r.rsPU {
		if _, ok := r.rsCR[rs]; !ok {
			continue
		}
		if _, done := r.pus[pu]; done {
			continue
		}
		e, ok := r.inExp[pu]
		if !ok {
			e, ok = r.inExp[rs]
		}
		if !ok {
			continue
		}
		p := &PU{}
		var err error
		if p.IRI, err = r.str(ctx, pu); err != nil {
			return err
		}
		var okP, okT bool
		if p.Process, okP, err = r.intOf(ctx, r.pid[pu]); err != nil {
			return err
		}
		if p.Thread, okT, err = r.intOf(ctx, r.tid[pu]); err != nil {
			return err
		}
		if !okP {
			d.Issues = append(d.Issues, Issue{Experiment: r.exps[e].IRI, Subject: p.IRI, Reason: "processing unit has no numeric perfonto:processID; counted as process 0"})
		}
		if !okT {
			p.Thread = 0
		}
		if pp, ok := r.parentPU[pu]; ok {
			if p.ProcessIRI, err = r.str(ctx, pp); err != nil {
				return err
			}
		}
		r.pus[pu] = p
		r.puExp[pu] = e
	}
	return nil
}

// summaries places each region summary of a known unit in its experiment's
// region (call path) and links the metric nodes it has.
func (r *reader) summaries(ctx context.Context, d *Data) error {
	r.parentRS, r.crType, r.crName = map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}
	r.rsMetrics = map[kb.ID][]kb.ID{}
	scans := []struct {
		pred string
		fn   func(s, o kb.ID)
	}{
		{ontology.HasChildRS, func(s, o kb.ID) { r.parentRS[o] = s }},
		{ontology.HasCrType, func(s, o kb.ID) { r.crType[s] = o }},
		{ontology.RegionName, func(s, o kb.ID) { r.crName[s] = o }},
		{ontology.HasMetric, func(s, o kb.ID) {
			if _, ok := r.rsCR[s]; ok {
				r.rsMetrics[s] = append(r.rsMetrics[s], o)
			}
		}},
	}
	for _, sc := range scans {
		if err := r.scan(ctx, r.preds[sc.pred], sc.fn); err != nil {
			return err
		}
	}
	r.pathOf, r.depthOf = map[kb.ID]string{}, map[kb.ID]int{}
	r.sums, r.sumExp = map[kb.ID]*Summary{}, map[kb.ID]*Experiment{}
	for rs, cr := range r.rsCR {
		pu := r.pus[r.rsPU[rs]]
		if pu == nil {
			continue
		}
		e := r.exps[r.puExp[r.rsPU[rs]]]
		key, depth := r.path(ctx, rs, 0)
		reg := e.Regions[key]
		if reg == nil {
			reg = &Region{Path: key, Depth: depth}
			var err error
			if reg.CR, err = r.str(ctx, cr); err != nil {
				return err
			}
			if reg.Name, err = r.str(ctx, r.crName[cr]); err != nil {
				return err
			}
			if reg.CrType, err = r.str(ctx, r.crType[cr]); err != nil {
				return err
			}
			if i := strings.LastIndexByte(key, ' '); i >= 0 {
				reg.Parent = key[:i]
			}
			e.Regions[key] = reg
			if reg.CrType == "CR_P" && (e.Program == "" || depth == 0) {
				e.Program = key
			}
		}
		s := &Summary{PU: pu, Metrics: Metrics{names: r.names, vals: make([]metricEntry, 0, len(r.rsMetrics[rs]))}}
		var err error
		if s.IRI, err = r.str(ctx, rs); err != nil {
			return err
		}
		reg.Summary = append(reg.Summary, s)
		r.sums[rs] = s
		r.sumExp[rs] = e
	}
	return nil
}

// path is the call path key of a region summary (code region IRIs from
// the root, joined by ' ') and its depth; guard stops a parent cycle.
func (r *reader) path(ctx context.Context, rs kb.ID, guard int) (string, int) {
	if p, ok := r.pathOf[rs]; ok {
		return p, r.depthOf[rs]
	}
	own, err := r.str(ctx, r.rsCR[rs])
	if err != nil {
		own = strconv.FormatUint(uint64(r.rsCR[rs]), 10)
	}
	p, depth := own, 0
	if parent, ok := r.parentRS[rs]; ok && guard < 1000 {
		pp, pd := r.path(ctx, parent, guard+1)
		p, depth = pp+" "+own, pd+1
	}
	r.pathOf[rs], r.depthOf[rs] = p, depth
	return p, depth
}

// metrics reads the name and value of each summary's metrics; values of
// metrics not in needed (nil: all are) stay unresolved for Data.resolve.
func (r *reader) metrics(ctx context.Context, d *Data, needed map[string]bool) error {
	mName, mValue := map[kb.ID]kb.ID{}, map[kb.ID]kb.ID{}
	if err := r.scan(ctx, r.preds[ontology.HasMetricName], func(s, o kb.ID) { mName[s] = o }); err != nil {
		return err
	}
	if err := r.scan(ctx, r.preds[ontology.HasMetricValue], func(s, o kb.ID) { mValue[s] = o }); err != nil {
		return err
	}
	names := map[kb.ID]string{}
	for rs, s := range r.sums {
		e := r.sumExp[rs]
		for _, m := range r.rsMetrics[rs] {
			nameID, ok1 := mName[m]
			valID, ok2 := mValue[m]
			if !ok1 || !ok2 {
				continue
			}
			name, ok := names[nameID]
			if !ok {
				var err error
				if name, err = r.str(ctx, nameID); err != nil {
					return err
				}
				names[nameID] = name
			}
			if needed != nil && !needed[name] {
				s.Metrics.setRaw(name, valID)
				continue
			}
			vt, err := r.ds.Resolve(ctx, valID) // values are mostly distinct: not cached
			if err != nil {
				return err
			}
			v, perr := strconv.ParseFloat(strings.TrimSpace(vt.Value), 64)
			if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				d.Issues = append(d.Issues, Issue{Experiment: e.IRI, Subject: s.IRI, Reason: fmt.Sprintf("metric %s has the non-numeric value %q; skipped", name, vt.Value)})
				continue
			}
			s.Metrics.Set(name, v)
		}
	}
	return nil
}

// countUnits derives the machine-size factors from the units that ran
// region summaries and sorts units and summaries into a stable order.
func (e *Experiment) countUnits() {
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

// str is the lexical value of a term, "" for kb.Any (absent).
func (r *reader) str(ctx context.Context, id kb.ID) (string, error) {
	if id == kb.Any {
		return "", nil
	}
	t, err := r.term(ctx, id)
	return t.Value, err
}

// intOf parses a term as an integer; false when absent or not one.
func (r *reader) intOf(ctx context.Context, id kb.ID) (int, bool, error) {
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
