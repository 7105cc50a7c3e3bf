package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert/sample"
)

func init() { register(newSampleCmd) }

func newSampleCmd(app *App) *cobra.Command {
	var (
		sites   int
		triples int64
		seed    uint64
		format  string
		site    string
		output  string
		scaling bool
	)
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Write realistic PERFONTO sample data for grid sites",
		Long: `sample writes deterministic, realistic PERFONTO performance data for a number
of grid sites: clusters, nodes and networks, applications with code regions
of many types, profiling experiments with region summary call trees and
timing, counter and overhead metrics, a traced experiment with events and
messages, and sensor measurements. Each site goes into its own named graph
(N-Quads); --format ntriples, or an output file ending in .nt (with -o or a
shell redirect), writes plain triples. The same flags always give
the same bytes. A one-line summary goes to stderr.`,
		Example: `  perfkb sample --sites 3 --triples 1000000 -o sample.nq
  perfkb sample --site vienna --format ntriples > vienna.nt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := sample.Options{Sites: sites, Triples: triples, Seed: seed, Site: site, Scaling: scaling}
			switch {
			case cmd.Flags().Changed("format"):
				f, err := sample.ParseFormat(format)
				if err != nil {
					return usageError(err)
				}
				opts.Format = f
			case strings.HasSuffix(output, ".nt"), output == "" && stdoutFileName(app) != "" && strings.HasSuffix(stdoutFileName(app), ".nt"):
				opts.Format = sample.NTriples
			default:
				opts.Format = sample.NQuads
			}
			if sites < 1 {
				return usageError(fmt.Errorf("--sites must be at least 1"))
			}
			if triples < 500 {
				return usageError(fmt.Errorf("--triples must be at least 500"))
			}
			if site != "" {
				known := sample.SiteNames(sites)
				found := false
				for _, n := range known {
					found = found || n == site
				}
				if !found {
					return usageError(fmt.Errorf("unknown --site %q (with --sites %d the sites are %s)", site, sites, strings.Join(known, ", ")))
				}
			}
			out := app.Stdout
			var file *os.File
			if output != "" && output != "-" {
				f, err := os.Create(output)
				if err != nil {
					return err
				}
				file = f
				out = f
			}
			began := time.Now()
			sum, err := sample.Generate(cmd.Context(), out, opts) // Generate buffers its output
			if file != nil {
				if cerr := file.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					_ = os.Remove(output)
				}
			}
			if err != nil {
				return err
			}
			secs := time.Since(began).Seconds()
			where := "stdout"
			if file != nil {
				where = filepath.Base(output)
			}
			rate := float64(sum.Triples) / maxSeconds(secs)
			fmt.Fprintf(app.Stderr, "sample: %s in %.2fs (%.0f triples/s) to %s\n", sum, secs, rate, where)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&sites, "sites", 3, "number of grid sites")
	f.Int64Var(&triples, "triples", 100000, "target number of triples (reached within about 10%)")
	f.Uint64Var(&seed, "seed", 1, "random seed; the same seed gives the same output")
	f.StringVar(&format, "format", "nquads", "output format: nquads (a named graph per site) or ntriples (default when the output file, -o or a shell redirect, ends in .nt)")
	f.StringVar(&site, "site", "", "write only this site (one of the --sites names, e.g. innsbruck, vienna, linz)")
	f.StringVarP(&output, "output", "o", "", "write to FILE instead of stdout")
	f.BoolVar(&scaling, "scaling", false, "add scaling series (application Stommel, p = 1..32, two sizes) to each site, for perfkb analyze")
	return cmd
}

func maxSeconds(s float64) float64 {
	if s <= 0 {
		return 1e-9
	}
	return s
}

// stdoutFileName returns the name of the regular file standard output is
// redirected to ("perfkb sample > s.nt"), or "" when it is not a file, so
// the format can follow the file's extension as it does for -o.
func stdoutFileName(app *App) string {
	f, ok := app.Stdout.(*os.File)
	if !ok {
		return ""
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		return ""
	}
	return name
}
