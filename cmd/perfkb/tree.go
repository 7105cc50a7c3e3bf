package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/ontology"
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
			opts := analysis.TreeOptions{PU: f.pu, Agg: f.agg, Metric: f.metric, Depth: f.depth}
			if err := opts.Validate(); err != nil {
				return usageError(fmt.Errorf("--%s: %w", err.(*analysis.TreeError).Param, err))
			}
			ctx := cmd.Context()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			tree, err := analysis.BuildCallTree(ctx, ds, args[0], opts)
			var terr *analysis.TreeError
			if errors.As(err, &terr) {
				if terr.Param == "pu" {
					return usageError(fmt.Errorf("--pu: %w", err))
				}
				return usageError(err)
			}
			if err != nil {
				return err
			}
			return writeCallTree(app.Stdout, tree)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.pu, "pu", "", "one processing unit (IRI or unique end, e.g. p0t0); default: all, aggregated")
	fl.StringVar(&f.metric, "metric", "", "one more metric column from the catalog (e.g. L2_TCM)")
	fl.StringVar(&f.agg, "agg", "mean", "how values of several PUs are combined: mean, min or max")
	fl.IntVar(&f.depth, "depth", 0, "print only this many levels (0: all)")
	return cmd
}

// formatSeconds prints a microsecond value as seconds with 4 significant
// digits (wtime is in microseconds in the metric catalog).
func formatSeconds(us float64) string {
	return strconv.FormatFloat(us/1e6, 'g', 4, 64) + " s"
}

// writeCallTree prints a call tree as an indented table, children in the
// tree's order (largest inclusive time first).
func writeCallTree(w io.Writer, t *analysis.CallTree) error {
	scope := fmt.Sprintf("%s of the processing units", t.Agg)
	if t.PU != "" {
		scope = "processing unit " + t.PU
	}
	fmt.Fprintf(w, "call tree of %s (%s)\n", t.Experiment, scope)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := "INCLUSIVE\tEXCLUSIVE\tCALLS\t"
	if t.Metric != "" {
		unit := ""
		if m, ok := ontology.LookupMetric(t.Metric); ok && m.Unit != "" && m.Unit != "counter" {
			unit = " (" + m.Unit + ")"
		}
		head += strings.ToUpper(t.Metric) + unit + "\t"
	}
	fmt.Fprintln(tw, head+"  REGION")
	cell := func(n *analysis.TreeNode, key string, format func(float64) string) string {
		v, ok := n.Value(key)
		if !ok {
			return "-"
		}
		return format(v)
	}
	var walk func(n *analysis.TreeNode, prefix string, last bool, depth int)
	walk = func(n *analysis.TreeNode, prefix string, last bool, depth int) {
		branch, next := "├─ ", "│  "
		if last {
			branch, next = "└─ ", "   "
		}
		if depth == 0 {
			branch, next = "", ""
		}
		line := cell(n, "wtime", formatSeconds) + "\t" + cell(n, "exclusive", formatSeconds) + "\t" + cell(n, "ncalls", formatNumber) + "\t"
		if t.Metric != "" {
			line += cell(n, t.Metric, formatNumber) + "\t"
		}
		fmt.Fprintf(tw, "%s  %s%s%s\n", line, prefix, branch, n.Name)
		for i, c := range n.Children {
			walk(c, prefix+next, i == len(n.Children)-1, depth+1)
		}
	}
	for _, r := range t.Roots {
		walk(r, "", true, 0)
	}
	return tw.Flush()
}
