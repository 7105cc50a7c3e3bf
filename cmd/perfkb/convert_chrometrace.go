package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/chrometrace"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/convert/trace/compensate"
)

func init() { registerConvert(newConvertChromeTraceCmd) }

func newConvertChromeTraceCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var tf *traceConvFlags
	cmd := &cobra.Command{
		Use:   "chrome-trace FILE.json --base IRI",
		Short: "Convert a Chrome Trace Event / Perfetto JSON trace to region summaries, events and compensated summaries",
		Long: `chrome-trace reads Chrome Trace Event JSON (the {"traceEvents": [...]} object or
a bare array; gzip-compressed files too), as Chrome, Perfetto's JSON export,
PyTorch's profiler and PerfFlowAspect write it: complete (X) and begin/end
(B/E) events per pid/tid, named by process_name/thread_name metadata. Each
thread becomes a location, each slice a region execution; the trace is then
converted as otf2 and trace are: one region summary per call path and
thread. Other phases (instants, counters, flows, async) are counted in a
warning. Unmatched B/E events and malformed JSON fail with the line,
column, byte offset and event index.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := tf.options()
			if err != nil {
				return err
			}
			return runConversion(cmd.Context(), app, cf, "chrome-trace", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				return chrometrace.New(args[0], base, opts).Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	tf = addTraceConvFlags(cmd)
	return cmd
}

func newTraceExportCmd(app *App) *cobra.Command {
	var format, out string
	tf := &traceConvFlags{}
	cmd := &cobra.Command{
		Use:   "export --format chrome TRACE",
		Short: "Write a trace (or its overhead-compensated version) as Chrome Trace Event JSON for Perfetto",
		Long: `export writes TRACE for other tools. --format chrome writes Chrome Trace Event
JSON that Perfetto's UI (ui.perfetto.dev) and chrome://tracing open: one
process per rank, one thread per location, each region execution a
complete (X) event, messages as flow arrows, collective ends as instants.
With --compensate CALIB it writes the overhead-compensated trace instead
(see perfkb convert otf2 --compensate). The file appears only when the
export succeeds.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "chrome" {
				return usageError(fmt.Errorf("--format %q: want chrome", format))
			}
			opts, err := tf.options()
			if err != nil {
				return err
			}
			src, err := openTrace(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			d := *src.Defs()
			d.Offsets = nil // applied by the merge and by compensation
			events := trace.Merge(ctx, src)
			var rep compensate.Report
			if opts.Calibration != nil {
				model := compensate.NewModel(opts.Calibration, opts.Bound)
				model.Collective = opts.Collective
				events = compensate.Stream(ctx, src, model, &rep)
			}
			p := app.NewProgress("exporting", "events")
			counted := func(yield func(trace.Event, error) bool) {
				var n int64
				for e, err := range events {
					if n++; n&4095 == 0 {
						p.Set(n)
					}
					if !yield(e, err) {
						return
					}
				}
			}
			start := time.Now()
			var st chrometrace.WriteStats
			write := func(w io.Writer) error {
				var err error
				st, err = chrometrace.Write(ctx, w, &d, counted)
				return err
			}
			if out == "" || out == "-" {
				err = write(app.Stdout)
			} else {
				err = writeFileAtomic(out, write)
			}
			p.Done()
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stderr, "exported %d events of %d locations (%d slices, %d message flows, %d instants) in %s\n",
				st.Events, len(d.Locations), st.Slices, st.Flows, st.Instants, time.Since(start).Round(time.Millisecond))
			if st.Stray+st.Unclosed > 0 {
				fmt.Fprintf(app.Stderr, "perfkb: warning: %d leave events matched no enter (left out), %d regions never left (written as B events); see perfkb trace check\n", st.Stray, st.Unclosed)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "chrome", "output format: chrome (Trace Event JSON)")
	f.StringVarP(&out, "out", "o", "", "write to FILE instead of standard output")
	f.StringVar(&tf.calib, "compensate", "", "calibration file (perfkb calibrate): export the overhead-compensated trace")
	f.StringVar(&tf.bound, "bound", "lower", "compensation bound for unmeasurable communication: lower or upper")
	f.StringVar(&tf.collective, "collective", "latest", "n-to-n collective exits: latest (eq. 12) or per-process (eq. 13)")
	return cmd
}

// writeFileAtomic writes path through a temporary file in its directory,
// renamed over path only when write succeeds.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return usageError(fmt.Errorf("cannot write %s: %w", path, err))
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("%w (%s unchanged)", err, path)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
