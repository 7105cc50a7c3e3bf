package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/pprof"
)

func init() { registerConvert(newConvertPprofCmd) }

func newConvertPprofCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt pprof.Options
	cmd := &cobra.Command{
		Use:   "pprof PROFILE.pb.gz --base IRI",
		Short: "Convert a pprof profile (Go runtime/pprof, gperftools, perf via perf_to_profile) to call-path region summaries",
		Long: `pprof reads a profile in pprof's protobuf format (profile.proto, gzip-compressed
or not): CPU, heap, mutex, block or any other sample types. Every function is
a code region; every call path seen in a sample becomes a region summary,
linked to its caller's by hasChildRS, with each sample type's inclusive and
exclusive sum: CPU time as ctime/excl_ctime (µs), wall-clock time as
wtime/excl_wtime, other types under their pprof names (alloc_space,
excl_alloc_space, samples, …) defined under --base. A file that is not a
pprof protobuf fails with the byte offset where it stops following
profile.proto.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "pprof", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return pprof.New(args[0], base, opt).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "experiment IRI (default <base>exp/<file name>)")
	return cmd
}
