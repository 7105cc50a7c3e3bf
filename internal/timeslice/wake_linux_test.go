package timeslice

import (
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWake measures what the package is for: a thread that sleeps
// 1 ms and then works 0.2 ms, as a lookup's thread does, beside three
// busy threads on the machine's cores, with the busy threads at the
// default slice and with Long. It reports the wake-up delay's median and
// 99th percentile (how much later than 1 ms the sleeper ran again).
//
//	go test -run '^$' -bench Wake -benchtime 2000x ./internal/timeslice/
func BenchmarkWake(b *testing.B) {
	for _, c := range []struct {
		name  string
		slice time.Duration
	}{{"busy=default", 0}, {"busy=long", Long}} {
		const busy = 3
		b.Run(c.name, func(b *testing.B) {
			// A Go processor each, so that only the kernel decides who
			// runs.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(busy + 2))
			var stop atomic.Bool
			started := make(chan struct{})
			for range busy {
				go func() {
					runtime.LockOSThread() // never unlocked: the thread ends here
					if c.slice > 0 {
						Set(ThreadID(), c.slice)
					}
					started <- struct{}{}
					for n := 0; !stop.Load(); n++ {
					}
				}()
			}
			for range busy {
				<-started
			}
			defer stop.Store(true)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			delays := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t := time.Now()
				ts := syscall.Timespec{Nsec: int64(time.Millisecond)}
				syscall.Nanosleep(&ts, nil)
				delays = append(delays, time.Since(t)-time.Millisecond)
				for w := time.Now(); time.Since(w) < 200*time.Microsecond; {
				}
			}
			b.StopTimer()
			slices.Sort(delays)
			b.ReportMetric(float64(delays[len(delays)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(delays[len(delays)*99/100].Microseconds()), "p99-µs")
		})
	}
}
