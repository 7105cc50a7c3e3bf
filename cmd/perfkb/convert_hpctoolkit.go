package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/hpctoolkit"
)

func init() { registerConvert(newConvertHPCToolkitCmd) }

func newConvertHPCToolkitCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt hpctoolkit.Options
	cmd := &cobra.Command{
		Use:   "hpctoolkit DATABASE-DIR --base IRI",
		Short: "Convert an HPCToolkit database (meta.db and profile.db, or experiment.xml and metric-db files) to call-path region summaries",
		Long: `hpctoolkit reads an HPCToolkit database directory as hpcprof 2022.10 and later
write it (meta.db and profile.db, format version 4): one region summary per
calling context and thread profile, linked by hasChildRS along the context
tree, with each metric's inclusive (execution scope) value under its name and
its exclusive (function scope) value under excl_<name>; REALTIME and CPUTIME
become wtime and ctime (µs). Functions, loops, source lines and instructions
are code regions. A directory with experiment.xml and *.metric-db files instead
(hpcprof before 2020, the layout Hatchet reads) is converted the same way,
column "M (I)" as M and "M (E)" as excl_M. The mapping table is in go doc
./convert/hpctoolkit.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "hpctoolkit", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return hpctoolkit.New(args[0], base, opt).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "experiment IRI (default <base>exp/<database directory name>)")
	return cmd
}
