package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/cube"
)

func init() { registerConvert(newConvertCubeCmd) }

func newConvertCubeCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt cube.Options
	cmd := &cobra.Command{
		Use:   "cube FILE.cubex --base IRI",
		Short: "Convert a CUBE4 file (Score-P profile, Scalasca trace analysis report) to region summaries",
		Long: `cube reads a CUBE4 .cubex file (a Score-P profile.cubex or a Scalasca
scout.cubex): one region summary per call path (cnode) and location, with
hasChildRS along the call tree, ncalls (visits), wtime and excl_wtime (time,
µs), min_wtime/max_wtime, the other stored metrics under their CUBE names, and
Scalasca's Late Sender and Wait at N x N / Wait at Barrier times as ls_wait and
wnxn_wait, so the shipped wait-state rules run. The mapping table is in
go doc ./convert/cube.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "cube", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return cube.New(args[0], base, opt).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "experiment IRI (default <base>exp/<directory>/<file name without .cubex>)")
	return cmd
}
