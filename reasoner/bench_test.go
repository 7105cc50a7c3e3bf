package reasoner

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// BenchmarkMaterialize runs rdfs.rules + owl-rl.rules + perfonto.rules over
// `perfkb sample` data plus the PERFONTO ontology in a memory store.
// PERFKB_BENCH_TRIPLES sets the data size (default 100000; e.g. 1000000 or
// 5000000). It reports inferred triples and the process's peak RSS.
//
//	go test -run '^$' -bench Materialize -benchtime 1x ./reasoner/
//	PERFKB_BENCH_TRIPLES=1000000 go test -run '^$' -bench Materialize -benchtime 1x ./reasoner/
func BenchmarkMaterialize(b *testing.B) {
	size := int64(100000)
	if v := os.Getenv("PERFKB_BENCH_TRIPLES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("PERFKB_BENCH_TRIPLES: %v", err)
		}
		size = n
	}
	seed := uint64(1)
	if v := os.Getenv("PERFKB_BENCH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			b.Fatalf("PERFKB_BENCH_SEED: %v", err)
		}
		seed = n
	}
	var data bytes.Buffer
	if _, err := sample.Generate(context.Background(), &data, sample.Options{Triples: size, Seed: seed}); err != nil {
		b.Fatal(err)
	}
	sets := rules.Default
	if v := os.Getenv("PERFKB_BENCH_RULES"); v != "" {
		sets = strings.Split(v, ",")
	}
	prog, err := LoadProgram(sets, ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, variant := range []struct {
		name string
		opts Options
	}{{"derivations", Options{}}, {"noDerivations", Options{NoDerivations: true}}} {
		b.Run(variant.name, func(b *testing.B) {
			var sum Summary
			var cpu, engineHeap float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ds := native.OpenMemory()
				ctx := context.Background()
				if _, err := rdfio.Load(ctx, ds, bytes.NewReader(data.Bytes()), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
					b.Fatal(err)
				}
				if _, err := rdfio.Load(ctx, ds, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: kb.IRI(ontology.OntologyIRI)}); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heapBefore := ms.HeapAlloc
				b.StartTimer()
				before := cpuSeconds()
				eng, err := NewEngine(ctx, ds, prog, variant.opts)
				if err != nil {
					b.Fatal(err)
				}
				sum, err = eng.Run(ctx)
				if err != nil {
					b.Fatal(err)
				}
				cpu = cpuSeconds() - before
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&ms)
				engineHeap = float64(ms.HeapAlloc-heapBefore) / (1 << 20)
				runtime.KeepAlive(eng)
				b.StartTimer()
			}
			if testing.Verbose() {
				b.Logf("rule times: %v", sum.RuleTime)
			}
			b.ReportMetric(float64(sum.Loaded), "input-triples")
			b.ReportMetric(float64(sum.Derived), "inferred-triples")
			b.ReportMetric(float64(sum.Rounds), "rounds")
			b.ReportMetric(sum.Duration.Seconds(), "run-s")
			b.ReportMetric(cpu, "run-cpu-s")
			b.ReportMetric(engineHeap, "engine+inferred-heap-MiB")
			b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
		})
	}
}

// cpuSeconds is the process's user+system CPU time; on a shared machine it
// is steadier than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// peakRSSMiB reads the process's peak resident set size (Linux).
func peakRSSMiB() float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kbytes, _ := strconv.ParseFloat(f[1], 64)
				return kbytes / 1024
			}
		}
	}
	return 0
}
