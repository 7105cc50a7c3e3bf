package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/lib/pq" // "postgres" driver, to create scratch databases
	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/kb/store"
)

// benchCommands are the subcommands of "perfkb bench"; a file adds its own
// with registerBench from its init function.
var benchCommands []func(*App) *cobra.Command

func registerBench(newCommand func(*App) *cobra.Command) {
	benchCommands = append(benchCommands, newCommand)
}

func init() {
	register(newBenchCmd)
	registerBench(newBenchLoadCmd)
}

func newBenchCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure perfkb's speed on generated sample data",
		Long: `bench runs benchmarks on PERFONTO sample data generated in-process, so no
data files are needed. Each subcommand measures one thing.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(fmt.Errorf("unknown bench %q (see perfkb bench --help)", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError(errors.New("bench needs a subcommand, e.g. perfkb bench load (see perfkb bench --help)"))
		},
	}
	for _, newCommand := range benchCommands {
		cmd.AddCommand(newCommand(app))
	}
	return cmd
}

func newBenchLoadCmd(app *App) *cobra.Command {
	var (
		triples int64
		sites   int
		seed    uint64
		runs    int
		batch   int
		specs   []string
		profile string
	)
	cmd := &cobra.Command{
		Use:   "load [--triples N] [--backend SPEC]... [--runs R]",
		Short: "Measure bulk-load throughput (triples/s) on each store backend",
		Long: `bench load generates N sample triples (N-Quads, one graph per site) into a
temporary file, then loads it --runs times into a fresh, empty store of each
--backend and reports every run and the median throughput.

A backend is a --store spec. For native: and leveldb: without a path each
run uses a new temporary directory; with a path, each run uses a new
subdirectory of it. For a postgres:// DSN each run creates a scratch
database next to the one named (the user needs CREATEDB) and drops it
afterwards. memory: and memstore: are in-process.`,
		Example: `  perfkb bench load --triples 1000000
  perfkb bench load --triples 100000 --backend leveldb: --backend postgres://postgres@127.0.0.1/postgres`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if triples < 500 {
				return usageError(fmt.Errorf("--triples must be at least 500, got %d", triples))
			}
			if runs < 1 {
				return usageError(fmt.Errorf("--runs must be at least 1, got %d", runs))
			}
			if len(specs) == 0 {
				specs = []string{"memory:", "native:", "memstore:", "leveldb:"}
			}
			for _, s := range specs {
				if _, err := store.ParseSpec(benchSpecForCheck(s)); err != nil {
					return usageError(err)
				}
			}
			tmp, err := os.MkdirTemp("", "perfkb-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)

			data := filepath.Join(tmp, "sample.nq")
			began := time.Now()
			sum, err := generateSample(ctx, data, sample.Options{Sites: sites, Triples: triples, Seed: seed, Format: sample.NQuads})
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "generated %s triples for %d sites in %.1f s\n", humanCount(sum.Triples), len(sum.Sites), time.Since(began).Seconds())

			if profile != "" {
				f, err := os.Create(profile)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return err
				}
				defer func() {
					pprof.StopCPUProfile()
					f.Close()
				}()
			}
			type result struct {
				spec  string
				rates []float64
				cpu   []float64 // CPU seconds of each run
			}
			var results []result
			for _, spec := range specs {
				res := result{spec: spec}
				for run := 1; run <= runs; run++ {
					cpuBefore := processCPU()
					ls, err := benchLoadOnce(ctx, app, spec, tmp, run, data, batch)
					if err != nil {
						return fmt.Errorf("bench load on %s, run %d: %w", spec, run, err)
					}
					cpu := processCPU() - cpuBefore
					res.rates = append(res.rates, ls.TriplesPerSecond())
					res.cpu = append(res.cpu, cpu.Seconds())
					cpuNote := ""
					if cpu > 0 {
						cpuNote = fmt.Sprintf(", %.2f CPU-s (%s triples/CPU-s)", cpu.Seconds(), humanCount(int64(float64(ls.Triples)/cpu.Seconds())))
					}
					fmt.Fprintf(app.Stdout, "%s run %d/%d: %s triples in %.2f s (%s triples/s)%s\n",
						spec, run, runs, humanCount(ls.Triples), ls.Duration.Seconds(), humanCount(int64(ls.TriplesPerSecond())), cpuNote)
				}
				results = append(results, res)
			}
			fmt.Fprintln(app.Stdout)
			w := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(w, "backend\tmedian triples/s\tmedian CPU-s\truns\n")
			for _, r := range results {
				var each []string
				for _, x := range r.rates {
					each = append(each, humanCount(int64(x)))
				}
				fmt.Fprintf(w, "%s\t%s\t%.2f\t%s\n", r.spec, humanCount(int64(median(r.rates))), median(r.cpu), strings.Join(each, " "))
			}
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.Int64Var(&triples, "triples", 1000000, "number of sample triples to generate and load")
	f.IntVar(&sites, "sites", 3, "number of grid sites in the sample")
	f.Uint64Var(&seed, "seed", 1, "sample random seed")
	f.IntVar(&runs, "runs", 3, "loads per backend (the median is reported)")
	f.IntVar(&batch, "batch", 0, "statements interned and staged per batch (default: rdfio.Load's)")
	f.StringVar(&profile, "cpuprofile", "", "write a CPU profile of the loads (not the data generation) to this file")
	f.StringArrayVar(&specs, "backend", nil, "store spec to measure (repeatable; default memory:, native:, memstore:, leveldb:)")
	return cmd
}

// generateSample writes sample data to path.
func generateSample(ctx context.Context, path string, opts sample.Options) (sample.Summary, error) {
	f, err := os.Create(path)
	if err != nil {
		return sample.Summary{}, err
	}
	sum, err := sample.Generate(ctx, f, opts)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return sum, err
}

// benchSpecForCheck fills in a placeholder path so that ParseSpec can
// check a spec whose path bench chooses.
func benchSpecForCheck(spec string) string {
	switch strings.TrimSuffix(spec, ":") {
	case "native", "leveldb":
		return strings.TrimSuffix(spec, ":") + ":x"
	}
	return spec
}

// benchLoadOnce loads the data file into a fresh store of spec.
func benchLoadOnce(ctx context.Context, app *App, spec, tmp string, run int, data string, batch int) (rdfio.LoadSummary, error) {
	openSpec := spec
	var cleanup func()
	backend, path, _ := strings.Cut(spec, ":")
	switch {
	case backend == "native" || backend == "leveldb":
		dir := path
		if dir == "" {
			dir = tmp
		}
		dir = filepath.Join(dir, fmt.Sprintf("%s-run%d-%d", backend, run, time.Now().UnixNano()))
		openSpec = backend + ":" + dir
		cleanup = func() { os.RemoveAll(dir) }
	case strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://"):
		dsn, drop, err := scratchPostgres(ctx, spec, run)
		if err != nil {
			return rdfio.LoadSummary{}, err
		}
		openSpec, cleanup = dsn, drop
	}
	if cleanup != nil {
		defer cleanup()
	}
	ds, err := store.Open(ctx, openSpec, store.Options{})
	if err != nil {
		return rdfio.LoadSummary{}, err
	}
	defer ds.Close()
	opts := rdfio.LoadOptions{Format: rdfio.NQuads, BatchSize: batch}
	progressDone := loadProgress(app, fmt.Sprintf("%s run %d", spec, run), &opts)
	sum, err := rdfio.LoadFile(ctx, ds, data, opts)
	progressDone()
	return sum, err
}

// scratchPostgres creates an empty database on the server dsn names and
// returns its DSN and a function dropping it.
func scratchPostgres(ctx context.Context, dsn string, run int) (string, func(), error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("perfkb_bench_%d_%d", os.Getpid(), run)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return "", nil, err
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create scratch database %s (the user needs CREATEDB): %w", name, err)
	}
	drop := func() {
		_, _ = db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		db.Close()
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
