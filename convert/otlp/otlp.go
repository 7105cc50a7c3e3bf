package otlp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Encoding is the wire encoding of an OTLP message.
type Encoding int

// The OTLP/HTTP encodings.
const (
	Protobuf Encoding = iota // application/x-protobuf
	JSON                     // application/json
)

// DecodeTraces decodes an ExportTraceServiceRequest. source and position
// label errors.
func DecodeTraces(body []byte, enc Encoding, source, position string) (ptrace.Traces, error) {
	req := ptraceotlp.NewExportRequest()
	if err := unmarshal(req, body, enc); err != nil {
		return ptrace.Traces{}, convert.Errorf(source, position, "not an OTLP ExportTraceServiceRequest (%s): %w", encName(enc), err)
	}
	return req.Traces(), nil
}

// DecodeMetrics decodes an ExportMetricsServiceRequest.
func DecodeMetrics(body []byte, enc Encoding, source, position string) (pmetric.Metrics, error) {
	req := pmetricotlp.NewExportRequest()
	if err := unmarshal(req, body, enc); err != nil {
		return pmetric.Metrics{}, convert.Errorf(source, position, "not an OTLP ExportMetricsServiceRequest (%s): %w", encName(enc), err)
	}
	return req.Metrics(), nil
}

// unmarshal decodes an OTLP export request in its wire encoding.
func unmarshal(req interface {
	UnmarshalJSON([]byte) error
	UnmarshalProto([]byte) error
}, body []byte, enc Encoding) error {
	if enc == JSON {
		return req.UnmarshalJSON(body)
	}
	return req.UnmarshalProto(body)
}

func encName(e Encoding) string {
	if e == JSON {
		return "JSON"
	}
	return "protobuf"
}

// Emit receives one statement.
type Emit func(s, p, o kb.Term) error

// Mapper maps OTLP traces and metrics to PERFONTO statements. Its IRIs
// come from the data's own keys (trace and span ids, resource
// attributes, metric names and timestamps), so a resent request maps to
// the same statements and is stored once.
type Mapper struct {
	Base convert.Base
	// Experiment is the experiment IRI every span and data point belongs
	// to.
	Experiment string
}

// resourceUnit writes the activity processing unit of a resource and
// returns its IRI: the service (service.name, plus service.namespace and
// service.instance.id when present) on a node (host.name) in a process
// (process.pid).
func (m *Mapper) resourceUnit(res pcommon.Resource, emit Emit) (kb.Term, error) {
	get := func(k string) string {
		if v, ok := res.Attributes().Get(k); ok {
			return v.AsString()
		}
		return ""
	}
	service := get("service.name")
	if service == "" {
		service = "unknown_service"
	}
	if ns := get("service.namespace"); ns != "" {
		service = ns + "/" + service
	}
	activity := service
	if inst := get("service.instance.id"); inst != "" {
		activity += "#" + inst
	}
	host, pid := get("host.name"), get("process.pid")
	segs := []string{trace.Segment(activity)}
	if host != "" {
		segs = append(segs, "host", trace.Segment(host))
	}
	if pid != "" {
		segs = append(segs, "pid", trace.Segment(pid))
	}
	pu := kb.IRI(m.Experiment + "/pu/" + strings.Join(segs, "/"))
	exp := kb.IRI(m.Experiment)
	add := []struct {
		p string
		o kb.Term
	}{
		{ontology.RDFType, kb.IRI(ontology.ActivityUnit)},
		{ontology.InExperiment, exp},
		{ontology.ActivityID, kb.String(activity)},
	}
	if host != "" {
		add = append(add, struct {
			p string
			o kb.Term
		}{ontology.InNode, kb.String(host)})
	}
	if n, err := strconv.ParseInt(pid, 10, 64); err == nil {
		add = append(add, struct {
			p string
			o kb.Term
		}{ontology.ProcessID, kb.Integer(n)})
	}
	if err := emit(exp, kb.IRI(ontology.RDFType), kb.IRI(ontology.Experiment)); err != nil {
		return kb.Term{}, err
	}
	for _, a := range add {
		if err := emit(pu, kb.IRI(a.p), a.o); err != nil {
			return kb.Term{}, err
		}
	}
	return pu, nil
}

// micros is an OTLP timestamp (ns since the Unix epoch) in µs.
func micros(t pcommon.Timestamp) float64 { return float64(t) / 1e3 }

// Traces maps spans: each span is a RegionInstance of the code region
// named by the span, in its resource's activity unit, with Enter and Exit
// events at its start and end times (µs since the Unix epoch), its
// duration as wtime (µs), and the parent span's instance hasChildRI it;
// its attributes are EventAttributes of the Enter event, its status
// (otel.status_code OK or ERROR, otel.status_description) of the Exit
// event.
// It returns the number of spans. A span without trace or span id, or
// ending before it starts, is refused with its index; nothing of the
// request should then be stored (the caller discards the statements).
func (m *Mapper) Traces(ctx context.Context, td ptrace.Traces, source string, emit Emit) (int, error) {
	n := 0
	regions := map[string]bool{}
	exp := kb.IRI(m.Experiment)
	nm := trace.Names{Base: m.Base.String(), Exp: m.Experiment}
	rss := td.ResourceSpans()
	// One span's statements, reused from span to span: 14, 15 with a
	// parent, and 4 per attribute.
	q := make([][3]kb.Term, 0, 32)
	for i := range rss.Len() {
		rs := rss.At(i)
		pu, err := m.resourceUnit(rs.Resource(), emit)
		if err != nil {
			return n, err
		}
		sss := rs.ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				if n&1023 == 0 {
					if err := ctx.Err(); err != nil {
						return n, err
					}
				}
				sp := spans.At(k)
				pos := func() string { return fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d]", i, j, k) }
				if sp.TraceID().IsEmpty() || sp.SpanID().IsEmpty() {
					return n, convert.Errorf(source, pos(), "span without a trace id or span id")
				}
				if sp.EndTimestamp() < sp.StartTimestamp() {
					return n, convert.Errorf(source, pos(), "span %q ends (%d ns) before it starts (%d ns)", sp.Name(), sp.EndTimestamp(), sp.StartTimestamp())
				}
				name := sp.Name()
				if name == "" {
					name = "<unnamed span>"
				}
				region := nm.Region(name)
				if !regions[name] {
					regions[name] = true
					for _, err := range trace.EmitRegionTyped(ctx, sinkFunc(emit), region, name, trace.Mnemonics(trace.Region{Name: name}), nil) {
						if err != nil {
							return n, err
						}
					}
				}
				tid := sp.TraceID().String()
				ri := m.Experiment + "/ri/" + tid + "/" + sp.SpanID().String()
				r := kb.IRI(ri)
				enter, exit, wt := kb.IRI(ri+"/enter"), kb.IRI(ri+"/exit"), kb.IRI(ri+"/wtime")
				q = append(q[:0], [][3]kb.Term{
					{r, kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionInstance)},
					{r, kb.IRI(ontology.OfCodeRegion), kb.IRI(region)},
					{r, kb.IRI(ontology.InProcessingUnit), pu},
					{r, kb.IRI(ontology.InExperiment), exp},
					{r, kb.IRI(ontology.HasEvent), enter},
					{enter, kb.IRI(ontology.RDFType), kb.IRI(ontology.EnterEvent)},
					{enter, kb.IRI(ontology.AtEventTime), kb.Double(micros(sp.StartTimestamp()))},
					{r, kb.IRI(ontology.HasEvent), exit},
					{exit, kb.IRI(ontology.RDFType), kb.IRI(ontology.ExitEvent)},
					{exit, kb.IRI(ontology.AtEventTime), kb.Double(micros(sp.EndTimestamp()))},
					{r, kb.IRI(ontology.HasMetric), wt},
					{wt, kb.IRI(ontology.RDFType), kb.IRI(ontology.PerformanceMetric)},
					{wt, kb.IRI(ontology.HasMetricName), kb.String("wtime")},
					{wt, kb.IRI(ontology.HasMetricValue), kb.Double(float64(sp.EndTimestamp()-sp.StartTimestamp()) / 1e3)},
				}...)
				if p := sp.ParentSpanID(); !p.IsEmpty() {
					q = append(q, [3]kb.Term{kb.IRI(m.Experiment + "/ri/" + tid + "/" + p.String()), kb.IRI(ontology.HasChildRI), r})
				}
				// Attributes describe the span from its start; the status
				// is set when it ends.
				for k, v := range sp.Attributes().All() {
					q = appendAttr(q, enter, k, v.AsString())
				}
				if code := sp.Status().Code(); code != ptrace.StatusCodeUnset {
					q = appendAttr(q, exit, "otel.status_code", strings.ToUpper(code.String()))
				}
				if msg := sp.Status().Message(); msg != "" {
					q = appendAttr(q, exit, "otel.status_description", msg)
				}
				for _, t := range q {
					if err := emit(t[0], t[1], t[2]); err != nil {
						return n, err
					}
				}
				n++
			}
		}
	}
	return n, nil
}

// appendAttr adds the statements of an event attribute: the event
// hasEventAttr <event>/attr/<name>, an EventAttribute with its name and
// value.
func appendAttr(q [][3]kb.Term, event kb.Term, name, value string) [][3]kb.Term {
	a := kb.IRI(event.Value + "/attr/" + trace.Segment(name))
	return append(q,
		[3]kb.Term{event, kb.IRI(ontology.HasEventAttr), a},
		[3]kb.Term{a, kb.IRI(ontology.RDFType), kb.IRI(ontology.EventAttribute)},
		[3]kb.Term{a, kb.IRI(ontology.HasAttrName), kb.String(name)},
		[3]kb.Term{a, kb.IRI(ontology.HasAttrValue), kb.String(value)})
}

// Metrics maps data points: each point of a gauge or sum is a
// SensorMeasurement and PerformanceMetric of its resource's activity
// unit (which hasMetric it) with the metric's name (punctuation as '_'),
// value, unit and time; a histogram or summary point gives two, its
// count (<name>_count) and sum (<name>_sum). It returns the number of
// points.
func (m *Mapper) Metrics(ctx context.Context, md pmetric.Metrics, source string, emit Emit) (int, error) {
	n := 0
	rms := md.ResourceMetrics()
	for i := range rms.Len() {
		rm := rms.At(i)
		pu, err := m.resourceUnit(rm.Resource(), emit)
		if err != nil {
			return n, err
		}
		sms := rm.ScopeMetrics()
		for j := range sms.Len() {
			ms := sms.At(j).Metrics()
			for k := range ms.Len() {
				if err := ctx.Err(); err != nil {
					return n, err
				}
				mt := ms.At(k)
				pos := fmt.Sprintf("resourceMetrics[%d].scopeMetrics[%d].metrics[%d]", i, j, k)
				name := metricName(mt.Name())
				point := func(suffix string, t pcommon.Timestamp, attrs pcommon.Map, v float64, unit string) error {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return nil
					}
					key := name + suffix
					iri := kb.IRI(pu.Value + "/m/" + trace.Segment(key) + "/" + strconv.FormatUint(uint64(t), 10) + attrKey(attrs))
					q := [][3]kb.Term{
						{pu, kb.IRI(ontology.HasMetric), iri},
						{iri, kb.IRI(ontology.RDFType), kb.IRI(ontology.PerformanceMetric)},
						{iri, kb.IRI(ontology.RDFType), kb.IRI(ontology.SensorMeasurement)},
						{iri, kb.IRI(ontology.HasMetricName), kb.String(key)},
						{iri, kb.IRI(ontology.HasMetricValue), kb.Double(v)},
						{iri, kb.IRI(ontology.MeasuredValue), kb.Double(v)},
						{iri, kb.IRI(ontology.MeasurementTime), kb.Literal(time.Unix(0, int64(t)).UTC().Format("2006-01-02T15:04:05.999999999Z07:00"), ontology.XSDDateTime)},
					}
					if unit != "" {
						q = append(q, [3]kb.Term{iri, kb.IRI(ontology.MeasurementUnit), kb.String(unit)})
					}
					for _, x := range q {
						if err := emit(x[0], x[1], x[2]); err != nil {
							return err
						}
					}
					n++
					return nil
				}
				number := func(dps pmetric.NumberDataPointSlice) error {
					for d := range dps.Len() {
						dp := dps.At(d)
						v := dp.DoubleValue()
						if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
							v = float64(dp.IntValue())
						}
						if err := point("", dp.Timestamp(), dp.Attributes(), v, mt.Unit()); err != nil {
							return err
						}
					}
					return nil
				}
				switch mt.Type() {
				case pmetric.MetricTypeGauge:
					err = number(mt.Gauge().DataPoints())
				case pmetric.MetricTypeSum:
					err = number(mt.Sum().DataPoints())
				case pmetric.MetricTypeHistogram:
					dps := mt.Histogram().DataPoints()
					for d := 0; d < dps.Len() && err == nil; d++ {
						dp := dps.At(d)
						if err = point("_count", dp.Timestamp(), dp.Attributes(), float64(dp.Count()), ""); err == nil && dp.HasSum() {
							err = point("_sum", dp.Timestamp(), dp.Attributes(), dp.Sum(), mt.Unit())
						}
					}
				case pmetric.MetricTypeExponentialHistogram:
					dps := mt.ExponentialHistogram().DataPoints()
					for d := 0; d < dps.Len() && err == nil; d++ {
						dp := dps.At(d)
						if err = point("_count", dp.Timestamp(), dp.Attributes(), float64(dp.Count()), ""); err == nil && dp.HasSum() {
							err = point("_sum", dp.Timestamp(), dp.Attributes(), dp.Sum(), mt.Unit())
						}
					}
				case pmetric.MetricTypeSummary:
					dps := mt.Summary().DataPoints()
					for d := 0; d < dps.Len() && err == nil; d++ {
						dp := dps.At(d)
						if err = point("_count", dp.Timestamp(), dp.Attributes(), float64(dp.Count()), ""); err == nil {
							err = point("_sum", dp.Timestamp(), dp.Attributes(), dp.Sum(), mt.Unit())
						}
					}
				default:
					return n, convert.Errorf(source, pos, "metric %q has no data (type %s)", mt.Name(), mt.Type())
				}
				if err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}

// attrKey distinguishes the data points of one metric and time by their
// attributes ("" without attributes).
func attrKey(attrs pcommon.Map) string {
	if attrs.Len() == 0 {
		return ""
	}
	var kv []string
	for k, v := range attrs.All() {
		kv = append(kv, k+"="+v.AsString())
	}
	sortStrings(kv)
	h := sha256.Sum256([]byte(strings.Join(kv, "\x00")))
	return "/a" + hex.EncodeToString(h[:8])
}

func metricName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "value"
	}
	return out
}

// sinkFunc adapts an Emit to trace.Sink.
type sinkFunc Emit

func (f sinkFunc) Add(_ context.Context, q kb.TermQuad) error { return f(q.S, q.P, q.O) }

func sortStrings(s []string) { slices.Sort(s) }
