package chrometrace

import (
	"bytes"
	"context"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

// The synthetic trace of the benchmarks: 8 locations × 25,000 events.
func benchTrace() *trace.Synthetic { return trace.NewSynthetic(8, 25_000) }

func BenchmarkWrite(b *testing.B) {
	src := benchTrace()
	ctx := context.Background()
	var buf bytes.Buffer
	var events int64
	for b.Loop() {
		buf.Reset()
		st, err := Write(ctx, &buf, src.Defs(), trace.Merge(ctx, src))
		if err != nil {
			b.Fatal(err)
		}
		events = st.Events
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkRead(b *testing.B) {
	src := benchTrace()
	ctx := context.Background()
	var buf bytes.Buffer
	st, err := Write(ctx, &buf, src.Defs(), trace.Merge(ctx, src))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, _, err := Read(buf.Bytes(), "bench.json"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
