package trace

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

type discard struct{ n int64 }

func (d *discard) Add(context.Context, kb.TermQuad) error { d.n++; return nil }

func TestSyntheticIsValid(t *testing.T) {
	s := NewSynthetic(4, 2000)
	vs, err := Check(context.Background(), s)
	if err != nil || len(vs) != 0 {
		t.Fatalf("synthetic trace: %v %v", err, vs)
	}
	sum, err := Summarize(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sum.Nodes {
		if n.Region == synRecv && n.LSWait == 0 {
			t.Errorf("location %d: receives never wait", n.Loc)
		}
	}
}

// BenchmarkSummary10M converts a 10-million-event synthetic trace (16
// locations) in summary mode: merge, DRG, wait states, region summary
// triples. PERFKB_BENCH_EVENTS overrides the size.
//
//	go test -run XXX -bench Summary10M -benchtime 1x ./convert/trace
func BenchmarkSummary10M(b *testing.B) {
	total := 10_000_000
	if v, err := strconv.Atoi(os.Getenv("PERFKB_BENCH_EVENTS")); err == nil && v > 0 {
		total = v
	}
	const locs = 16
	for b.Loop() {
		s := NewSynthetic(locs, total/locs)
		sum, err := Summarize(context.Background(), s)
		if err != nil {
			b.Fatal(err)
		}
		d := &discard{}
		if _, err := EmitSummary(context.Background(), d, sum, EmitOptions{Base: "http://perfkb.example/b/", Experiment: "http://perfkb.example/b/exp/1"}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Events), "events/op")
		b.ReportMetric(float64(sum.Events)/b.Elapsed().Seconds(), "events/s")
	}
}
