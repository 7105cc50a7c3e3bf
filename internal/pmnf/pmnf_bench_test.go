package pmnf

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFit1000x3x6 fits 1,000 call paths × 3 metrics at 6 points
// (p = 2..64, 5 repetitions each) with the default search space, with
// Extra-P's selection and with SelectRepetitions: one iteration is the
// whole set, the target is 2 s.
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
	benchFit(b, []string{"p"}, sets)
}

// BenchmarkFit100x5x5 fits 100 two-parameter call paths on a 5×5 grid
// (5 repetitions each): SelectRepetitions fits every pair of exponents in
// four combinations, so its cost per call path is far above Extra-P's.
func BenchmarkFit100x5x5(b *testing.B) {
	d := design{"bench", []string{"p", "n"}, [][]float64{{4, 8, 16, 32, 64}, {10, 20, 40, 80, 160}}, 0.01, 0.05, 100, nil}
	var sets [][]Point
	for _, c := range generate(1, d) {
		sets = append(sets, c.points)
	}
	benchFit(b, d.params, sets)
}

func benchFit(b *testing.B, params []string, sets [][]Point) {
	for _, sel := range []struct {
		name string
		s    Selection
	}{{"extrap", SelectExtraP}, {"repetitions", SelectRepetitions}} {
		b.Run(sel.name, func(b *testing.B) {
			md := &Modeler{Select: sel.s}
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
		})
	}
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
