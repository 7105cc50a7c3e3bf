package query_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
)

// BenchmarkGenerated runs the Sparqloscope-generated queries of
// bench/generated/queries/SET over a native store loaded beforehand, in
// process, so per-query CPU is measured without process start or HTTP:
//
//	perfkb load --store native:/tmp/s.db --graph http://perfkb.example/bench /tmp/benchgen/sample.nt
//	PERFKB_BENCH_NATIVE=/tmp/s.db PERFKB_BENCH_SET=sample PERFKB_BENCH_MATCH='^0(0[3-8]|1[2-9])' \
//	  go test ./query -run '^$' -bench Generated -benchtime 5x
//
// PERFKB_BENCH_MATCH is a regular expression over the file names (all when
// unset); PERFKB_BENCH_SET defaults to sample, and PERFKB_BENCH_SET=workload
// runs the five workload queries of bench/serve/queries. PERFKB_BENCH_EXPLAIN=1 logs
// each plan. PERFKB_BENCH_GRAPH names a graph sent as the protocol's
// default-graph-uri, as bench/generated/run.sh and wrk send it (plans and
// store lookups differ from the union default graph's);
// PERFKB_BENCH_WORKERS=N gives each operator N goroutines (1: serial, as
// a server under load runs it). Skipped unless
// PERFKB_BENCH_NATIVE names a store.
func BenchmarkGenerated(b *testing.B) {
	dir := os.Getenv("PERFKB_BENCH_NATIVE")
	if dir == "" {
		b.Skip("PERFKB_BENCH_NATIVE is not set: no store to run the generated queries on")
	}
	set := os.Getenv("PERFKB_BENCH_SET")
	if set == "" {
		set = "sample"
	}
	match := regexp.MustCompile(os.Getenv("PERFKB_BENCH_MATCH"))
	qdir := filepath.Join("..", "bench", "generated", "queries", set)
	if set == "workload" {
		qdir = filepath.Join("..", "bench", "serve", "queries")
	}
	files, err := filepath.Glob(filepath.Join(qdir, "*.rq"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no queries for set %q: %v", set, err)
	}
	var opts query.Options
	if g := os.Getenv("PERFKB_BENCH_GRAPH"); g != "" {
		opts.Protocol = &query.ProtocolDataset{Default: []string{g}}
	}
	if w, err := strconv.Atoi(os.Getenv("PERFKB_BENCH_WORKERS")); err == nil && w > 0 {
		opts.Workers = func() int { return w }
	}
	ctx := context.Background()
	st, err := native.Open(ctx, dir, native.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".rq")
		if !match.MatchString(name) {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		p, err := query.Prepare(string(text), query.Options{})
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		b.Run(name, func(b *testing.B) {
			rows := 0
			cpu := processCPU()
			defer func() { reportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				res, err := query.Exec(ctx, st, p, opts)
				if err != nil {
					b.Fatal(err)
				}
				all, err := res.Rows()
				if err != nil {
					b.Fatal(err)
				}
				rows = len(all)
				if i == 0 && os.Getenv("PERFKB_BENCH_EXPLAIN") != "" {
					b.Logf("%s plan:\n%s", name, res.Explain())
				}
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
