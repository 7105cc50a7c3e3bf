package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/tau"
)

func init() { registerConvert(newConvertTAUCmd) }

func newConvertTAUCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt tau.Options
	cmd := &cobra.Command{
		Use:   "tau RUNDIR --base IRI",
		Short: "Convert TAU profiles (profile.N.C.T files or MULTI__<metric>/ directories) to region summaries",
		Long: `tau reads a TAU run directory: profile.N.C.T files (one metric), or one
MULTI__<metric>/ directory per metric. It writes one region summary per
function or call path and thread, with ncalls, nsubs, wtime (inclusive µs),
excl_wtime, the hardware counters under their C.2 names (PAPI_ prefix
stripped), and AvgMessageLength from message-size user events on MPI
point-to-point regions, so the shipped big-message rule (Fig. 6.30) runs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "tau", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return tau.New(args[0], base, opt).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "experiment IRI (default <base>exp/<run directory name>)")
	return cmd
}
