package compensate

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

// BenchmarkCompensateStream10M compensates a 10-million-event synthetic
// trace (16 locations) and summarizes it, streaming.
// PERFKB_BENCH_EVENTS overrides the size.
//
//	go test -run XXX -bench CompensateStream -benchtime 1x ./convert/trace/compensate
func BenchmarkCompensateStream10M(b *testing.B) {
	total := 10_000_000
	if v, err := strconv.Atoi(os.Getenv("PERFKB_BENCH_EVENTS")); err == nil && v > 0 {
		total = v
	}
	for b.Loop() {
		src := trace.NewSynthetic(16, total/16)
		var rep Report
		s, err := trace.SummarizeEvents(src.Defs(), Stream(context.Background(), src, &Model{OverheadUs: 0.01}, &rep))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s.Events)/b.Elapsed().Seconds(), "events/s")
	}
}
