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
	"github.com/perfkb/perfkb/query"
)

// TreeOptions select the call tree of an experiment. They are the
// parameters of perfkb tree and of GET /analysis/tree.
type TreeOptions struct {
	// PU, when set, is one processing unit (its IRI or a unique end of it,
	// e.g. "p0t0"); empty merges the trees of all units by call path.
	PU string
	// Agg combines the values of several units: "mean" (the default),
	// "min" or "max".
	Agg string
	// Metric, when set, names one more metric of the catalog that a view
	// shows beside the times; it must be in ontology's metric catalog.
	Metric string
	// Depth, when positive, keeps only that many levels of the tree.
	Depth int
}

// Validate checks the options that need no store: Agg and Metric.
func (o TreeOptions) Validate() error {
	switch o.Agg {
	case "", "mean", "min", "max":
	default:
		return &TreeError{Param: "agg", Msg: fmt.Sprintf("aggregate %q: want mean, min or max", o.Agg)}
	}
	if o.Metric != "" {
		if _, ok := ontology.LookupMetric(o.Metric); !ok {
			return &TreeError{Param: "metric", Msg: fmt.Sprintf("metric %q is not in the metric catalog (e.g. wtime, ncalls, L2_TCM)", o.Metric)}
		}
	}
	if o.Depth < 0 {
		return &TreeError{Param: "depth", Msg: fmt.Sprintf("depth %d: want 0 (all levels) or more", o.Depth)}
	}
	return nil
}

// TreeError is a call-tree request the store cannot answer as asked: an
// experiment or processing unit that names none or several, or a bad
// option. Param names the parameter at fault (experiment, pu, agg,
// metric, depth); NotFound marks a name that matches nothing.
type TreeError struct {
	Param    string
	Msg      string
	NotFound bool
}

func (e *TreeError) Error() string { return e.Msg }

// InvalidInput reports whether the request itself is at fault (the
// server answers 400; a name that matches nothing is a 404).
func (e *TreeError) InvalidInput() bool { return !e.NotFound }

// CallTree is the dynamic call tree (perfonto:hasChildRS) of one
// experiment, like Hatchet's gf.tree() or ParaProf's call-path view: one
// node per call path, holding the region summaries of that path on the
// selected processing units and their metrics combined with Agg.
type CallTree struct {
	Experiment string `json:"experiment"`
	// PU is the processing unit shown, "" when all are merged.
	PU     string `json:"pu,omitempty"`
	Agg    string `json:"agg"`
	Metric string `json:"metric,omitempty"`
	Depth  int    `json:"depth,omitempty"`
	// PUs and MetricNames are every processing unit and metric name of
	// the experiment's region summaries, sorted (what a view offers to
	// pick from).
	PUs         []string `json:"pus"`
	MetricNames []string `json:"metricNames"`
	// Summaries counts the region summaries in the tree, Nodes its call
	// paths.
	Summaries int         `json:"regionSummaries"`
	Nodes     int         `json:"nodes"`
	Roots     []*TreeNode `json:"roots"`
}

// TreeNode is one call path. Metrics holds every metric of its region
// summaries combined over the units that have it: "wtime" is the
// inclusive time and "ncalls" the number of calls. Exclusive is the
// combined exclusive wtime (each unit's inclusive wtime minus that of its
// children), absent when no unit has a wtime.
type TreeNode struct {
	Name   string `json:"name"`
	Region string `json:"region"`
	// Path is the code region IRIs from the root, joined by a space.
	Path string `json:"path"`
	// RegionSummaries are the IRIs of the summaries merged into the node.
	RegionSummaries []string           `json:"regionSummaries"`
	Metrics         map[string]float64 `json:"metrics"`
	Exclusive       *float64           `json:"exclusive,omitempty"`
	// Children are sorted by inclusive time, largest first.
	Children []*TreeNode `json:"children"`
}

// Value returns the node's combined value of metric, or of the exclusive
// time for "exclusive".
func (n *TreeNode) Value(metric string) (float64, bool) {
	if metric == "exclusive" {
		if n.Exclusive == nil {
			return 0, false
		}
		return *n.Exclusive, true
	}
	v, ok := n.Metrics[metric]
	return v, ok
}

// BuildCallTree reads the call tree of the experiment exp (its IRI or a
// unique end of it, e.g. "vienna/exp/3") from ds. Names that match no
// experiment or unit, or several, are *TreeError values.
func BuildCallTree(ctx context.Context, ds kb.Dataset, exp string, opts TreeOptions) (*CallTree, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Agg == "" {
		opts.Agg = "mean"
	}
	iri, err := resolveExperiment(ctx, ds, exp)
	if err != nil {
		return nil, err
	}
	nodes, err := loadSummaries(ctx, ds, iri)
	if err != nil {
		return nil, err
	}
	t := &CallTree{Experiment: iri, Agg: opts.Agg, Metric: opts.Metric, Depth: opts.Depth, PUs: []string{}, MetricNames: []string{}}
	pus, metrics := map[string]bool{}, map[string]bool{}
	for _, n := range nodes {
		pus[n.pu] = true
		for m := range n.metrics {
			metrics[m] = true
		}
	}
	t.PUs, t.MetricNames = sortedKeys(pus), sortedKeys(metrics)
	if opts.PU != "" {
		if t.PU, err = resolvePU(t.PUs, opts.PU); err != nil {
			return nil, err
		}
	}
	paths := mergeSummaries(nodes, t.PU)
	if len(paths) == 0 {
		return nil, &TreeError{Param: "experiment", Msg: fmt.Sprintf("experiment %s has no region summaries with a processing unit", iri), NotFound: true}
	}
	for _, p := range paths {
		t.Roots = append(t.Roots, t.node(p, opts.Agg, opts.Depth, 0, ""))
	}
	return t, nil
}

// node converts a merged call path into a TreeNode at the given level.
func (t *CallTree) node(p *pathNode, agg string, depth, level int, parent string) *TreeNode {
	n := &TreeNode{Name: p.name, Region: p.region, Path: strings.TrimPrefix(parent+" "+p.region, " "), Metrics: map[string]float64{}, Children: []*TreeNode{}}
	keys := map[string]bool{}
	for _, s := range p.samples {
		n.RegionSummaries = append(n.RegionSummaries, s.rs)
		for k := range s.values {
			keys[k] = true
		}
	}
	for k := range keys {
		v, _ := p.value(k, agg)
		if k == excl {
			n.Exclusive = &v
		} else {
			n.Metrics[k] = v
		}
	}
	t.Nodes++
	t.Summaries += len(p.samples)
	if depth > 0 && level+1 >= depth {
		return n
	}
	for _, c := range p.children {
		n.Children = append(n.Children, t.node(c, agg, depth, level+1, n.Path))
	}
	sort.SliceStable(n.Children, func(i, j int) bool {
		return n.Children[i].Metrics["wtime"] > n.Children[j].Metrics["wtime"]
	})
	return n
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

const pfxPerfonto = "PREFIX perfonto: <" + ontology.Namespace + ">\n"

func queryRows(ctx context.Context, ds kb.Dataset, text string) ([][]kb.Term, error) {
	res, err := query.Run(ctx, ds, text, query.Options{})
	if err != nil {
		return nil, fmt.Errorf("analysis: call tree: %w", err)
	}
	defer res.Close()
	rows, err := res.Rows()
	if err != nil {
		return nil, fmt.Errorf("analysis: call tree: %w", err)
	}
	return rows, nil
}

// resolveExperiment finds the experiment an argument names: its IRI, or
// the one experiment whose IRI ends with it.
func resolveExperiment(ctx context.Context, ds kb.Dataset, arg string) (string, error) {
	rows, err := queryRows(ctx, ds, pfxPerfonto+`SELECT DISTINCT ?exp WHERE { ?rs perfonto:inExperiment ?exp ; perfonto:ofCodeRegion ?cr }`)
	if err != nil {
		return "", err
	}
	arg = strings.TrimSuffix(strings.TrimPrefix(arg, "<"), ">")
	var matches []string
	for _, r := range rows {
		iri := r[0].Value
		if iri == arg {
			return iri, nil
		}
		if strings.HasSuffix(iri, "/"+strings.TrimPrefix(arg, "/")) {
			matches = append(matches, iri)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", &TreeError{Param: "experiment", NotFound: true, Msg: fmt.Sprintf("no experiment %q with region summaries in the store (%d experiments have some; list them with SELECT DISTINCT ?e { ?rs <%s> ?e })", arg, len(rows), ontology.InExperiment)}
	}
	sort.Strings(matches)
	return "", &TreeError{Param: "experiment", Msg: fmt.Sprintf("experiment %q is ambiguous: %s", arg, strings.Join(matches, ", "))}
}

// rsNode is one region summary of the experiment.
type rsNode struct {
	iri, pu, region, name, parent string
	metrics                       map[string]float64
	children                      []*rsNode
}

func loadSummaries(ctx context.Context, ds kb.Dataset, exp string) (map[string]*rsNode, error) {
	rows, err := queryRows(ctx, ds, pfxPerfonto+`SELECT ?rs ?parent ?region ?name ?pu ?metric ?value WHERE {
  ?rs perfonto:inExperiment <`+exp+`> ; perfonto:ofCodeRegion ?region ; perfonto:inProcessingUnit ?pu .
  OPTIONAL { ?region perfonto:regionName ?name }
  OPTIONAL { ?parent perfonto:hasChildRS ?rs }
  OPTIONAL { ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName ?metric ; perfonto:hasMetricValue ?value }
}`)
	if err != nil {
		return nil, err
	}
	nodes := map[string]*rsNode{}
	for _, r := range rows {
		n := nodes[r[0].Value]
		if n == nil {
			n = &rsNode{iri: r[0].Value, parent: r[1].Value, region: r[2].Value, name: r[3].Value, pu: r[4].Value, metrics: map[string]float64{}}
			if n.name == "" {
				n.name = r[2].Value
			}
			nodes[n.iri] = n
		}
		if !r[5].IsZero() {
			if v, err := strconv.ParseFloat(r[6].Value, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
				n.metrics[r[5].Value] = v
			}
		}
	}
	return nodes, nil
}

func resolvePU(pus []string, arg string) (string, error) {
	var matches []string
	for _, pu := range pus {
		if pu == arg {
			return pu, nil
		}
		if strings.HasSuffix(pu, arg) {
			matches = append(matches, pu)
		}
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	return "", &TreeError{Param: "pu", NotFound: len(matches) == 0, Msg: fmt.Sprintf("processing unit %q names %d of the experiment's processing units (%s)", arg, len(matches), strings.Join(pus, ", "))}
}

// excl is the sample key of the exclusive wtime.
const excl = "\x00exclusive"

// treeSample is one region summary's values in a merged call path.
type treeSample struct {
	rs     string
	values map[string]float64
}

// pathNode is a call path merged over processing units, with one sample
// per region summary.
type pathNode struct {
	name, region string
	samples      []treeSample
	children     []*pathNode
}

// mergeSummaries builds each PU's tree and merges the trees by call path
// (the regions from the root), keeping one sample per PU.
func mergeSummaries(nodes map[string]*rsNode, pu string) []*pathNode {
	var roots []*rsNode
	for _, n := range nodes {
		if pu != "" && n.pu != pu {
			continue
		}
		if p := nodes[n.parent]; p != nil && (pu == "" || p.pu == pu) {
			p.children = append(p.children, n)
		} else {
			roots = append(roots, n)
		}
	}
	roots = dropFlatEntries(roots, nodes, pu)
	sort.Slice(roots, func(i, j int) bool { return roots[i].iri < roots[j].iri })
	var merged []*pathNode
	var visit func(n *rsNode, siblings *[]*pathNode)
	visit = func(n *rsNode, siblings *[]*pathNode) {
		var m *pathNode
		for _, s := range *siblings {
			if s.region == n.region {
				m = s
			}
		}
		if m == nil {
			m = &pathNode{name: n.name, region: n.region}
			*siblings = append(*siblings, m)
		}
		values := map[string]float64{}
		for k, v := range n.metrics {
			values[k] = v
		}
		childIncl := 0.0
		for _, c := range n.children {
			childIncl += c.metrics["wtime"]
		}
		if w, ok := n.metrics["wtime"]; ok {
			values[excl] = w - childIncl
		}
		m.samples = append(m.samples, treeSample{rs: n.iri, values: values})
		sort.Slice(n.children, func(i, j int) bool { return n.children[i].iri < n.children[j].iri })
		for _, c := range n.children {
			visit(c, &m.children)
		}
	}
	for _, r := range roots {
		visit(r, &merged)
	}
	return merged
}

// dropFlatEntries leaves out of the roots the flat-profile entries of a
// profile that also has call paths: TAU writes each function once as a
// flat total and once per call path ("main => MPI_Send()"), and ParaProf's
// call tree shows only the paths. Such an entry is a root without children
// whose code region the same processing unit also reaches through a call
// path; it stays in the store (the per-function totals) but is not a node
// of the tree.
func dropFlatEntries(roots []*rsNode, nodes map[string]*rsNode, pu string) []*rsNode {
	type key struct{ pu, region string }
	reached := map[key]bool{}
	for _, n := range nodes {
		if pu != "" && n.pu != pu {
			continue
		}
		if p := nodes[n.parent]; p != nil && (pu == "" || p.pu == pu) {
			reached[key{n.pu, n.region}] = true
		}
	}
	kept := roots[:0]
	for _, r := range roots {
		if len(r.children) == 0 && reached[key{r.pu, r.region}] {
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

// value combines key over the samples that have it.
func (p *pathNode) value(key, agg string) (float64, bool) {
	var vals []float64
	for _, s := range p.samples {
		if v, ok := s.values[key]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return 0, false
	}
	out := vals[0]
	switch agg {
	case "min":
		for _, v := range vals {
			out = math.Min(out, v)
		}
	case "max":
		for _, v := range vals {
			out = math.Max(out, v)
		}
	default:
		sum := 0.0
		for _, v := range vals {
			sum += v
		}
		out = sum / float64(len(vals))
	}
	return out, true
}
