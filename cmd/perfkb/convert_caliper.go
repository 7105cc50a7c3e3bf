package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/caliper"
)

func init() { registerConvert(newConvertCaliperCmd) }

func newConvertCaliperCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt caliper.Options
	cmd := &cobra.Command{
		Use:   "caliper FILE.cali|FILE.json --base IRI",
		Short: "Convert a Caliper profile (.cali or cali-query json-split) to call-path region summaries",
		Long: `caliper reads a Caliper profile: a native .cali file or cali-query's json-split
output (what Hatchet reads). Every region path (function, loop, annotation …)
of every rank becomes a region summary, linked to its parent path's by
hasChildRS, with sum#time.duration as excl_wtime, the inclusive time as wtime
(summed over the subtree when the file has none), min/max time as
min_wtime/max_wtime (µs) and other values under their Caliper names. Caliper and
Adiak run metadata become experimentInfo (problem_size, cmdline and launchdate
also problemSize, commandLine, startTime). The mapping table is in
go doc ./convert/caliper.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(cmd *cobra.Command, args []string) error {
			switch opt.TimeUnit {
			case "", "s", "ms", "us", "ns":
				return nil
			}
			return usageError(fmt.Errorf("--time-unit %q: want s, ms, us or ns", opt.TimeUnit))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "caliper", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return caliper.New(args[0], base, opt).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "experiment IRI (default <base>exp/<file name>)")
	cmd.Flags().StringVar(&opt.TimeUnit, "time-unit", "", "unit of time.duration values without attribute.unit metadata: s, ms, us or ns (default: s for .cali files of Caliper 2 and later, else us)")
	return cmd
}
