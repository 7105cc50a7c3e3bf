package native

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
)

// BenchmarkPebbleSimpleSelect runs the server load test's "simple SELECT"
// (the metrics of one region summary, parsed and evaluated per request)
// over an on-disk Pebble store holding the load test's sample data
// (PERFKB_BENCH_TRIPLES, default 200000; the load test uses 1000000):
//
//	go test -run XXX -bench PebbleSimpleSelect -benchtime 20000x ./kb/native/
//
// Sub-benchmarks: "iterator" reads through Match, Resolve and exact-free
// Count only (the store hidden behind kb.Dataset, as before ScanQuads and
// TermOf existed); "scan" uses the store's fast paths; "parallel" runs
// "scan" on 16 goroutines per core as the load test's 32 clients do;
// "reopened" is "scan" after closing and reopening the store.
func BenchmarkPebbleSimpleSelect(b *testing.B) {
	triples := int64(200_000)
	if v := os.Getenv("PERFKB_BENCH_TRIPLES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("PERFKB_BENCH_TRIPLES=%q: want a positive integer", v)
		}
		triples = n
	}
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { s.Close() }()
	start := time.Now()
	pr, pw := io.Pipe()
	go func() {
		_, err := sample.Generate(ctx, pw, sample.Options{Sites: 3, Triples: triples, Seed: 11})
		pw.CloseWithError(err)
	}()
	if _, err := kb.Load(ctx, s, pr, kb.LoadOptions{Format: kb.FormatNQuads, SourceName: "sample"}); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d sample triples in %.1fs", triples, time.Since(start).Seconds())

	summaries := regionSummaries(b, s)
	queryOf := func(i int) string {
		return `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?name ?value WHERE { <` + summaries[i%len(summaries)] + `> perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?value }`
	}
	run := func(b *testing.B, ds kb.Dataset, i int) int {
		res, err := query.Run(ctx, ds, queryOf(i), query.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rows, err := res.Rows()
		res.Close()
		if err != nil {
			b.Fatal(err)
		}
		return len(rows)
	}
	serial := func(ds kb.Dataset) func(b *testing.B) {
		return func(b *testing.B) {
			rows := 0
			cpu := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rows += run(b, ds, i)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(rows)/float64(b.N), "rows")
		}
	}
	b.Run("iterator", serial(datasetOnly{s}))
	b.Run("scan", serial(s))
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(16)
		cpu := processCPU()
		b.ResetTimer()
		var worker atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			w := int(worker.Add(1))
			for i := 0; pb.Next(); i++ {
				run(b, s, w*7919+i)
			}
		})
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
	// Reopened: every term is on disk and read back (then cached) on
	// first use, as when a server opens an existing store.
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		b.Fatal(err)
	}
	b.Run("reopened", serial(s))
}

// datasetOnly hides every method of a store but kb.Dataset's, so the query
// engine takes its generic paths.
type datasetOnly struct{ kb.Dataset }

// regionSummaries returns up to 2000 region summaries of the sample data,
// as the load test picks them.
func regionSummaries(b *testing.B, ds kb.Dataset) []string {
	b.Helper()
	res, err := query.Run(context.Background(), ds, `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT DISTINCT ?rs WHERE { ?rs perfonto:hasMetric ?m } LIMIT 2000`, query.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rows, err := res.Rows()
	res.Close()
	if err != nil || len(rows) == 0 {
		b.Fatalf("no region summaries: %v", err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0].Value
	}
	return out
}
