package otlp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/perfkb/perfkb/convert/converttest"
)

// TestShippedRules converts spans of two services and runs the shipped
// RDFS and PERFONTO rule sets unchanged. Load Imbalance reads what spans
// have (wtime per region instance): an instance is flagged when it lasts
// more than 1.5 times another instance of the same span name. The
// durations are chosen here: "handle" takes 10, 14 and 16 ms (16 > 1.5 ×
// 10, 14 is not), "query" 4 and 6 ms (6 = 1.5 × 4 is not above), "render"
// once.
func TestShippedRules(t *testing.T) {
	td := ptrace.NewTraces()
	type span struct {
		service, name string
		ms            uint64
	}
	spans := []span{
		{"web", "handle", 10}, {"web", "handle", 14}, {"api", "handle", 16},
		{"api", "query", 4}, {"api", "query", 6}, {"web", "render", 50},
	}
	for i, s := range spans {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", s.service)
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{9})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		sp.SetName(s.name)
		sp.SetStartTimestamp(pcommon.Timestamp(1_000_000_000))
		sp.SetEndTimestamp(pcommon.Timestamp(1_000_000_000 + s.ms*1_000_000))
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spans.json")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	ri := func(i int) string {
		return base.String() + "exp/spans.json/ri/09000000000000000000000000000000/" + pcommon.SpanID{byte(i + 1)}.String()
	}
	want := []string{ri(2)} // the third span: api "handle", 16 ms
	got := converttest.Findings(t, New(path, base, Options{}), "RDFS", "PERFONTO")
	if !slices.Equal(got["LoadImbalance"], want) {
		t.Errorf("LoadImbalance on %v, want %v", got["LoadImbalance"], want)
	}
	for class := range got {
		if class != "LoadImbalance" {
			t.Errorf("unexpected %s findings on %v", class, got[class])
		}
	}
}
