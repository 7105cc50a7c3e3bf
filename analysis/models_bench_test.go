package analysis

import (
	"context"
	"math"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkModels1000x3x6 runs the model analysis (series, call path
// tables, fits, predictions) on one series of 6 experiments (p = 1..32)
// with 1,000 call paths of 3 metrics each: the target is 2 s.
func BenchmarkModels1000x3x6(b *testing.B) {
	d := &Data{byIRI: map[string]*Experiment{}}
	for _, p := range []int{1, 2, 4, 8, 16, 32} {
		e := &Experiment{IRI: "http://example.org/e" + strconv.Itoa(p), Version: "http://example.org/v", ProblemSize: "N=1", Units: p, Processes: p, Threads: 1, Regions: map[string]*Region{}}
		pf := float64(p)
		for k := 0; k < 1000; k++ {
			path := "r" + strconv.Itoa(k)
			if k == 0 {
				e.Program = path
			}
			kf := float64(k + 1)
			e.Regions[path] = &Region{Path: path, CR: "http://example.org/cr" + strconv.Itoa(k), Name: path, Summary: []*Summary{{
				Metrics: MetricsOf(map[string]float64{"wtime": kf*1000/pf + kf*pf*math.Log2(pf+1), "ncalls": kf * 10, "bytes": kf * pf * pf}),
			}}}
		}
		d.Experiments = append(d.Experiments, e)
	}
	ctx := context.Background()
	cpu0 := cpuSeconds(b)
	b.ResetTimer()
	for b.Loop() {
		res, err := fitModels(ctx, d, ModelOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Models) != 3000 {
			b.Fatalf("%d models", len(res.Models))
		}
	}
	// The machine is shared: CPU-seconds, not wall time, are the figure.
	b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
