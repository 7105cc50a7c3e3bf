package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/otlp"
)

func init() { registerConvert(newConvertOTLPCmd) }

func newConvertOTLPCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt otlp.Options
	cmd := &cobra.Command{
		Use:   "otlp FILE --base IRI",
		Short: "Convert OpenTelemetry traces or metrics (OTLP JSON or protobuf) to region instances and measurements",
		Long: `otlp reads OpenTelemetry data in OTLP: JSON requests (one, or one per line as the
collector's file exporter writes them; each names its signal) or one protobuf
ExportTraceServiceRequest or ExportMetricsServiceRequest (--signal). Each span
becomes a region instance of the code region named by the span, in its
service's activity unit, with enter and exit events (µs since the Unix epoch),
its duration as wtime and its parent span's instance hasChildRI it; each
metric data point becomes a measurement of the service's activity unit. The
mapping table is in go doc ./convert/otlp; 'perfkb otlp-listen' receives the
same data live over OTLP/HTTP.`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(cmd *cobra.Command, args []string) error {
			switch opt.Signal {
			case "", "traces", "metrics":
				return nil
			}
			return usageError(fmt.Errorf("--signal %q: want traces or metrics", opt.Signal))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "otlp", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return otlp.New(args[0], base, opt).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Experiment, "experiment", "", "experiment IRI (default <base>exp/<file name>)")
	cmd.Flags().StringVar(&opt.Signal, "signal", "", "what a protobuf file holds: traces (default) or metrics")
	return cmd
}
