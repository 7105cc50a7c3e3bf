package monitor_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/monitor"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

// BenchmarkListenNative measures sustained ingestion into the native
// store: 20 sensors on loopback send b.N messages in total as fast as they
// can; the metric is messages/s from the first byte to the last write.
//
//	go test ./monitor -run '^$' -bench ListenNative -benchtime 200000x
func BenchmarkListenNative(b *testing.B) {
	ctx := context.Background()
	ds, err := store.Open(ctx, "native:"+filepath.Join(b.TempDir(), "kb"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	l, err := monitor.NewSensorListener(ctx, ds, monitor.SensorOptions{Base: base})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- l.Serve(sctx, ln) }()
	const senders = 20
	per := (b.N + senders - 1) / senders
	total := int64(per * senders)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < senders; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Error(err)
				return
			}
			defer c.Close()
			var sb strings.Builder
			for j := 0; j < per; j++ {
				sb.WriteString(bwMessage(i, j, "2.5"))
				if sb.Len() > 64<<10 || j == per-1 {
					if _, err := c.Write([]byte(sb.String())); err != nil {
						b.Error(err)
						return
					}
					sb.Reset()
				}
			}
		}(i)
	}
	wg.Wait()
	for l.Stats().Stored < total {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	if got := countType(b, ds, ontology.PathBandwidthMeasurement); got != total {
		b.Fatalf("%d measurements stored, want %d", got, total)
	}
	b.ReportMetric(float64(total)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(float64(l.Stats().Triples)/elapsed.Seconds(), "triples/s")
}

// BenchmarkFindingLatency sends path bandwidth messages at 2,000 per
// second (PERFKB_BENCH_RATE overrides; PERFKB_BENCH_FLUSH sets the flush
// interval, default 500ms) into the native store with the shipped MONITORING rules, one in
// 20 below 1 MB/s, and reports the p50/p99/max latency of the findings:
// from the arrival of the oldest message of the finding's batch (an upper
// bound) to the finding being logged.
//
// The sub-benchmarks run the engine with and without derivation records
// (perfkb sensor-listen --no-derivations).
//
//	go test ./monitor -run '^$' -bench FindingLatency -benchtime 20000x
func BenchmarkFindingLatency(b *testing.B) {
	b.Run("derivations", func(b *testing.B) { benchFindingLatency(b, false) })
	b.Run("no-derivations", func(b *testing.B) { benchFindingLatency(b, true) })
}

func benchFindingLatency(b *testing.B, noDerivations bool) {
	ctx := context.Background()
	ds, err := store.Open(ctx, "native:"+filepath.Join(b.TempDir(), "kb"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ds.Close()
	prog, err := reasoner.LoadProgram([]string{"MONITORING"}, reasoner.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var lat []time.Duration
	flush := 500 * time.Millisecond // perfkb sensor-listen's default
	if d, err := time.ParseDuration(os.Getenv("PERFKB_BENCH_FLUSH")); err == nil && d > 0 {
		flush = d
	}
	l, err := monitor.NewSensorListener(ctx, ds, monitor.SensorOptions{Base: base, Program: prog, Reasoner: reasoner.Options{NoDerivations: noDerivations}, FlushInterval: flush,
		OnFinding: func(_ reasoner.Finding, d time.Duration) {
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		}})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- l.Serve(sctx, ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	rate := 2000
	if r, err := strconv.Atoi(os.Getenv("PERFKB_BENCH_RATE")); err == nil && r > 0 {
		rate = r // e.g. to find the rate a loaded machine sustains
	}
	b.ResetTimer()
	start := time.Now()
	lows := 0
	for j := 0; j < b.N; j++ {
		bw := "3.5"
		if j%20 == 0 {
			bw, lows = "0.5", lows+1
		}
		if _, err := c.Write([]byte(bwMessage(1, j, bw))); err != nil {
			b.Fatal(err)
		}
		// pace: message j is due at start + j/rate
		if d := time.Until(start.Add(time.Duration(j) * time.Second / time.Duration(rate))); d > 0 {
			time.Sleep(d)
		}
	}
	for l.Stats().Stored < int64(b.N) {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	c.Close()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lat) != lows {
		b.Fatalf("%d findings for %d low messages", len(lat), lows)
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return lat[int(p*float64(len(lat)-1))].Seconds() * 1000 }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(q(1), "max-ms")
}
