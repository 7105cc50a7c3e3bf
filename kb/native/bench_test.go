package native

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyadapter"
	"github.com/perfkb/perfkb/kb/kbtest"
)

// Benchmarks. Bulk loads report triples/s (the whole load: interning the
// terms in batches, staging and committing); the pattern benchmarks run
// over a 1M-triple store. Compare the native store with kbtest.NewMemory:
//
//	go test -run XXX -bench . -benchtime 3x ./kb/native/

// loadBulk interns quads in batches and loads them with one bulk writer.
func loadBulk(ctx context.Context, ds kb.Dataset, quads []kb.TermQuad) error {
	const batch = 50_000
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		return err
	}
	for i := 0; i < len(quads); i += batch {
		ids, err := kb.InternQuads(ctx, ds, quads[i:min(i+batch, len(quads))])
		if err != nil {
			bw.Abort()
			return err
		}
		if err := bw.Add(ctx, ids); err != nil {
			bw.Abort()
			return err
		}
	}
	return bw.Commit(ctx)
}

func benchmarkBulk(b *testing.B, quads []kb.TermQuad, open func(b *testing.B) kb.Dataset) {
	ctx := context.Background()
	n := len(quads)
	b.ResetTimer()
	var total, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ds := open(b)
		b.StartTimer()
		start := time.Now()
		cpuStart := processCPU()
		if err := loadBulk(ctx, ds, quads); err != nil {
			b.Fatal(err)
		}
		if err := ds.Close(); err != nil { // includes flushing the dictionary
			b.Fatal(err)
		}
		total += time.Since(start)
		cpu += processCPU() - cpuStart
	}
	b.ReportMetric(float64(n)*float64(b.N)/total.Seconds(), "triples/s")
	// CPU seconds of the whole process: on a shared machine wall time
	// varies with other load, CPU time much less.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

func openDiskBench(b *testing.B) kb.Dataset {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkBulkLoad(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		quads := genTermQuads(0, n)
		b.Run(fmt.Sprintf("disk/%d", n), func(b *testing.B) { benchmarkBulk(b, quads, openDiskBench) })
		b.Run(fmt.Sprintf("memory/%d", n), func(b *testing.B) {
			benchmarkBulk(b, quads, func(*testing.B) kb.Dataset { return OpenMemory() })
		})
		b.Run(fmt.Sprintf("kbtest.Memory/%d", n), func(b *testing.B) {
			benchmarkBulk(b, quads, func(*testing.B) kb.Dataset { return kbtest.NewMemory() })
		})
	}
}

// BenchmarkApply measures small synced batches (1000 triples each).
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	s := openDiskBench(b)
	defer s.Close()
	ids, err := kb.InternQuads(ctx, s, genTermQuads(0, 200_000))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := (i * 1000) % len(ids)
		if err := s.Apply(ctx, kb.Delta{Add: ids[j : j+1000]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "triples/s")
}

// patternFixture is a loaded store and the IDs the pattern benchmarks use.
type patternFixture struct {
	ds                       kb.Dataset
	n                        int
	typ, measurement, metric kb.ID
	time, inRun, run         kb.ID
	points                   []kb.Quad
}

func newPatternFixture(b *testing.B, ds kb.Dataset, n int) *patternFixture {
	ctx := context.Background()
	quads := genTermQuads(0, n) // not kept: the collector would scan it in every benchmark
	if err := loadBulk(ctx, ds, quads); err != nil {
		b.Fatal(err)
	}
	const po = "http://perfkb.org/ontology#"
	ids, err := ds.Intern(ctx, []kb.Term{
		kb.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), kb.IRI(po + "Measurement"),
		kb.IRI(po + "metric"), kb.IRI(po + "TIME"), kb.IRI(po + "inRun"),
		kb.IRI("http://perfkb.org/data/experiment/0/run/7"), // 1000 measurements
	})
	if err != nil {
		b.Fatal(err)
	}
	f := &patternFixture{ds: ds, n: n, typ: ids[0], measurement: ids[1], metric: ids[2], time: ids[3], inRun: ids[4], run: ids[5]}
	for i := 0; i < 1000; i++ {
		j := (i * 997) % n
		q, err := kb.InternQuads(ctx, ds, quads[j:j+1])
		if err != nil {
			b.Fatal(err)
		}
		f.points = append(f.points, q[0])
	}
	return f
}

func countMatches(b *testing.B, ds kb.Dataset, p kb.Pattern) int {
	it := ds.Match(context.Background(), p)
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	it.Close()
	return n
}

// starJoin answers: measurements of run R whose metric is TIME and that are
// typed Measurement — three patterns sharing the subject, joined by probing
// the second and third for each match of the first (what an index
// nested-loop join in the query engine does).
func (f *patternFixture) starJoin(b *testing.B) int {
	ctx := context.Background()
	it := f.ds.Match(ctx, kb.Pattern{P: f.inRun, O: f.run})
	n := 0
	for it.Next() {
		s := it.Quad().S
		if countMatches(b, f.ds, kb.Pattern{S: s, P: f.metric, O: f.time}) == 0 {
			continue
		}
		if countMatches(b, f.ds, kb.Pattern{S: s, P: f.typ, O: f.measurement}) == 0 {
			continue
		}
		n++
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	it.Close()
	return n
}

// BenchmarkPatterns: point lookup (all four positions bound), predicate
// scan (P bound, n/10 matches) and a three-pattern star join (167 results)
// over n loaded triples, on the native store, kbtest.Memory and Cayley's
// leveldb through kb/cayleyadapter (smaller n: it loads at ~20k triples/s).
func BenchmarkPatterns(b *testing.B) {
	stores := []struct {
		name string
		n    int
		open func(b *testing.B) kb.Dataset
	}{
		{"disk/1M", 1_000_000, openDiskBench},
		{"memory/1M", 1_000_000, func(*testing.B) kb.Dataset { return OpenMemory() }},
		{"kbtest.Memory/1M", 1_000_000, func(*testing.B) kb.Dataset { return kbtest.NewMemory() }},
		{"disk/200k", 200_000, openDiskBench},
		{"leveldb/200k", 200_000, func(b *testing.B) kb.Dataset {
			ds, err := cayleyadapter.Open(context.Background(), cayleyadapter.LevelDB, filepath.Join(b.TempDir(), "ldb"), cayleyadapter.OpenOptions{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			return ds
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			f := newPatternFixture(b, st.open(b), st.n)
			defer f.ds.Close()
			b.Run("point", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if countMatches(b, f.ds, kb.Pattern(f.points[i%len(f.points)])) != 1 {
						b.Fatal("point lookup missed")
					}
				}
			})
			b.Run("predicate-scan", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if got := countMatches(b, f.ds, kb.Pattern{P: f.metric}); got != f.n/10 {
						b.Fatalf("predicate scan: %d matches; want %d", got, f.n/10)
					}
				}
			})
			b.Run("star-join", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if got := f.starJoin(b); got != 167 {
						b.Fatalf("star join: %d results; want 167", got)
					}
				}
			})
		})
	}
}

// BenchmarkStreamLoad loads n generated triples the way `perfkb load` does
// (generate a batch, intern it, stage it; one Commit), timing only the
// store's work, then reports the peak RSS of the process and how long the
// reopened store takes to open and answer its first pattern query. The 10M
// case takes minutes:
//
//	go test -run XXX -bench 'StreamLoad/disk/10000000' -benchtime 1x ./kb/native/
func BenchmarkStreamLoad(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("disk/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				streamLoad(b, n)
			}
		})
	}
}

func streamLoad(b *testing.B, n int) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	const batch = 50_000
	var wall, cpu time.Duration
	timed := func(fn func() error) {
		start, cpuStart := time.Now(), processCPU()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		cpu += processCPU() - cpuStart
	}
	var bw kb.BulkWriter
	timed(func() (err error) { bw, err = s.BeginBulk(ctx); return err })
	for done := 0; done < n; done += batch {
		quads := genTermQuads(done/10, min(batch, n-done))
		timed(func() error {
			ids, err := kb.InternQuads(ctx, s, quads)
			if err != nil {
				return err
			}
			return bw.Add(ctx, ids)
		})
	}
	timed(func() error { return bw.Commit(ctx) })
	timed(s.Close)
	b.ReportMetric(float64(n)/wall.Seconds(), "triples/s")
	b.ReportMetric(cpu.Seconds(), "cpu-s")
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
	}

	// Reopen and answer a first pattern query: measurements of one metric.
	start := time.Now()
	s, err = Open(ctx, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const po = "http://perfkb.org/ontology#"
	p, okP, err := s.Lookup(ctx, kb.IRI(po+"metric"))
	if err != nil {
		b.Fatal(err)
	}
	o, okO, err := s.Lookup(ctx, kb.IRI(po+"TIME"))
	if err != nil || !okP || !okO {
		b.Fatalf("reopened store does not know the query terms: %v", err)
	}
	it := s.Match(ctx, kb.Pattern{P: p, O: o})
	if !it.Next() {
		b.Fatalf("reopened store answers nothing: %v", it.Err())
	}
	if _, err := s.Resolve(ctx, it.Quad().S); err != nil {
		b.Fatal(err)
	}
	it.Close()
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "reopen-query-ms")
	if st, err := s.Stats(ctx); err != nil || st.Quads != int64(n) {
		b.Fatalf("reopened store holds %d quads (%v); want %d", st.Quads, err, n)
	}
}

// processCPU returns the user and system CPU time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSecondLoad times a bulk load of 1M new triples into a reopened
// store that already holds 1M: the dictionary is then read from disk for
// terms it has not seen, and new quads are merged against the index.
func BenchmarkSecondLoad(b *testing.B) {
	ctx := context.Background()
	first, second := genTermQuads(0, 1_000_000), genTermQuads(100_000, 1_000_000)
	var wall, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "db")
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := loadBulk(ctx, s, first); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, cpuStart := time.Now(), processCPU()
		s, err = Open(ctx, dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := loadBulk(ctx, s, second); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		cpu += processCPU() - cpuStart
	}
	b.ReportMetric(float64(len(second))*float64(b.N)/wall.Seconds(), "triples/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
