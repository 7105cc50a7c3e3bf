package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

func init() { register(newTreeCmd) }

// treeFlags are the options of perfkb tree.
type treeFlags struct {
	pu     string
	metric string
	agg    string
	depth  int
}

func newTreeCmd(app *App) *cobra.Command {
	var f treeFlags
	cmd := &cobra.Command{
		Use:   "tree EXPERIMENT",
		Short: "Print an experiment's call tree with inclusive and exclusive time",
		Long: `tree prints the dynamic call tree (perfonto:hasChildRS) of one experiment as
an indented tree, like Hatchet's gf.tree() or ParaProf's call-path view:
for each node the inclusive wall-clock time (wtime), the exclusive time
(inclusive minus the children's inclusive time), the number of calls
(ncalls) and, with --metric, one more metric of the catalog.

EXPERIMENT is the experiment's IRI or a unique end of it (e.g.
vienna/exp/3). Without --pu the trees of all processing units are merged by
call path and each value is aggregated over the PUs (--agg mean, min or
max); --pu PU (IRI or unique end, e.g. p0t0) shows one processing unit.`,
		Example: `  perfkb tree http://perfkb.example/site/vienna/exp/3
  perfkb tree vienna/exp/3 --pu p1t0 --metric L2_TCM
  perfkb tree vienna/exp/3 --agg max --depth 2`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(fmt.Errorf("tree needs exactly one EXPERIMENT (an experiment IRI or its end, e.g. vienna/exp/3)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch f.agg {
			case "mean", "min", "max":
			default:
				return usageError(fmt.Errorf("--agg must be mean, min or max, not %q", f.agg))
			}
			if f.metric != "" {
				if _, ok := ontology.LookupMetric(f.metric); !ok {
					return usageError(fmt.Errorf("--metric %q is not in the metric catalog (e.g. wtime, ncalls, L2_TCM)", f.metric))
				}
			}
			ctx := cmd.Context()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			exp, err := resolveExperiment(ctx, ds, args[0])
			if err != nil {
				return err
			}
			nodes, err := loadCallTree(ctx, ds, exp)
			if err != nil {
				return err
			}
			pu := ""
			if f.pu != "" {
				if pu, err = resolvePU(nodes, f.pu); err != nil {
					return err
				}
			}
			roots := mergeCallTree(nodes, pu)
			if len(roots) == 0 {
				return fmt.Errorf("experiment %s has no region summaries with a processing unit", exp)
			}
			return writeCallTree(app.Stdout, exp, pu, f, roots)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.pu, "pu", "", "one processing unit (IRI or unique end, e.g. p0t0); default: all, aggregated")
	fl.StringVar(&f.metric, "metric", "", "one more metric column from the catalog (e.g. L2_TCM)")
	fl.StringVar(&f.agg, "agg", "mean", "how values of several PUs are combined: mean, min or max")
	fl.IntVar(&f.depth, "depth", 0, "print only this many levels (0: all)")
	return cmd
}

const pfxPerfonto = "PREFIX perfonto: <" + ontology.Namespace + ">\n"

func queryRows(ctx context.Context, ds kb.Dataset, text string) ([]string, [][]kb.Term, error) {
	res, err := query.Run(ctx, ds, text, query.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	rows, err := res.Rows()
	return res.Vars, rows, err
}

// resolveExperiment finds the experiment an argument names: its IRI, or
// the one experiment whose IRI ends with it.
func resolveExperiment(ctx context.Context, ds kb.Dataset, arg string) (string, error) {
	_, rows, err := queryRows(ctx, ds, pfxPerfonto+`SELECT DISTINCT ?exp WHERE { ?rs perfonto:inExperiment ?exp ; perfonto:ofCodeRegion ?cr }`)
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
		return "", usageError(fmt.Errorf("no experiment %q with region summaries in the store (%d experiments have some; list them with perfkb query -e 'SELECT DISTINCT ?e { ?rs <%s> ?e }')", arg, len(rows), ontology.InExperiment))
	}
	sort.Strings(matches)
	return "", usageError(fmt.Errorf("experiment %q is ambiguous: %s", arg, strings.Join(matches, ", ")))
}

// rsNode is one region summary of the experiment.
type rsNode struct {
	iri, pu, region, name, parent string
	metrics                       map[string]float64
	children                      []*rsNode
}

func loadCallTree(ctx context.Context, ds kb.Dataset, exp string) (map[string]*rsNode, error) {
	_, rows, err := queryRows(ctx, ds, pfxPerfonto+`SELECT ?rs ?parent ?region ?name ?pu ?metric ?value WHERE {
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
			if v, err := strconv.ParseFloat(r[6].Value, 64); err == nil {
				n.metrics[r[5].Value] = v
			}
		}
	}
	return nodes, nil
}

func resolvePU(nodes map[string]*rsNode, arg string) (string, error) {
	set := map[string]bool{}
	for _, n := range nodes {
		set[n.pu] = true
	}
	var matches []string
	for pu := range set {
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
	var all []string
	for pu := range set {
		all = append(all, pu)
	}
	sort.Strings(all)
	return "", usageError(fmt.Errorf("--pu %q names %d of the experiment's processing units (%s)", arg, len(matches), strings.Join(all, ", ")))
}

// pathNode is a call path merged over processing units; samples holds one
// value set per PU (with "excl" for the exclusive wtime).
type pathNode struct {
	name, region string
	samples      []map[string]float64
	children     []*pathNode
}

// mergeCallTree builds each PU's tree and merges the trees by call path
// (the regions from the root), keeping one sample per PU.
func mergeCallTree(nodes map[string]*rsNode, pu string) []*pathNode {
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
		sample := map[string]float64{}
		for k, v := range n.metrics {
			sample[k] = v
		}
		childIncl := 0.0
		for _, c := range n.children {
			childIncl += c.metrics["wtime"]
		}
		if w, ok := n.metrics["wtime"]; ok {
			sample["excl"] = w - childIncl
		}
		m.samples = append(m.samples, sample)
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

func (p *pathNode) value(key, agg string) (float64, bool) {
	var vals []float64
	for _, s := range p.samples {
		if v, ok := s[key]; ok {
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

// formatSeconds prints a microsecond value as seconds with 4 significant
// digits (wtime is in microseconds in the metric catalog).
func formatSeconds(us float64) string {
	return strconv.FormatFloat(us/1e6, 'g', 4, 64) + " s"
}

func writeCallTree(w io.Writer, exp, pu string, f treeFlags, roots []*pathNode) error {
	scope := fmt.Sprintf("%s of the processing units", f.agg)
	if pu != "" {
		scope = "processing unit " + pu
	}
	fmt.Fprintf(w, "call tree of %s (%s)\n", exp, scope)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := "INCLUSIVE\tEXCLUSIVE\tCALLS\t"
	if f.metric != "" {
		unit := ""
		if m, ok := ontology.LookupMetric(f.metric); ok && m.Unit != "" && m.Unit != "counter" {
			unit = " (" + m.Unit + ")"
		}
		head += strings.ToUpper(f.metric) + unit + "\t"
	}
	fmt.Fprintln(tw, head+"  REGION")
	cell := func(p *pathNode, key string, format func(float64) string) string {
		v, ok := p.value(key, f.agg)
		if !ok {
			return "-"
		}
		return format(v)
	}
	var walk func(p *pathNode, prefix string, last bool, depth int)
	walk = func(p *pathNode, prefix string, last bool, depth int) {
		branch, next := "├─ ", "│  "
		if last {
			branch, next = "└─ ", "   "
		}
		if depth == 0 {
			branch, next = "", ""
		}
		line := cell(p, "wtime", formatSeconds) + "\t" + cell(p, "excl", formatSeconds) + "\t" + cell(p, "ncalls", formatNumber) + "\t"
		if f.metric != "" {
			line += cell(p, f.metric, formatNumber) + "\t"
		}
		fmt.Fprintf(tw, "%s  %s%s%s\n", line, prefix, branch, p.name)
		if f.depth > 0 && depth+1 >= f.depth {
			return
		}
		kids := append([]*pathNode(nil), p.children...)
		sort.SliceStable(kids, func(i, j int) bool {
			a, _ := kids[i].value("wtime", f.agg)
			b, _ := kids[j].value("wtime", f.agg)
			return a > b
		})
		for i, c := range kids {
			walk(c, prefix+next, i == len(kids)-1, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, "", true, 0)
	}
	return tw.Flush()
}
