package otlp

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
)

// ingestRequests returns n spans (parent/child pairs of one service) as
// protobuf ExportTraceServiceRequests of per spans each, encoded before
// the clock starts, so that the benchmark times the receiver: decoding,
// mapping and the store's writes.
func ingestRequests(b *testing.B, n, per int) [][]byte {
	var out [][]byte
	for first := 0; first < n; first += per {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "solver")
		rs.Resource().Attributes().PutStr("host.name", "gsr410")
		spans := rs.ScopeSpans().AppendEmpty().Spans()
		for i := first; i < min(first+per, n); i++ {
			sp := spans.AppendEmpty()
			sp.SetTraceID(pcommon.TraceID{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i &^ 1), 1})
			sp.SetSpanID(pcommon.SpanID{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i), 1})
			if i%2 == 1 {
				sp.SetParentSpanID(pcommon.SpanID{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i - 1), 1})
				sp.SetName("MPI_Allreduce")
			} else {
				sp.SetName("step")
			}
			sp.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i*1000))
			sp.SetEndTimestamp(pcommon.Timestamp(1_700_000_000_000_250_000 + i*1000))
			sp.Attributes().PutInt("iteration", int64(i/2))
		}
		body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, body)
	}
	return out
}

// BenchmarkIngest posts 50,000 spans (25 requests of 2,000, from 4
// clients at once, as several SDK exporters would) through the OTLP/HTTP
// receiver into a native store, in memory and on disk (Pebble), and
// reports spans per second of wall-clock time and per CPU-second of the
// whole process (the store's background work included), the figure that
// does not depend on how loaded the machine is. Every span is
// acknowledged when an iteration ends, and the store then holds one
// region instance per span.
func BenchmarkIngest(b *testing.B) {
	const n, per, clients = 50000, 2000, 4
	reqs := ingestRequests(b, n, per)
	for _, store := range []string{"memory", "pebble"} {
		b.Run(store, func(b *testing.B) {
			var wall, cpu time.Duration
			for b.Loop() {
				ds := benchStore(b, store)
				r, addr, stop := start(b, ds, Options{})
				c0, t0 := processCPU(), time.Now()
				var wg sync.WaitGroup
				next := make(chan []byte, len(reqs))
				for _, q := range reqs {
					next <- q
				}
				close(next)
				for range clients {
					wg.Go(func() {
						for body := range next {
							if code, msg := post(b, addr, "/v1/traces", "application/x-protobuf", "Bearer "+token, body, false); code != 200 {
								b.Errorf("status %d: %s", code, msg)
							}
						}
					})
				}
				wg.Wait()
				wall += time.Since(t0)
				cpu += processCPU() - c0
				st := r.Stats()
				if st.Spans != n {
					b.Fatalf("%d spans acknowledged, want %d", st.Spans, n)
				}
				b.Logf("%s: %d statements in %d writes", store, st.Triples, st.Writes)
				// Stored exactly once each: one region instance per span.
				if got := count(b, ds, kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionInstance)); got != n {
					b.Fatalf("%d region instances stored, want %d", got, n)
				}
				stop()
			}
			spans := float64(n * b.N)
			b.ReportMetric(spans/wall.Seconds(), "spans/s")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(spans/cpu.Seconds(), "spans/cpu-s")
			b.Logf("%s: %d spans in %v wall, %v CPU (%d iterations)", store, n*b.N, wall, cpu, b.N)
		})
	}
}

// benchStore opens a fresh native store for a benchmark: "memory", or
// "pebble" on disk in the benchmark's temporary directory, closed when the
// benchmark ends.
func benchStore(b *testing.B, store string) kb.Dataset {
	b.Helper()
	if store == "memory" {
		return native.OpenMemory()
	}
	s, err := native.Open(context.Background(), b.TempDir(), native.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
