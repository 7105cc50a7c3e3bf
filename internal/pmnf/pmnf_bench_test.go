package pmnf

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFit1000x3x6 fits 1,000 call paths × 3 metrics at 6 points
// (p = 2..64, 5 repetitions each) with the default search space: one
// iteration is the whole set, the target is 2 s.
func BenchmarkFit1000x3x6(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	ps := []float64{2, 4, 8, 16, 32, 64}
	sets := make([][]Point, 3000)
	for k := range sets {
		e := DefaultExponents[rng.IntN(len(DefaultExponents))]
		c0, c1 := 1+rng.Float64()*99, rng.Float64()
		for _, p := range ps {
			sets[k] = append(sets[k], Point{X: []float64{p}, Values: noisy(rng, c0+c1*e.eval(p), 0.03)})
		}
	}
	md := &Modeler{}
	params := []string{"p"}
	cpu0 := cpuSeconds(b)
	b.ResetTimer()
	for b.Loop() {
		for _, pts := range sets {
			if _, err := md.Fit(params, pts); err != nil {
				b.Fatal(err)
			}
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
