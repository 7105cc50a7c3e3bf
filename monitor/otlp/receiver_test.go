package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/monitor"
	"github.com/perfkb/perfkb/ontology"
)

const token = "s3cret"

var base = convert.MustBase("http://perfkb.example/otlp/")

// start serves a receiver on a loopback port until the test ends.
func start(t testing.TB, ds kb.Dataset, opt Options) (*Receiver, string, func()) {
	t.Helper()
	opt.Base = base
	if opt.Token == "" {
		opt.Token = token
	}
	r, err := New(ds, opt)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := r.Serve(ctx, ln); err != nil {
			t.Error(err)
		}
	}()
	stop := func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	return r, ln.Addr().String(), stop
}

// count returns the number of stored quads (s, p, o) for p and o given.
func count(t testing.TB, ds kb.Dataset, p, o kb.Term) int64 {
	t.Helper()
	ctx := context.Background()
	pid, ok1, err := ds.Lookup(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	oid, ok2, err := ds.Lookup(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !ok1 || !ok2 {
		return 0
	}
	n, err := ds.Count(ctx, kb.Pattern{S: kb.Any, P: pid, O: oid, G: kb.Any}, true)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sendWithSDK creates n spans (pairs of a parent and a child) with the
// OpenTelemetry Go SDK and exports them with its OTLP/HTTP exporter; it
// returns the span ids the SDK gave them.
func sendWithSDK(t testing.TB, addr string, n int) map[string]bool {
	t.Helper()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure(),
		otlptracehttp.WithHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "solver"), attribute.String("host.name", "gsr410"), attribute.Int("process.pid", 4242))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exp,
		sdktrace.WithBlocking(), sdktrace.WithMaxQueueSize(8192), sdktrace.WithMaxExportBatchSize(2048)))
	tr := tp.Tracer("perfkb-test")
	ids := make(map[string]bool, n)
	for i := 0; i < n; i += 2 {
		pctx, parent := tr.Start(ctx, "step")
		_, child := tr.Start(pctx, "MPI_Allreduce")
		child.End()
		parent.End()
		ids[parent.SpanContext().SpanID().String()] = true
		ids[child.SpanContext().SpanID().String()] = true
	}
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatalf("SDK shutdown (flushes every span): %v", err)
	}
	return ids
}

// TestSDKSpansStoredOnce: 50,000 spans from the Go SDK's OTLP/HTTP
// exporter are each stored once as a region instance, with the parent
// links and the resource's activity unit.
func TestSDKSpansStoredOnce(t *testing.T) {
	n := 50000
	if testing.Short() {
		n = 2000
	}
	ds := native.OpenMemory()
	r, addr, stop := start(t, ds, Options{})
	ids := sendWithSDK(t, addr, n)
	stop()
	if len(ids) != n {
		t.Fatalf("the SDK gave %d distinct span ids for %d spans", len(ids), n)
	}
	if got := count(t, ds, kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionInstance)); got != int64(n) {
		t.Errorf("%d region instances stored, want %d", got, n)
	}
	if got := count(t, ds, kb.IRI(ontology.RDFType), kb.IRI(ontology.EnterEvent)); got != int64(n) {
		t.Errorf("%d enter events, want %d", got, n)
	}
	// Every span id the SDK made is one stored instance.
	ctx := context.Background()
	it := ds.Match(ctx, kb.Pattern{S: kb.Any, P: mustID(t, ds, kb.IRI(ontology.RDFType)), O: mustID(t, ds, kb.IRI(ontology.RegionInstance)), G: kb.Any})
	quads, err := kb.Collect(it)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, q := range quads {
		s, err := ds.Resolve(ctx, q.S)
		if err != nil {
			t.Fatal(err)
		}
		seen[s.Value[strings.LastIndexByte(s.Value, '/')+1:]] = true
	}
	for id := range ids {
		if !seen[id] {
			t.Errorf("span %s is not stored", id)
			break
		}
	}
	children, err := ds.Count(ctx, kb.Pattern{S: kb.Any, P: mustID(t, ds, kb.IRI(ontology.HasChildRI)), O: kb.Any, G: kb.Any}, true)
	if err != nil || children != int64(n/2) {
		t.Errorf("%d hasChildRI (%v), want %d (one per child span)", children, err, n/2)
	}
	if got := count(t, ds, kb.IRI(ontology.ActivityID), kb.String("solver")); got != 1 {
		t.Errorf("%d activity units of service solver, want 1", got)
	}
	if st := r.Stats(); st.Spans != int64(n) || st.Invalid != 0 {
		t.Errorf("stats %+v", st)
	}
}

func mustID(t testing.TB, ds kb.Dataset, term kb.Term) kb.ID {
	id, ok, err := ds.Lookup(context.Background(), term)
	if err != nil || !ok {
		t.Fatalf("%s not in the store (%v)", term, err)
	}
	return id
}

// request builds an ExportTraceServiceRequest of two spans.
func request(t testing.TB, json bool) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "io-service")
	ss := rs.ScopeSpans().AppendEmpty()
	tid := pcommon.TraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	for i, name := range []string{"read", "write"} {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid)
		sp.SetSpanID(pcommon.SpanID([8]byte{0, 0, 0, 0, 0, 0, 0, byte(i + 1)}))
		sp.SetName(name)
		sp.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + i*1000))
		sp.SetEndTimestamp(pcommon.Timestamp(1_700_000_000_000_250_000 + i*1000)) // 250 µs
	}
	req := ptraceotlp.NewExportRequestFromTraces(td)
	var b []byte
	var err error
	if json {
		b, err = req.MarshalJSON()
	} else {
		b, err = req.MarshalProto()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t testing.TB, addr, path, ctype, auth string, body []byte, gz bool) (int, string) {
	t.Helper()
	if gz {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if gz {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return resp.StatusCode, out.String()
}

// TestRequests: encodings, resends, the token and the limits.
func TestRequests(t *testing.T) {
	ds := native.OpenMemory()
	_, addr, _ := start(t, ds, Options{ListenerLimits: monitor.ListenerLimits{MaxMessage: 4096}})
	pb, js := request(t, false), request(t, true)
	bearer := "Bearer " + token
	for _, tc := range []struct {
		name, path, ctype, auth string
		body                    []byte
		gz                      bool
		code                    int
		want                    string
	}{
		{"protobuf", "/v1/traces", "application/x-protobuf", bearer, pb, false, 200, ""},
		{"resent", "/v1/traces", "application/x-protobuf", bearer, pb, false, 200, ""},
		{"json gzip", "/v1/traces", "application/json", bearer, js, true, 200, "{}"},
		{"no token", "/v1/traces", "application/x-protobuf", "", pb, false, 401, "bearer token"},
		{"wrong token", "/v1/traces", "application/x-protobuf", "Bearer nope", pb, false, 401, "bearer token"},
		{"not OTLP", "/v1/traces", "application/x-protobuf", bearer, []byte("\x0a\x05hello"), false, 400, "not an OTLP ExportTraceServiceRequest"},
		{"metrics as traces", "/v1/traces", "application/json", bearer, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"x"}]}]}]}`), false, 400, "resourceSpans[0].scopeSpans[0].spans[0]: span without a trace id"},
		{"too large", "/v1/traces", "application/x-protobuf", bearer, bytes.Repeat([]byte{0}, 5000), false, 413, "larger than 4096 bytes"},
		{"gzip bomb", "/v1/traces", "application/x-protobuf", bearer, bytes.Repeat([]byte{0}, 100000), true, 413, "larger than 4096 bytes"},
		{"media type", "/v1/traces", "text/plain", bearer, pb, false, 415, "Content-Type"},
		{"path", "/v1/logs", "application/x-protobuf", bearer, pb, false, 404, "only /v1/traces and /v1/metrics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, addr, tc.path, tc.ctype, tc.auth, tc.body, tc.gz)
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("%d %q, want %d and %q", code, body, tc.code, tc.want)
			}
		})
	}
	// The two spans, sent three times (protobuf twice, JSON once), are
	// stored once each.
	if got := count(t, ds, kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionInstance)); got != 2 {
		t.Errorf("%d region instances, want 2", got)
	}
	// The read span: 250 µs, entered at 1.7e15 µs since the epoch.
	ri := base.String() + "exp/otlp/ri/0102030405060708090a0b0c0d0e0f10/0000000000000001"
	if got := count(t, ds, kb.IRI(ontology.HasMetricValue), kb.Double(250)); got != 2 {
		t.Errorf("%d wtime values of 250 µs, want 2", got)
	}
	if got := count(t, ds, kb.IRI(ontology.HasEvent), kb.IRI(ri+"/enter")); got != 1 {
		t.Errorf("the read span's enter event is stored %d times", got)
	}
	if got := count(t, ds, kb.IRI(ontology.AtEventTime), kb.Double(1.7e15)); got != 1 {
		t.Errorf("%d events at 1.7e15 µs, want 1", got)
	}
}

// TestNoTokenRefusesWrites: without a configured token every write is
// refused.
func TestNoTokenRefusesWrites(t *testing.T) {
	ds := native.OpenMemory()
	r, err := New(ds, Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv := &http.Server{Handler: r}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Close()
	if code, _ := post(t, ln.Addr().String(), "/v1/traces", "application/x-protobuf", "Bearer ", request(t, false), false); code != 401 {
		t.Errorf("status %d, want 401", code)
	}
}

// BenchmarkSDKSpans measures spans per second (wall and per CPU-second of
// the process, the SDK's exporter included) from the Go SDK's OTLP/HTTP
// exporter into the native store, in memory and on disk (Pebble), 50,000
// spans per iteration, each checked to be stored exactly once.
func BenchmarkSDKSpans(b *testing.B) {
	const n = 50000
	for _, store := range []string{"memory", "pebble"} {
		b.Run(store, func(b *testing.B) {
			for b.Loop() {
				ds := benchStore(b, store)
				_, addr, stop := start(b, ds, Options{})
				c0, t0 := processCPU(), time.Now()
				ids := sendWithSDK(b, addr, n)
				stop()
				wall, cpu := time.Since(t0), processCPU()-c0
				// Stored exactly once each: the SDK's span ids are distinct
				// and the store holds one region instance per span.
				if len(ids) != n {
					b.Fatalf("the SDK gave %d distinct span ids for %d spans", len(ids), n)
				}
				if got := count(b, ds, kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionInstance)); got != n {
					b.Fatalf("%d region instances stored, want %d", got, n)
				}
				b.ReportMetric(n/wall.Seconds(), "spans/s")
				b.ReportMetric(n/cpu.Seconds(), "spans/cpu-s")
			}
		})
	}
}
