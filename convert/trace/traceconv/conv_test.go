package traceconv

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/convert/trace/compensate"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var base = convert.MustBase("http://perfkb.example/t/")

func load(t testing.TB, path string) *trace.Mem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := trace.ReadText(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSuite(t *testing.T) {
	cal := &compensate.Calibration{OverheadUs: 1, Copy: []compensate.CopyPoint{{Bytes: 1, NsPerByte: 1}}}
	bad := func(name string, want ...string) converttest.BadCase {
		return converttest.BadCase{Name: name, Want: want, New: func(t testing.TB) convert.Converter {
			return New(load(t, "../testdata/check/"+name+".trace"), "trace", name, base, Options{})
		}}
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(load(t, "../testdata/valid.trace"), "trace", "valid.trace", base,
				Options{Events: true, Calibration: cal, Bound: compensate.Lower})
		},
		Bad: []converttest.BadCase{
			bad("non-monotone-time", "location 0 event 2", "non-monotone-time"),
			bad("unmatched-leave", "location 1 event 1", "unmatched-leave"),
			bad("unmatched-send", "location 0 event 2", "unmatched-send"),
			bad("unmatched-recv", "location 1 event 2", "unmatched-recv"),
		},
	})
}

func TestCompensatedExperiment(t *testing.T) {
	cal := &compensate.Calibration{OverheadUs: 2, Copy: []compensate.CopyPoint{{Bytes: 1, NsPerByte: 1}}}
	c := New(load(t, "../testdata/valid.trace"), "trace", "valid.trace", base, Options{Calibration: cal, Bound: compensate.Upper})
	var qs []kb.TermQuad
	sink := &collect{qs: &qs}
	if _, err := c.Convert(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	exp := base.IRI("exp", "valid.trace").Value
	cexp := exp + "/compensated-upper"
	want := map[string]kb.Term{
		ontology.CompensatedFrom:   kb.IRI(exp),
		ontology.CompensationBound: kb.String("upper"),
		ontology.PerEventOverhead:  kb.Double(2),
	}
	for p, o := range want {
		found := false
		for _, q := range qs {
			if q.S.Value == cexp && q.P.Value == p {
				found = q.O == o
			}
		}
		if !found {
			t.Errorf("compensated experiment lacks %s %v", p, o)
		}
	}
	// Compensated main on rank 0 is shorter than measured (34 events × 2 µs
	// removed at most, the flush of 20 µs too).
	get := func(e string) float64 {
		rs := e + "/rs/p0t0/0/wtime"
		for _, q := range qs {
			if q.S.Value == rs && q.P.Value == ontology.HasMetricValue {
				var f float64
				if _, err := fmtSscan(q.O.Value, &f); err != nil {
					t.Fatal(err)
				}
				return f
			}
		}
		t.Fatalf("no %s", rs)
		return 0
	}
	if m, c := get(exp), get(cexp); !(c < m) || m != 600 {
		t.Errorf("main wtime measured %v compensated %v", m, c)
	}
}

type collect struct{ qs *[]kb.TermQuad }

func (c *collect) Add(_ context.Context, q kb.TermQuad) error { *c.qs = append(*c.qs, q); return nil }
func (c *collect) Close(context.Context, error) error         { return nil }

func fmtSscan(s string, f *float64) (int, error) { return fmt.Sscan(s, f) }
