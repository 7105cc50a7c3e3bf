package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert/trace/compensate"
)

func init() { register(newCalibrateCmd) }

func newCalibrateCmd(app *App) *cobra.Command {
	var out, overhead, copyCost, fromTrace string
	var repeats int
	var maxSize int64
	cmd := &cobra.Command{
		Use:   "calibrate -o calib.json",
		Short: "Write the platform constants of overhead compensation (per-event overhead O, copy cost C(size))",
		Long: `calibrate writes the constants perfkb convert --compensate needs (Wolf et al.,
003 §3-4): the per-event measurement overhead O and the per-byte buffer copy
cost C(size), with the host, the date and how each was obtained.

  --overhead 2us     O given (units ns, us, ms, s)
  --from-trace T     O from a calibration trace of N back-to-back events of one
                     region: span / N per location (median over locations)
  --copy-cost 1ns    C given, per byte (the same for every size)
Without --overhead or --from-trace, O is measured as perfkb's own in-memory
event recording cost (a lower bound for a real tracing library). Without
--copy-cost, C is measured by timing copies of 1 B ... 16 MiB (powers of two,
median of --repeats copies each).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError(errors.New("-o FILE is required"))
			}
			if overhead != "" && fromTrace != "" {
				return usageError(errors.New("--overhead and --from-trace exclude each other"))
			}
			cal := compensate.Calibration{Host: compensate.Hostname(), Date: time.Now().UTC().Format(time.RFC3339)}
			var method []string
			switch {
			case overhead != "":
				d, err := time.ParseDuration(overhead)
				if err != nil || d < 0 {
					return usageError(fmt.Errorf("--overhead %q: want a duration such as 800ns or 2us", overhead))
				}
				cal.OverheadUs = float64(d.Nanoseconds()) / 1000
				method = append(method, "overhead: given")
			case fromTrace != "":
				src, err := openTrace(fromTrace)
				if err != nil {
					return err
				}
				if cal.OverheadUs, err = compensate.OverheadFromTrace(cmd.Context(), src); err != nil {
					return &exitError{code: exitInvalidInput, err: fmt.Errorf("%s: %w", fromTrace, err)}
				}
				method = append(method, "overhead: span/N of calibration trace "+fromTrace)
			default:
				cal.OverheadUs = compensate.MeasureOverhead(1_000_000, repeats)
				method = append(method, fmt.Sprintf("overhead: measured in-memory event recording (median of %d runs of 1e6 events)", repeats))
			}
			if copyCost != "" {
				d, err := time.ParseDuration(copyCost)
				if err != nil || d < 0 {
					return usageError(fmt.Errorf("--copy-cost %q: want a per-byte duration such as 1ns or 0.25ns", copyCost))
				}
				cal.Copy = []compensate.CopyPoint{{Bytes: 1, NsPerByte: float64(d.Nanoseconds())}}
				if d.Nanoseconds() == 0 && strings.TrimSpace(copyCost) != "0" {
					// time.ParseDuration truncates below 1ns; keep fractions.
					cal.Copy[0].NsPerByte = parseFractionalNs(copyCost)
				}
				method = append(method, "copy: given")
			} else {
				p := app.NewProgress("timing buffer copies", "sizes")
				pts, err := compensate.MeasureCopy(cmd.Context(), maxSize, repeats)
				p.Done()
				if err != nil {
					return err
				}
				cal.Copy = pts
				method = append(method, fmt.Sprintf("copy: measured 1 B..%d B, median of %d copies per size", maxSize, repeats))
			}
			cal.Method = strings.Join(method, "; ")
			if err := cal.Validate(); err != nil {
				return usageError(err)
			}
			b, err := json.MarshalIndent(cal, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(app.Stderr, "wrote %s: O = %.4g us per event, C(size) at %d sizes (%s)\n", out, cal.OverheadUs, len(cal.Copy), cal.Method)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", "", "calibration file to write (JSON)")
	f.StringVar(&overhead, "overhead", "", "per-event overhead O, e.g. 800ns or 2us (default: measured)")
	f.StringVar(&copyCost, "copy-cost", "", "per-byte copy cost C, e.g. 1ns (default: measured)")
	f.StringVar(&fromTrace, "from-trace", "", "derive O from a calibration trace of back-to-back events")
	f.IntVar(&repeats, "repeats", 15, "repeats per measurement (the median is kept)")
	f.Int64Var(&maxSize, "max-size", 16<<20, "largest copy size measured, bytes")
	return cmd
}

// parseFractionalNs parses "0.25ns" style per-byte costs below 1 ns.
func parseFractionalNs(s string) float64 {
	var v float64
	if _, err := fmt.Sscanf(strings.TrimSuffix(s, "ns"), "%g", &v); err == nil {
		return v
	}
	return 0
}
