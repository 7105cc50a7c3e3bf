package otlp

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/monitor"
)

// gatedDataset is a dataset whose writes wait until gate is closed, so
// that a request stays in the receiver's queue.
type gatedDataset struct {
	kb.Dataset
	gate chan struct{}
}

func (g gatedDataset) Apply(ctx context.Context, d kb.Delta) error {
	<-g.gate
	return g.Dataset.Apply(ctx, d)
}

// oneSpan returns a protobuf request of one span whose span id ends in
// id; requests for different ids map to statements of the same size.
func oneSpan(t testing.TB, id byte) []byte {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	sp.SetSpanID(pcommon.SpanID{0, 0, 0, 0, 0, 0, 0, id})
	sp.SetName("read")
	sp.SetStartTimestamp(1_700_000_000_000_000_000)
	sp.SetEndTimestamp(1_700_000_000_000_250_000)
	b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// queued posts body to a receiver over a gated dataset and returns, once
// the request waits in the queue, its queued bytes and a function that
// opens the gate and returns the request's status.
func queued(t *testing.T, r *Receiver, addr string, g gatedDataset, body []byte) (int64, func() int) {
	t.Helper()
	codes := make(chan int, 1)
	go func() {
		code, _ := post(t, addr, "/v1/traces", "application/x-protobuf", "Bearer "+token, body, false)
		codes <- code
	}()
	for r.Stats().QueuedBytes == 0 {
		runtime.Gosched()
	}
	return r.Stats().QueuedBytes, func() int { close(g.gate); return <-codes }
}

// TestRefusedRequestAddsNoTerms: a request answered 503 because the queue
// is full adds none of its terms to the store's dictionary (an overloaded
// receiver would otherwise grow it with every refused request).
func TestRefusedRequestAddsNoTerms(t *testing.T) {
	first, second := oneSpan(t, 1), oneSpan(t, 2)
	// The queued size of one request, from a receiver with room for many.
	probe := gatedDataset{native.OpenMemory(), make(chan struct{})}
	r, addr, _ := start(t, probe, Options{})
	size, release := queued(t, r, addr, probe, first)
	if code := release(); code != 200 {
		t.Fatalf("probe: status %d", code)
	}

	// Room for one request: the second waits QueueWait and is refused.
	ds := gatedDataset{native.OpenMemory(), make(chan struct{})}
	r, addr, _ = start(t, ds, Options{ListenerLimits: monitor.ListenerLimits{MaxQueueBytes: size + size/2}, QueueWait: time.Millisecond})
	_, release = queued(t, r, addr, ds, first)
	if code, msg := post(t, addr, "/v1/traces", "application/x-protobuf", "Bearer "+token, second, false); code != 503 {
		t.Fatalf("second request: status %d (%s), want 503", code, msg)
	}
	if code := release(); code != 200 {
		t.Fatalf("first request: status %d", code)
	}
	span := kb.IRI(base.String() + "exp/otlp/ri/0102030405060708090a0b0c0d0e0f10/0000000000000002")
	if _, ok, err := ds.Lookup(context.Background(), span); err != nil || ok {
		t.Errorf("the refused span's IRI is in the dictionary (%v, %v)", ok, err)
	}
	stored := kb.IRI(base.String() + "exp/otlp/ri/0102030405060708090a0b0c0d0e0f10/0000000000000001")
	if _, ok, err := ds.Lookup(context.Background(), stored); err != nil || !ok {
		t.Errorf("the written span's IRI is not in the dictionary (%v, %v)", ok, err)
	}
}
