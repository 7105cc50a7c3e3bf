package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/chrometrace"
	"github.com/perfkb/perfkb/convert/otf2"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/convert/trace/compensate"
	"github.com/perfkb/perfkb/convert/trace/traceconv"
)

func init() {
	register(newTraceCmd)
	registerConvert(newConvertTextTraceCmd)
}

// openTrace opens an OTF2 archive (a .otf2 anchor file or a directory
// holding one; needs the otf2 build tag), a Chrome Trace Event JSON file
// (recognised by its first bytes) or a text trace.
func openTrace(path string) (trace.Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() || strings.HasSuffix(path, ".otf2") {
		src, err := otf2.Open(path)
		if errors.Is(err, otf2.ErrNotBuilt) {
			return nil, usageError(err)
		}
		if err != nil {
			return nil, convert.Errorf("", "", "%w", err) // the message names the file
		}
		return src, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if chrometrace.LooksLikeJSON(head[:n]) {
		m, _, err := chrometrace.ReadFile(path)
		return m, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	m, err := trace.ReadText(f, path)
	if err != nil {
		return nil, convert.Errorf(path, "", "%w", err)
	}
	return m, nil
}

func newTraceCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace merge|check|stat|list TRACE",
		Short: "SIMPLE-style trace evaluation: merge, check, statistics, event listing",
		Long: `trace evaluates an event trace as the SIMPLE tools did (Hofmann et al.):
  merge  writes all locations' events in one global time order (clock
         offsets applied), in the text trace format;
  check  reports consistency violations (CHECKTRACE): kind, location, event
         index, time and the related event; exit 1 when one would make region
         summaries wrong;
  stat   prints region and message statistics (TRCSTAT);
  list   prints one readable line per event (LIST).
  export writes the trace (or its compensated version) for another tool:
         --format chrome gives Chrome Trace Event JSON for Perfetto's UI.
TRACE is an OTF2 archive (anchor .otf2 file; perfkb built with -tags otf2),
a Chrome Trace Event JSON file or a text trace (see convert/trace/text.go).`,
	}
	cmd.AddCommand(newTraceMergeCmd(app), newTraceCheckCmd(app), newTraceStatCmd(app), newTraceListCmd(app), newTraceExportCmd(app))
	return cmd
}

func newTraceMergeCmd(app *App) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge TRACE",
		Short: "Merge the locations' event streams by global time (text format)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openTrace(args[0])
			if err != nil {
				return err
			}
			w := app.Stdout
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return usageError(err)
				}
				defer f.Close()
				w = f
			}
			d := *src.Defs()
			d.Offsets = nil // applied by the merge
			if err := trace.WriteTextDefs(w, &d); err != nil {
				return err
			}
			p := app.NewProgress("merging", "events")
			start := time.Now()
			var n int64
			bw := newLineWriter(w)
			for e, err := range trace.Merge(cmd.Context(), src) {
				if err != nil {
					p.Done()
					return err
				}
				bw.line(trace.FormatText(&e))
				if n++; n&4095 == 0 {
					p.Set(n)
				}
			}
			p.Done()
			if err := bw.flush(); err != nil {
				return err
			}
			fmt.Fprintf(app.Stderr, "merged %d events of %d locations in %s\n", n, len(d.Locations), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to FILE instead of standard output")
	return cmd
}

func newTraceCheckCmd(app *App) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "check TRACE",
		Short: "Report trace consistency violations (CHECKTRACE)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format))
			}
			src, err := openTrace(args[0])
			if err != nil {
				return err
			}
			vs, err := trace.Check(cmd.Context(), src)
			if err != nil {
				return err
			}
			if format == "json" {
				if vs == nil {
					vs = []trace.Violation{}
				}
				enc := json.NewEncoder(app.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(vs); err != nil {
					return err
				}
			} else {
				for _, v := range vs {
					sev := "warning"
					if v.Fatal {
						sev = "error"
					}
					fmt.Fprintf(app.Stdout, "%s: %s\n", sev, v)
				}
				fmt.Fprintf(app.Stderr, "%d violations\n", len(vs))
			}
			if trace.AnyFatal(vs) {
				return &exitError{code: exitInvalidInput, err: errors.New("the trace has violations that make region summaries wrong")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

func newTraceStatCmd(app *App) *cobra.Command {
	var byLoc bool
	cmd := &cobra.Command{
		Use:   "stat TRACE",
		Short: "Print region and message statistics (TRCSTAT); times in microseconds",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openTrace(args[0])
			if err != nil {
				return err
			}
			start := time.Now()
			s, err := trace.Summarize(cmd.Context(), src)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(app.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "region\tlocation\tcount\ttotal\tmean\tmin\tmax\tstddev\texclusive\tmsgs\tbytes\tls_wait\twnxn_wait\t")
			for _, r := range s.RegionStats(false) {
				writeStat(tw, r, "all")
			}
			if byLoc {
				for _, r := range s.RegionStats(true) {
					writeStat(tw, r, fmt.Sprint(r.Loc))
				}
			}
			tw.Flush()
			fmt.Fprintln(app.Stdout)
			tw = tabwriter.NewWriter(app.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "source\tdestination\tmessages\tbytes\t")
			for _, m := range s.MessageStats() {
				fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t\n", m.Src, m.Dst, m.Count, m.Bytes)
			}
			tw.Flush()
			fmt.Fprintf(app.Stderr, "%d events in %s\n", s.Events, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().BoolVar(&byLoc, "by-location", false, "also print each region × location")
	return cmd
}

func writeStat(w io.Writer, r trace.RegionStat, loc string) {
	fmt.Fprintf(w, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%.3f\t%.3f\t\n",
		r.Name, loc, r.Count, r.Total, r.Mean, r.Min, r.Max, r.StdDev, r.Excl, r.Msgs, r.Bytes, r.LSWait, r.NxNWait)
}

func newTraceListCmd(app *App) *cobra.Command {
	var loc int
	var from, to int64
	cmd := &cobra.Command{
		Use:   "list TRACE",
		Short: "Print one readable line per event (LIST), in global time order",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openTrace(args[0])
			if err != nil {
				return err
			}
			d := src.Defs()
			bw := newLineWriter(app.Stdout)
			for e, err := range trace.Merge(cmd.Context(), src) {
				if err != nil {
					return err
				}
				if loc >= 0 && e.Loc != loc || cmd.Flags().Changed("from") && int64(e.Time) < from || cmd.Flags().Changed("to") && int64(e.Time) > to {
					continue
				}
				bw.line(describe(d, &e))
			}
			return bw.flush()
		},
	}
	cmd.Flags().IntVar(&loc, "location", -1, "only this location ID")
	cmd.Flags().Int64Var(&from, "from", 0, "only events at or after this time (ticks)")
	cmd.Flags().Int64Var(&to, "to", 0, "only events at or before this time (ticks)")
	return cmd
}

// describe renders an event for people: time in µs, location, what happened.
func describe(d *trace.Defs, e *trace.Event) string {
	l := d.Locations[e.Loc]
	h := fmt.Sprintf("%14.3f us  %-12s #%-6d ", d.Micros(e.Time-d.Start), fmt.Sprintf("p%d t%d", l.Process, l.Thread), e.Seq)
	region := func(r int) string {
		if r >= 0 && r < len(d.Regions) {
			return d.Regions[r].Name
		}
		return fmt.Sprint("region ", r)
	}
	switch e.Kind {
	case trace.Enter:
		return h + "enter " + region(e.Region)
	case trace.Leave:
		return h + "leave " + region(e.Region)
	case trace.Send, trace.Isend:
		return h + fmt.Sprintf("%s to location %d tag %d, %d bytes", strings.ToLower(e.Kind.String()), e.Peer, e.Tag, e.Bytes)
	case trace.Recv, trace.Irecv:
		return h + fmt.Sprintf("%s from location %d tag %d, %d bytes", strings.ToLower(e.Kind.String()), e.Peer, e.Tag, e.Bytes)
	case trace.CollectiveEnd:
		return h + fmt.Sprintf("end of %s (root %d, communicator %d, sent %d, received %d bytes)", e.Op, e.Root, e.Comm, e.Bytes, e.Recvd)
	case trace.BufferFlush:
		return h + fmt.Sprintf("buffer flush until %.3f us", d.Micros(e.Stop-d.Start))
	}
	return h + strings.TrimPrefix(trace.FormatText(e), fmt.Sprintf("%d %d ", e.Loc, e.Time))
}

type lineWriter struct {
	w   io.Writer
	buf []byte
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: w, buf: make([]byte, 0, 64<<10)} }

func (l *lineWriter) line(s string) {
	l.buf = append(append(l.buf, s...), '\n')
	if len(l.buf) > 60<<10 {
		l.flush()
	}
}

func (l *lineWriter) flush() error {
	if l.err == nil && len(l.buf) > 0 {
		_, l.err = l.w.Write(l.buf)
	}
	l.buf = l.buf[:0]
	return l.err
}

// traceConvFlags are the flags of the trace converters (otf2, trace).
type traceConvFlags struct {
	experiment, calib, bound, collective string
	events, accept                       bool
}

func addTraceConvFlags(cmd *cobra.Command) *traceConvFlags {
	tf := &traceConvFlags{}
	f := cmd.Flags()
	f.StringVar(&tf.experiment, "experiment", "", "experiment IRI (default <base>exp/<file name>)")
	f.BoolVar(&tf.events, "events", false, "also write region instances, events and messages (large)")
	f.StringVar(&tf.calib, "compensate", "", "calibration file (perfkb calibrate): also write the overhead-compensated experiment")
	f.StringVar(&tf.bound, "bound", "lower", "compensation bound for unmeasurable communication: lower or upper")
	f.StringVar(&tf.collective, "collective", "latest", "n-to-n collective exits: latest (eq. 12) or per-process (eq. 13)")
	f.BoolVar(&tf.accept, "accept-violations", false, "convert despite violations that make summaries wrong")
	return tf
}

// options checks the flags and returns the conversion options.
func (tf *traceConvFlags) options() (traceconv.Options, error) {
	opts := traceconv.Options{Experiment: tf.experiment, Events: tf.events, AcceptViolations: tf.accept}
	if tf.calib != "" {
		cal, err := compensate.ReadCalibration(tf.calib)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return opts, usageError(err)
			}
			return opts, &exitError{code: exitInvalidInput, err: err}
		}
		opts.Calibration = cal
		if opts.Bound, err = compensate.ParseBound(tf.bound); err != nil {
			return opts, usageError(err)
		}
		switch tf.collective {
		case "latest":
		case "per-process":
			opts.Collective = compensate.CollPerProcess
		default:
			return opts, usageError(fmt.Errorf("--collective %q: want latest or per-process", tf.collective))
		}
	} else if cmdChanged := tf.bound != "lower"; cmdChanged {
		return opts, usageError(errors.New("--bound needs --compensate CALIB"))
	}
	return opts, nil
}

// run converts the trace at path with the shared convert flags.
func (tf *traceConvFlags) run(ctx context.Context, app *App, cf *convertFlags, kind, path string) error {
	opts, err := tf.options()
	if err != nil {
		return err
	}
	if _, err := cf.parseBase(); err != nil {
		return err
	}
	src, err := openTrace(path)
	if err != nil {
		return err
	}
	name := filepath.Base(path)
	return runConversion(ctx, app, cf, kind, func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
		return traceconv.New(src, kind, name, base, opts).Convert(ctx, sink)
	})
}

func newConvertTextTraceCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var tf *traceConvFlags
	cmd := &cobra.Command{
		Use:   "trace FILE.trace --base IRI",
		Short: "Convert a text-format trace (the common event model, see perfkb trace) to region summaries",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return tf.run(cmd.Context(), app, cf, "trace", args[0])
		},
	}
	cf = addConvertFlags(cmd)
	tf = addTraceConvFlags(cmd)
	return cmd
}
