package native

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
)

// Benchmarks of the in-memory store (MemStore) against the Pebble store
// on an in-memory file system and kbtest.Memory. Peak RSS is per process, so
// run one store per invocation to read it:
//
//	go test -run XXX -bench 'MemBulkLoad/mem/1000000' -benchtime 3x ./kb/native/
//	go test -run XXX -bench 'MemPatterns' ./kb/native/

// memStores are the in-memory Datasets compared.
var memStores = []struct {
	name string
	open func() kb.Dataset
}{
	{"mem", func() kb.Dataset { return OpenMemory() }},
	{"pebble-mem", func() kb.Dataset { return OpenPebbleMemory() }},
	{"kbtest.Memory", func() kb.Dataset { return kbtest.NewMemory() }},
}

// liveHeap returns the bytes of live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMemBulkLoad loads n PERFONTO-like triples in batches of 50k
// (intern, stage; one Commit) and reports triples/s, the CPU seconds of
// the process per load, the live heap the loaded store holds and the
// process's peak RSS.
func BenchmarkMemBulkLoad(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		var quads []kb.TermQuad
		for _, st := range memStores {
			if n > 1_000_000 && st.name != "mem" {
				continue // minutes per load, and several GiB for kbtest.Memory
			}
			b.Run(fmt.Sprintf("%s/%d", st.name, n), func(b *testing.B) {
				if quads == nil {
					quads = genTermQuads(0, n)
				}
				ctx := context.Background()
				var wall, cpu time.Duration
				var heap uint64
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					before := liveHeap()
					ds := st.open()
					b.StartTimer()
					start, cpuStart := time.Now(), processCPU()
					if err := loadBulk(ctx, ds, quads); err != nil {
						b.Fatal(err)
					}
					wall += time.Since(start)
					cpu += processCPU() - cpuStart
					b.StopTimer()
					heap = liveHeap() - before
					if c, err := ds.Count(ctx, kb.Pattern{}, true); err != nil || c != int64(n) {
						b.Fatalf("loaded %d quads (%v); want %d", c, err, n)
					}
					ds.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(n)*float64(b.N)/wall.Seconds(), "triples/s")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
				var ru syscall.Rusage
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
					b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
				}
			})
		}
	}
}

// BenchmarkMemPatterns runs the pattern benchmarks of BenchmarkPatterns
// (point lookup, predicate scan, three-pattern star join) over 1M triples
// in each in-memory store, plus the star join through ScanQuads, which
// the query evaluator uses when a store has it.
func BenchmarkMemPatterns(b *testing.B) {
	for _, st := range memStores {
		b.Run(st.name, func(b *testing.B) {
			f := newPatternFixture(b, st.open(), 1_000_000)
			defer f.ds.Close()
			b.Run("point", func(b *testing.B) {
				defer reportCPU(b)()
				for i := 0; i < b.N; i++ {
					if countMatches(b, f.ds, kb.Pattern(f.points[i%len(f.points)])) != 1 {
						b.Fatal("point lookup missed")
					}
				}
			})
			b.Run("predicate-scan", func(b *testing.B) {
				defer reportCPU(b)()
				for i := 0; i < b.N; i++ {
					if got := countMatches(b, f.ds, kb.Pattern{P: f.metric}); got != f.n/10 {
						b.Fatalf("predicate scan: %d matches; want %d", got, f.n/10)
					}
				}
			})
			b.Run("star-join", func(b *testing.B) {
				defer reportCPU(b)()
				for i := 0; i < b.N; i++ {
					if got := f.starJoin(b); got != 167 {
						b.Fatalf("star join: %d results; want 167", got)
					}
				}
			})
			scanner, ok := f.ds.(interface {
				ScanQuads(context.Context, kb.Pattern, func(kb.Quad) bool) error
			})
			if !ok {
				return
			}
			b.Run("star-join-scan", func(b *testing.B) {
				ctx := context.Background()
				defer reportCPU(b)()
				for i := 0; i < b.N; i++ {
					n := 0
					err := scanner.ScanQuads(ctx, kb.Pattern{P: f.inRun, O: f.run}, func(q kb.Quad) bool {
						hit := false
						scanner.ScanQuads(ctx, kb.Pattern{S: q.S, P: f.metric, O: f.time}, func(kb.Quad) bool { hit = true; return false })
						if !hit {
							return true
						}
						hit = false
						scanner.ScanQuads(ctx, kb.Pattern{S: q.S, P: f.typ, O: f.measurement}, func(kb.Quad) bool { hit = true; return false })
						if hit {
							n++
						}
						return true
					})
					if err != nil || n != 167 {
						b.Fatalf("star join: %d results (%v); want 167", n, err)
					}
				}
			})
		})
	}
}

// reportCPU starts measuring the process's CPU time; the function it
// returns reports it per operation. On a shared machine the wall time of
// a benchmark varies with the load of others, its CPU time much less.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMemApply measures small deltas (1000 new triples each) on a
// store holding 1M, which exercises the delta and its folds.
func BenchmarkMemApply(b *testing.B) {
	ctx := context.Background()
	m := OpenMemory()
	defer m.Close()
	if err := loadBulk(ctx, m, genTermQuads(0, 1_000_000)); err != nil {
		b.Fatal(err)
	}
	ids, err := kb.InternQuads(ctx, m, genTermQuads(200_000, 500_000))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := (i * 1000) % len(ids)
		if err := m.Apply(ctx, kb.Delta{Add: ids[j : j+1000]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "triples/s")
}

// BenchmarkMemStreamLoad loads n generated triples the way `perfkb load`
// and `perfkb query --data` do: generate a batch of 50k, intern it, stage
// it; one Commit. Only the store's work is timed, and no more than one
// batch of terms is alive at a time (BenchmarkMemBulkLoad keeps all n
// quads as terms, which the collector scans throughout). Reports
// triples/s, CPU seconds, the live heap of the loaded store and the
// process's peak RSS (run one case per invocation for that):
//
//	go test -run XXX -bench 'MemStreamLoad/mem/10000000' -benchtime 1x ./kb/native/
func BenchmarkMemStreamLoad(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		for _, st := range memStores {
			if n > 1_000_000 && st.name != "mem" {
				continue
			}
			b.Run(fmt.Sprintf("%s/%d", st.name, n), func(b *testing.B) {
				ctx := context.Background()
				var wall, cpu time.Duration
				var heap uint64
				for i := 0; i < b.N; i++ {
					before := liveHeap()
					ds := st.open()
					timed := func(fn func() error) {
						start, cpuStart := time.Now(), processCPU()
						if err := fn(); err != nil {
							b.Fatal(err)
						}
						wall += time.Since(start)
						cpu += processCPU() - cpuStart
					}
					var bw kb.BulkWriter
					timed(func() (err error) { bw, err = ds.BeginBulk(ctx); return err })
					const batch = 50_000
					for done := 0; done < n; done += batch {
						quads := genTermQuads(done/10, min(batch, n-done))
						timed(func() error {
							ids, err := kb.InternQuads(ctx, ds, quads)
							if err != nil {
								return err
							}
							return bw.Add(ctx, ids)
						})
					}
					timed(func() error { return bw.Commit(ctx) })
					heap = liveHeap() - before
					if c, err := ds.Count(ctx, kb.Pattern{}, true); err != nil || c != int64(n) {
						b.Fatalf("loaded %d quads (%v); want %d", c, err, n)
					}
					ds.Close()
				}
				b.ReportMetric(float64(n)*float64(b.N)/wall.Seconds(), "triples/s")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
				var ru syscall.Rusage
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
					b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
				}
			})
		}
	}
}
