package main

import "github.com/spf13/cobra"

func init() { registerConvert(newConvertOTF2Cmd) }

func newConvertOTF2Cmd(app *App) *cobra.Command {
	var cf *convertFlags
	var tf *traceConvFlags
	cmd := &cobra.Command{
		Use:   "otf2 ARCHIVE.otf2 --base IRI",
		Short: "Convert an OTF2 trace (Score-P) to region summaries, events and compensated summaries",
		Long: `otf2 reads an OTF2 archive through the reference library and writes one
region summary per call path and thread (dynamic region graph), with wtime,
ncalls, nsubs, exclusive time, duration statistics, message counts,
AvgMessageLength, and Late Sender / Wait at NxN waiting times.

It needs perfkb built with -tags otf2 (and libopen-trace-format2-dev);
otherwise it exits with status 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tf.run(cmd.Context(), app, cf, "otf2", args[0])
		},
	}
	cf = addConvertFlags(cmd)
	tf = addTraceConvFlags(cmd)
	return cmd
}
