package query_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
)

// Benchmarks run over `perfkb sample` data loaded into kbtest.NewMemory. The
// size is PERFKB_BENCH_TRIPLES (default 100000), e.g.
//
//	PERFKB_BENCH_TRIPLES=1000000 go test ./query -run '^$' -bench . -benchtime 10x
//
// PERFKB_BENCH_STORE picks the store: memory (kbtest.NewMemory, the default),
// native-memory (native.OpenMemory) or pebble-memory (the Pebble-backed
// native store on an in-memory file system).
// PERFKB_BENCH_EXPLAIN=1 logs each query's plan with actual row counts.
var (
	benchOnce sync.Once
	benchDS   kb.Dataset
	benchErr  error
)

func benchDataset(b *testing.B) kb.Dataset {
	b.Helper()
	benchOnce.Do(func() {
		triples := int64(100000)
		if s := os.Getenv("PERFKB_BENCH_TRIPLES"); s != "" {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				triples = n
			}
		}
		ctx := context.Background()
		var buf bytes.Buffer
		if _, benchErr = sample.Generate(ctx, &buf, sample.Options{Sites: 3, Triples: triples}); benchErr != nil {
			return
		}
		var ds kb.Dataset
		switch store := os.Getenv("PERFKB_BENCH_STORE"); store {
		case "", "memory":
			ds = kbtest.NewMemory()
		case "native-memory":
			ds = native.OpenMemory()
		case "pebble-memory":
			ds = native.OpenPebbleMemory()
		default:
			benchErr = fmt.Errorf("PERFKB_BENCH_STORE=%q: want memory, native-memory or pebble-memory", store)
			return
		}
		if _, benchErr = kb.Load(ctx, ds, &buf, kb.LoadOptions{Format: kb.FormatNQuads, SourceName: "sample.nq"}); benchErr != nil {
			return
		}
		benchDS = ds
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDS
}

const perfonto = "PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>\n"

// benchQueries are the workloads of issue 4.
var benchQueries = []struct{ name, text string }{
	{"Fig629StarJoin", perfonto + `SELECT ?regionsummary WHERE {
  ?regionsummary perfonto:inProcessingUnit ?processingunit .
  ?processingunit perfonto:inNode "gsr410" .
  ?regionsummary perfonto:hasMetric ?metric .
  ?metric perfonto:hasMetricName "wtime" .
  ?metric perfonto:hasMetricValue ?value .
  FILTER (?value >= 3E8) }`},
	{"Fig629RDQL", `SELECT ?regionsummary
WHERE (?regionsummary perfonto:inProcessingUnit ?processingunit)
      (?processingunit perfonto:inNode "gsr410")
      (?regionsummary perfonto:hasMetric ?metric)
      (?metric perfonto:hasMetricName "wtime")
      (?metric perfonto:hasMetricValue ?value)
AND (?value >= 3E8)
USING perfonto FOR <http://www.par.univie.ac.at/project/scalea/perfonto#>`},
	{"GroupByRegion", perfonto + `SELECT ?cr (COUNT(?rs) AS ?n) (AVG(?v) AS ?avg) (MAX(?v) AS ?max) WHERE {
  ?rs perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }
GROUP BY ?cr`},
	{"OptionalMessageLength", perfonto + `SELECT ?rs ?len WHERE {
  ?rs perfonto:ofCodeRegion ?cr .
  OPTIONAL { ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "AvgMessageLength" ; perfonto:hasMetricValue ?len } }`},
	{"NotExistsChildren", perfonto + `SELECT ?rs WHERE {
  ?rs perfonto:ofCodeRegion ?cr .
  FILTER NOT EXISTS { ?rs perfonto:hasChildRS ?child } }`},
	{"TransitiveCallTree", perfonto + `SELECT (COUNT(*) AS ?n) WHERE {
  ?root perfonto:inExperiment ?e .
  FILTER NOT EXISTS { ?parent perfonto:hasChildRS ?root }
  ?root perfonto:hasChildRS+ ?descendant }`},
	{"CacheRatioOrderBy", perfonto + `SELECT ?rs ?ratio WHERE {
  ?rs perfonto:hasMetric ?a , ?b .
  ?a perfonto:hasMetricName "L2_TCM" ; perfonto:hasMetricValue ?miss .
  ?b perfonto:hasMetricName "L2_TCA" ; perfonto:hasMetricValue ?access .
  BIND (?miss / ?access AS ?ratio)
  FILTER (?ratio >= 0.7) }
ORDER BY DESC(?ratio) LIMIT 20`},
}

// processCPU returns the user+system CPU time of the process so far. On a
// shared, overloaded machine CPU time per operation is steadier than wall
// time, so the benchmarks report both.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric measured since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

func BenchmarkQueries(b *testing.B) {
	ds := benchDataset(b)
	ctx := context.Background()
	for _, bq := range benchQueries {
		p, err := query.Prepare(bq.text, query.Options{})
		if err != nil {
			b.Fatalf("%s: %v", bq.name, err)
		}
		b.Run(bq.name, func(b *testing.B) {
			rows := 0
			cpu := processCPU()
			defer func() { reportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				res, err := query.Exec(ctx, ds, p, query.Options{})
				if err != nil {
					b.Fatal(err)
				}
				all, err := res.Rows()
				if err != nil {
					b.Fatal(err)
				}
				rows = len(all)
				if i == 0 && os.Getenv("PERFKB_BENCH_EXPLAIN") != "" {
					b.Logf("%s plan:\n%s", bq.name, res.Explain())
				}
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}

// BenchmarkJenaQueries runs the queries of bench/queries, the ones whose
// Apache Jena ARQ timings bench/README.md records, on the same data shape.
func BenchmarkJenaQueries(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "bench", "queries", "*.rq"))
	if err != nil || len(files) == 0 {
		b.Skip("no bench/queries/*.rq beside the query package")
	}
	ds := benchDataset(b)
	ctx := context.Background()
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".rq")
		p, err := query.Prepare(string(text), query.Options{})
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		b.Run(name, func(b *testing.B) {
			rows := 0
			cpu := processCPU()
			defer func() { reportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				res, err := query.Exec(ctx, ds, p, query.Options{})
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

// BenchmarkSimpleSelect is the "simple SELECT" of the server load test
// (server/backend): the metrics of one region summary, parsed and
// evaluated per request, so it measures the per-query fixed costs.
func BenchmarkSimpleSelect(b *testing.B) {
	ds := benchDataset(b)
	ctx := context.Background()
	res, err := query.Run(ctx, ds, perfonto+`SELECT ?rs WHERE { ?rs perfonto:hasMetric ?m } LIMIT 2000`, query.Options{})
	if err != nil {
		b.Fatal(err)
	}
	all, err := res.Rows()
	if err != nil {
		b.Fatal(err)
	}
	var summaries []string
	seen := map[string]bool{}
	for _, r := range all {
		if iri := r[0].Value; !seen[iri] {
			seen[iri] = true
			summaries = append(summaries, iri)
		}
	}
	b.ResetTimer()
	rows := 0
	cpu := processCPU()
	defer func() { reportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		q := perfonto + `SELECT ?name ?value WHERE { <` + summaries[i%len(summaries)] + `> perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?value }`
		res, err := query.Run(ctx, ds, q, query.Options{})
		if err != nil {
			b.Fatal(err)
		}
		all, err := res.Rows()
		if err != nil {
			b.Fatal(err)
		}
		rows += len(all)
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows")
}

// TestBenchmarkQueriesAgree checks on a small sample that the Fig. 6.29
// query gives the same rows in RDQL and SPARQL form and that every
// benchmark query runs.
func TestBenchmarkQueriesAgree(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	sum, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: 20000})
	if err != nil {
		t.Fatal(err)
	}
	ds := kbtest.NewMemory()
	if _, err := kb.Load(ctx, ds, &buf, kb.LoadOptions{Format: kb.FormatNQuads, SourceName: "sample.nq"}); err != nil {
		t.Fatal(err)
	}
	results := map[string]map[string]int{}
	for _, bq := range benchQueries {
		res, err := query.Run(ctx, ds, bq.text, query.Options{})
		if err != nil {
			t.Fatalf("%s: %v", bq.name, err)
		}
		rows, err := res.Rows()
		if err != nil {
			t.Fatalf("%s: %v", bq.name, err)
		}
		set := map[string]int{}
		for _, r := range rows {
			set[r[0].String()]++
		}
		results[bq.name] = set
	}
	sparql, rdql := results["Fig629StarJoin"], results["Fig629RDQL"]
	if len(sparql) != sum.Fig629Matches || len(rdql) != len(sparql) {
		t.Fatalf("Fig. 6.29: SPARQL %d rows, RDQL %d rows, sample planted %d", len(sparql), len(rdql), sum.Fig629Matches)
	}
	for k, n := range sparql {
		if rdql[k] != n {
			t.Errorf("Fig. 6.29: %s appears %d times in SPARQL and %d in RDQL", k, n, rdql[k])
		}
	}
}
