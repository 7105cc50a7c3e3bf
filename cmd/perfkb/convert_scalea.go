package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/scalea"
)

func init() { registerConvert(newConvertScaleaCmd) }

func newConvertScaleaCmd(app *App) *cobra.Command {
	var opt scalea.Options
	var positions string
	var cf *convertFlags
	cmd := &cobra.Command{
		Use:   "scalea --dsn DSN --base IRI [flags]",
		Short: "Convert a SCALEA experiment repository (PostgreSQL, Appendix E schema)",
		Long: `scalea reads a SCALEA experiment data repository from PostgreSQL (the schema of
Truong's dissertation, Appendix E; see convert/scalea/testdata/schema.sql) in
one consistent snapshot and converts applications, versions, source files,
code regions, experiments, processing units, region summaries with their
timing, hardware and overhead metrics, the metrics catalog (PMC) and the
resource and benchmark tables to PERFONTO triples the shipped rules read.

--experiment (repeatable) converts only those experiments (with their
applications, versions and code regions) plus the catalog and resources;
--no-resources skips the resource tables. A dangling reference is an error
(exit 1) naming table, key and column; --lenient makes it a warning and drops
the row. An unknown --experiment id is a usage error (exit 2); an
unreachable server exit 3 (the DSN is shown without its password).`,
		Example: `  perfkb convert scalea --dsn 'postgres://perf@localhost/scalea?sslmode=disable' \
      --base http://perfkb.example/site/innsbruck/
  perfkb convert scalea --dsn "$DSN" --base http://perfkb.example/site/innsbruck/ --experiment 17 -o exp17.nt
  perfkb convert scalea --dsn "$DSN" --base http://perfkb.example/site/innsbruck/ --push http://127.0.0.1:7878`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opt.DSN == "" {
				return usageError(errors.New("--dsn is required: the repository's PostgreSQL DSN, e.g. postgres://user@host/scalea?sslmode=disable"))
			}
			switch positions {
			case "line-col":
			case "col-line":
				opt.ColumnLine = true
			default:
				return usageError(fmt.Errorf("--positions %q: want line-col or col-line", positions))
			}
			return runConversion(cmd.Context(), app, cf, "scalea", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				o := opt
				o.Base = base
				rep, err := scalea.New(o).Convert(ctx, sink)
				var unknown *scalea.UnknownExperimentError
				if errors.As(err, &unknown) {
					err = usageError(err)
				}
				return rep, err
			})
		},
	}
	cf = addConvertFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&opt.DSN, "dsn", "", "PostgreSQL DSN of the repository (required)")
	f.StringVar(&opt.Site, "site", "", "site name of the experiments (default: the last segment of --base)")
	f.Int64SliceVar(&opt.Experiments, "experiment", nil, "convert only this experiment (repeatable)")
	f.BoolVar(&opt.NoResources, "no-resources", false, "skip the resource and benchmark tables")
	f.BoolVar(&opt.Lenient, "lenient", false, "drop rows with dangling references, with a warning, instead of failing")
	f.StringVar(&positions, "positions", "line-col", "meaning of CodeRegion startPos_x/_y: line-col (x is the line) or col-line")
	f.IntVar(&opt.FetchSize, "fetch", scalea.DefaultFetchSize, "rows per cursor FETCH (small tables; the large ones are streamed with COPY)")
	return cmd
}
