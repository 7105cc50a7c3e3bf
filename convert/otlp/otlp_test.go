package otlp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var base = convert.MustBase("http://perfkb.example/otlp/")

type memSink struct{ qs []kb.TermQuad }

func (m *memSink) Add(_ context.Context, q kb.TermQuad) error { m.qs = append(m.qs, q); return nil }
func (m *memSink) Close(context.Context, error) error         { return nil }

func has(qs []kb.TermQuad, s, p string, o kb.Term) bool {
	for _, q := range qs {
		if q.S.Value == s && q.P.Value == p && q.O == o {
			return true
		}
	}
	return false
}

// TestProtoExamples converts the OTLP examples of the opentelemetry-proto
// repository; the expected statements are read off the JSON by hand.
func TestProtoExamples(t *testing.T) {
	sink := &memSink{}
	rep, err := New(filepath.Join("testdata", "trace.json"), base, Options{}).Convert(context.Background(), sink)
	if err != nil {
		t.Fatal(err)
	}
	exp := base.String() + "exp/trace.json"
	ri := exp + "/ri/5b8efff798038103d269b633813fc60c/eee19b7ec3c1b174"
	pu := exp + "/pu/my.service"
	for _, c := range []struct {
		s, p string
		o    kb.Term
	}{
		{ri, ontology.RDFType, kb.IRI(ontology.RegionInstance)},
		{ri, ontology.OfCodeRegion, kb.IRI(base.String() + "region/" + convert.EscapeSegment("I'm a server span"))},
		{ri, ontology.InProcessingUnit, kb.IRI(pu)},
		// startTimeUnixNano 1544712660000000000 → µs; the span lasts 1 s.
		{ri + "/enter", ontology.AtEventTime, kb.Double(1544712660000000)},
		{ri + "/exit", ontology.AtEventTime, kb.Double(1544712661000000)},
		{ri + "/wtime", ontology.HasMetricValue, kb.Double(1e6)},
		// parentSpanId EEE19B7EC3C1B173 (not in the file) is linked by IRI.
		{exp + "/ri/5b8efff798038103d269b633813fc60c/eee19b7ec3c1b173", ontology.HasChildRI, kb.IRI(ri)},
		{pu, ontology.RDFType, kb.IRI(ontology.ActivityUnit)},
		{pu, ontology.ActivityID, kb.String("my.service")},
	} {
		if !has(sink.qs, c.s, c.p, c.o) {
			t.Errorf("missing <%s> <%s> %s", c.s, c.p, c.o)
		}
	}
	if rep.Tables[0].Name != "span" || rep.Tables[0].Rows != 1 {
		t.Errorf("report tables %+v", rep.Tables)
	}

	sink = &memSink{}
	if _, err := New(filepath.Join("testdata", "metrics.json"), base, Options{}).Convert(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	values := map[string]float64{}
	name := map[string]string{}
	for _, q := range sink.qs {
		switch q.P.Value {
		case ontology.HasMetricName:
			name[q.S.Value] = q.O.Value
		}
	}
	for _, q := range sink.qs {
		if q.P.Value == ontology.MeasuredValue {
			v, err := strconv.ParseFloat(q.O.Value, 64)
			if err != nil {
				t.Fatal(err)
			}
			values[name[q.S.Value]] = v
		}
	}
	// my.counter 5, my.gauge 10, my.histogram count 3 and sum 3.
	want := map[string]float64{"my_counter": 5, "my_gauge": 10, "my_histogram_count": 3, "my_histogram_sum": 3}
	if len(values) != len(want) {
		t.Errorf("values %v, want %v", values, want)
	}
	for k, w := range want {
		if values[k] != w {
			t.Errorf("%s = %v, want %v", k, values[k], w)
		}
	}
}

// badCases are files that are not OTLP, with the position and reason.
var badCases = []struct{ name, file, data, signal string }{
	{"not json", "a.json", "{\"resourceSpans\": [}", ""},
	{"not a request", "b.json", "{\"traceEvents\": []}", ""},
	{"second request bad", "c.json", "{\"resourceSpans\": []}\n{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"name\": \"x\"}]}]}]}\n", ""},
	{"span ends early", "d.json", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","name":"s","startTimeUnixNano":"20","endTimeUnixNano":"10"}]}]}]}`, ""},
	{"not protobuf", "e.pb", "\x0a\x05hello", "traces"},
}

var badWant = map[string][]string{
	"not json":           {"a.json: request 1 (line 1)", "not JSON"},
	"not a request":      {"b.json: request 1 (line 1)", `"resourceSpans" or "resourceMetrics"`},
	"second request bad": {"c.json: resourceSpans[0].scopeSpans[0].spans[0]", "span without a trace id"},
	"span ends early":    {"d.json: resourceSpans[0].scopeSpans[0].spans[0]", "ends (10 ns) before it starts (20 ns)"},
	"not protobuf":       {"e.pb: byte 0", "not an OTLP ExportTraceServiceRequest (protobuf)"},
}

func TestConformance(t *testing.T) {
	var bad []converttest.BadCase
	for _, bc := range badCases {
		bad = append(bad, converttest.BadCase{Name: bc.name, Want: badWant[bc.name], New: func(t testing.TB) convert.Converter {
			path := filepath.Join(t.TempDir(), bc.file)
			if err := os.WriteFile(path, []byte(bc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			return New(path, base, Options{Signal: bc.signal})
		}})
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "metrics.json"), base, Options{})
		},
		Bad: bad,
	})
}

type discard struct{}

func (discard) Add(context.Context, kb.TermQuad) error { return nil }
func (discard) Close(context.Context, error) error     { return nil }

// FuzzConvert feeds arbitrary bytes to the file conversion, as JSON or as
// a protobuf of either signal: it may reject them, always with a
// positioned invalid-input error naming the file, and never panics.
func FuzzConvert(f *testing.F) {
	for _, name := range []string{"trace.json", "metrics.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
	}
	for _, bc := range badCases {
		f.Add([]byte(bc.data), bc.signal == "metrics")
	}
	f.Fuzz(func(t *testing.T, data []byte, metrics bool) {
		sig := "traces"
		if metrics {
			sig = "metrics"
		}
		em := convert.NewEmitter("otlp", "fuzz.otlp", discard{})
		err := New("fuzz.otlp", base, Options{Signal: sig}).convert(context.Background(), em, data)
		if err == nil {
			return
		}
		var ce *convert.Error
		if !errors.As(err, &ce) || !ce.InvalidInput() || ce.Source != "fuzz.otlp" || strings.TrimSpace(ce.Position) == "" {
			t.Fatalf("error is not a positioned invalid-input error of fuzz.otlp: %v", err)
		}
	})
}

// TestSpanAttributesAndStatus: the example span's attribute (my.span.attr =
// "some value", read off testdata/trace.json) and, on spans built here,
// every attribute type and both status codes with a message.
func TestSpanAttributesAndStatus(t *testing.T) {
	sink := &memSink{}
	if _, err := New(filepath.Join("testdata", "trace.json"), base, Options{}).Convert(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	enter := base.String() + "exp/trace.json/ri/5b8efff798038103d269b633813fc60c/eee19b7ec3c1b174/enter"
	attr := enter + "/attr/my.span.attr"
	for _, c := range []struct {
		s, p string
		o    kb.Term
	}{
		{enter, ontology.HasEventAttr, kb.IRI(attr)},
		{attr, ontology.RDFType, kb.IRI(ontology.EventAttribute)},
		{attr, ontology.HasAttrName, kb.String("my.span.attr")},
		{attr, ontology.HasAttrValue, kb.String("some value")},
	} {
		if !has(sink.qs, c.s, c.p, c.o) {
			t.Errorf("missing %s %s %v", c.s, c.p, c.o)
		}
	}
	for _, q := range sink.qs {
		if strings.Contains(q.S.Value, "/exit/attr/") {
			t.Errorf("a span without a status has status attributes: %v", q)
		}
	}

	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for i, st := range []struct {
		code ptrace.StatusCode
		msg  string
	}{{ptrace.StatusCodeError, "deadline exceeded"}, {ptrace.StatusCodeOk, ""}} {
		sp := spans.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{1})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		sp.SetName("rpc")
		sp.SetStartTimestamp(1000)
		sp.SetEndTimestamp(3000)
		sp.Status().SetCode(st.code)
		sp.Status().SetMessage(st.msg)
		sp.Attributes().PutInt("retries", 3)
		sp.Attributes().PutDouble("ratio", 0.5)
		sp.Attributes().PutBool("cached", true)
		sp.Attributes().PutEmptySlice("hosts").AppendEmpty().SetStr("a")
	}
	sink = &memSink{}
	m := &Mapper{Base: base, Experiment: "http://x/exp"}
	if _, err := m.Traces(context.Background(), td, "test", func(s, p, o kb.Term) error {
		sink.qs = append(sink.qs, kb.TermQuad{S: s, P: p, O: o})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ri := func(i int) string {
		return "http://x/exp/ri/01000000000000000000000000000000/0" + strconv.Itoa(i) + "00000000000000"
	}
	for _, c := range []struct{ s, name, value string }{
		{ri(1) + "/enter", "retries", "3"},
		{ri(1) + "/enter", "ratio", "0.5"},
		{ri(1) + "/enter", "cached", "true"},
		{ri(1) + "/enter", "hosts", `["a"]`},
		{ri(1) + "/exit", "otel.status_code", "ERROR"},
		{ri(1) + "/exit", "otel.status_description", "deadline exceeded"},
		{ri(2) + "/exit", "otel.status_code", "OK"},
	} {
		a := c.s + "/attr/" + c.name
		if !has(sink.qs, c.s, ontology.HasEventAttr, kb.IRI(a)) || !has(sink.qs, a, ontology.HasAttrName, kb.String(c.name)) || !has(sink.qs, a, ontology.HasAttrValue, kb.String(c.value)) {
			t.Errorf("no attribute %s = %q on %s", c.name, c.value, c.s)
		}
	}
	if has(sink.qs, ri(2)+"/exit", ontology.HasEventAttr, kb.IRI(ri(2)+"/exit/attr/otel.status_description")) {
		t.Error("an empty status message is written")
	}
}
