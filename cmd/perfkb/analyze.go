package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/analysis"
)

func init() { register(newAnalyzeCmd) }

// analyzeFlags are shared by perfkb analyze and its subcommands.
type analyzeFlags struct {
	experiments []string
	format      string
	softFile    string
	defines     []string
	noWrite     bool
	noModels    bool
	models      analysis.ModelOptions // set by perfkb model's flags
}

func (f *analyzeFlags) bind(cmd *cobra.Command) {
	fl := cmd.PersistentFlags()
	fl.StringArrayVar(&f.experiments, "experiment", nil, "show only this experiment IRI, with region and per-process rows (repeatable)")
	fl.StringVar(&f.format, "format", "table", "output format: table, json or csv")
	fl.StringVar(&f.softFile, "soft", "", "soft analysis configuration file (classes, scores, similarity, bottlenecks; default: the shipped analysis/soft.conf)")
	fl.StringArrayVar(&f.defines, "define", nil, "override a constant of the SCALABILITY rules, NAME=VALUE (repeatable)")
	fl.BoolVar(&f.noWrite, "no-write", false, "compute and print, but leave the analysis graph unchanged")
	fl.BoolVar(&f.noModels, "no-models", false, "skip the performance models (perfkb model)")
}

// run analyses the store and prints the tables of kind.
func (f *analyzeFlags) run(cmd *cobra.Command, app *App, kind string, diffs [][2]string) error {
	switch f.format {
	case "table", "json", "csv":
	default:
		return usageError(fmt.Errorf("--format %q: want table, json or csv", f.format))
	}
	opts := analysis.Options{Diffs: diffs, DryRun: f.noWrite, Defines: map[string]string{}, NoModels: f.noModels && kind != analysis.KindModels, Models: f.models}
	for _, d := range f.defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			return usageError(fmt.Errorf("--define %q: want NAME=VALUE", d))
		}
		opts.Defines[k] = v
	}
	if f.softFile != "" {
		text, err := os.ReadFile(f.softFile)
		if err != nil {
			return err
		}
		cfg, err := analysis.ParseSoftConfig(f.softFile, string(text))
		if err != nil {
			return &exitError{code: exitInvalidInput, err: err}
		}
		opts.Soft = cfg
	}
	ctx := cmd.Context()
	ds, err := app.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer ds.Close()
	progress := app.NewProgress("analysing", "experiments")
	opts.Progress = func(stage string, experiments int) {
		progress.Phase("analysis: "+stage, "experiments")
		progress.Set(int64(experiments))
	}
	res, err := analysis.Run(ctx, ds, opts)
	progress.Done()
	if err != nil {
		return err
	}
	for _, e := range f.experiments {
		if res.Experiment(e) == nil {
			return usageError(fmt.Errorf("--experiment %s: no such experiment in the store", e))
		}
	}
	tables, err := res.Tables(kind, f.experiments)
	if err != nil {
		return usageError(err)
	}
	if err := analysis.WriteTables(app.Stdout, f.format, tables); err != nil {
		return err
	}
	where := "written to <" + analysis.GraphIRI + ">"
	if f.noWrite {
		where = "not written (--no-write)"
	}
	models := 0
	if res.Models != nil {
		models = len(res.Models.Models)
	}
	fmt.Fprintf(app.Stderr, "analyze: %d experiments, %d scaling groups, %d performance models, %d findings, %d issues; %d quads %s in %.2fs\n",
		len(res.Experiments), len(res.Groups), models, len(res.Findings), len(res.Issues), res.Quads, where, res.Duration.Seconds())
	return nil
}

func newAnalyzeCmd(app *App) *cobra.Command {
	f := &analyzeFlags{}
	cmd := &cobra.Command{
		Use:   "analyze",
		Short: "Multi-experiment, overhead and soft analysis: speedup, efficiency, overheads, differences, fuzzy classes",
		Long: `analyze reads every experiment in the store and runs the analyses of the
dissertation's chapter 5:

  - experiment factors (version, processes p, threads, machine, problem size)
    and scaling groups (same version, problem size and machine) with their
    baseline (the run with one processing unit, else the smallest);
  - speedup and efficiency of each experiment and each call path (5.5.3.2);
  - overheads of every region summary, oall = T_p - T_s/n, oall_ident (the
    identified overhead metrics plus the loss of parallelism), oall_unid,
    aggregated per process and per experiment (5.2, 5.4);
  - soft analysis (5.6, Appendix F): performance classes with membership
    degrees, OWA scores and ranks, processing unit similarity groups,
    similarity to the baseline, fuzzy bottleneck search;
  - performance models (Extra-P's Performance Model Normal Form) of every
    metric of every call path over each experiment series (perfkb model);
  - the shipped SCALABILITY and MODELS rules, which flag regions and
    programs that stop scaling (perfonto:PoorScalability), call paths whose
    model grows faster than p (PoorScalingModel) and call paths predicted
    to dominate at a larger p (ExtrapolatedHotspot).

Results replace the graph urn:x-perfkb:analysis in one atomic write, so
SPARQL reads them (perfkb query). Experiments with bad input (no program
region, the only one of its version, a baseline with zero time,
non-numeric metrics) are listed as issues and skipped.

Without a subcommand it prints a summary, the scaling table, the findings
and the issues.`,
		Example: `  perfkb analyze
  perfkb analyze scaling --format csv
  perfkb analyze overhead --experiment http://perfkb.example/site/innsbruck/exp/scaling-v1-1000-p8
  perfkb analyze diff http://perfkb.example/site/innsbruck/exp/scaling-v1-1000-p4 http://perfkb.example/site/innsbruck/exp/scaling-v1-1000-p8
  perfkb analyze classes --soft my.soft --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd, app, analysis.KindSummary, nil) },
	}
	f.bind(cmd)
	for _, sub := range []struct{ name, short string }{
		{analysis.KindScaling, "Scaling groups, baselines, program and region speedup and efficiency"},
		{analysis.KindOverhead, "Overheads (oall, oall_ident, oall_unid, loss of parallelism) per region, process and experiment"},
		{analysis.KindClasses, "Soft analysis: performance classes, OWA ranking, PU similarity groups, fuzzy bottlenecks"},
		{analysis.KindModels, "Extra-P-style scaling models per series, call path and metric (same as perfkb model)"},
	} {
		kind := sub.name
		cmd.AddCommand(&cobra.Command{
			Use: kind, Short: sub.short, Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error { return f.run(c, app, kind, nil) },
		})
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "diff BASE TRIAL",
		Short: "Differences between two experiments per code region and metric (value, difference, ratio)",
		Long: `diff compares two experiments (IRIs, wherever they live in the store) per
code region and metric: the largest value over each experiment's processing
units, the difference trial - base and the ratio trial / base; regions in
only one of them are listed. Experiments of different versions or sites are
matched by their call paths of region names and types. The comparison is
also written to urn:x-perfkb:analysis (perfonto:ExperimentComparison).`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError(fmt.Errorf("diff needs two experiment IRIs, BASE and TRIAL"))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return f.run(c, app, analysis.KindDiff, [][2]string{{args[0], args[1]}})
		},
	})
	return cmd
}
