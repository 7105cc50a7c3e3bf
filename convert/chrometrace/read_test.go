package chrometrace

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/convert/trace/traceconv"
	"github.com/perfkb/perfkb/textpos"
)

var base = convert.MustBase("http://perfkb.example/chrome/")

// stat is a hand-computed region statistic of one location (µs).
type stat struct {
	calls               int64
	incl, excl, min, mx float64
}

// locStats summarises a trace per location (process, thread) and region.
func locStats(t *testing.T, src trace.Source) map[[2]int]map[string]stat {
	t.Helper()
	s, err := trace.Summarize(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	d := src.Defs()
	out := map[[2]int]map[string]stat{}
	for _, r := range s.RegionStats(true) {
		l := d.Locations[r.Loc]
		k := [2]int{l.Process, l.Thread}
		if out[k] == nil {
			out[k] = map[string]stat{}
		}
		out[k][r.Name] = stat{r.Count, r.Total, r.Excl, r.Min, r.Max}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestReadByHand(t *testing.T) {
	tests := []struct {
		file     string
		want     map[[2]int]map[string]stat
		warnings []string
	}{
		{
			// PerfFlowAspect's smoketest (Hatchet's test data): four calls of
			// foo ⊃ bar ⊃ bas on one thread, listed children first.
			file: "perfflow-smoketest.pfw",
			want: map[[2]int]map[string]stat{{3515331, 0}: {
				"foo": {4, 28946 + 30211 + 28653 + 28618, (28946 + 30211 + 28653 + 28618) - (15916 + 17722 + 16776 + 16893), 28618, 30211},
				"bar": {4, 15916 + 17722 + 16776 + 16893, (15916 + 17722 + 16776 + 16893) - (5362 + 6171 + 4118 + 4609), 15916, 17722},
				"bas": {4, 5362 + 6171 + 4118 + 4609, 5362 + 6171 + 4118 + 4609, 4118, 6171},
			}},
		},
		{
			// B/E pairs (one E without a name), X events inside them, string
			// tid and ts, an instant event that is ignored.
			file: "be.json",
			want: map[[2]int]map[string]stat{
				{7, 0}: {
					"main":     {1, 200, 200 - 20 - 50.25 - 30, 200, 200},
					"MPI_Send": {1, 20, 20, 20, 20},
					"compute":  {2, 80.25, 80.25, 30, 50.25},
				},
				{7, 1}: {"worker": {1, 100, 100, 100, 100}},
				{9, 0}: {
					"main":     {1, 345, 345 - 30.5, 345, 345},
					"MPI_Recv": {1, 30.5, 30.5, 30.5, 30.5},
				},
			},
			warnings: []string{`1 events of phase "i" ignored (first: traceEvents[9])`},
		},
		{
			// A child that outlives its parent is cut at the parent's end.
			file: "overlap.json",
			want: map[[2]int]map[string]stat{{1, 0}: {
				"outer": {1, 10, 5, 10, 10},
				"child": {1, 5, 5, 5, 5},
			}},
			warnings: []string{`"child" (5 .. 15 µs) overlaps the end of the enclosing "outer" (traceEvents[0], ends 10 µs); cut at that end`},
		},
		{
			// The bare array form, cut after an event as a killed tracer leaves it.
			file: "array.json",
			want: map[[2]int]map[string]stat{{1, 0}: {
				"outer": {1, 10, 7, 10, 10},
				"inner": {1, 3, 3, 3, 3},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m, warnings, err := ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if vs, err := trace.Check(context.Background(), m); err != nil || trace.AnyFatal(vs) {
				t.Errorf("CHECKTRACE: %v %v", vs, err)
			}
			got := locStats(t, m)
			if len(got) != len(tc.want) {
				t.Errorf("locations %v, want %d", got, len(tc.want))
			}
			for loc, regions := range tc.want {
				if len(got[loc]) != len(regions) {
					t.Errorf("location %v has regions %v, want %d", loc, got[loc], len(regions))
				}
				for name, w := range regions {
					g, ok := got[loc][name]
					if !ok {
						t.Errorf("location %v: no region %q", loc, name)
						continue
					}
					if g.calls != w.calls || !near(g.incl, w.incl) || !near(g.excl, w.excl) || !near(g.min, w.min) || !near(g.mx, w.mx) {
						t.Errorf("location %v %s: got %+v, want %+v", loc, name, g, w)
					}
				}
			}
			if len(warnings) != len(tc.warnings) {
				t.Errorf("warnings %v, want %v", warnings, tc.warnings)
			}
			for i, w := range tc.warnings {
				if i < len(warnings) && !strings.Contains(warnings[i].Message, w) {
					t.Errorf("warning %q, want %q", warnings[i], w)
				}
			}
		})
	}
}

// badCases are invalid traces with the position (hand-counted: line,
// column, byte offset, event index) their error must give.
var badCases = []struct{ file, pos, msg string }{
	{"unmatched-end.json", "unmatched-end.json:4:2: traceEvents[2] (byte 120)", "has no open begin (B) event"},
	// The E without a name closes the innermost B, "solve".
	{"unclosed-begin.json", "unclosed-begin.json:2:2: traceEvents[0] (byte 19)", `"main" at 0 µs is never ended`},
	{"mismatched-end.json", "mismatched-end.json:4:2: traceEvents[2] (byte 120)", `does not match the open begin (B) event "solve"`},
	{"truncated.json", "truncated.json:3:38: traceEvents[1] (byte 114)", "the JSON ends early"},
	{"no-dur.json", "no-dur.json:2:2: traceEvents[0] (byte 19)", "needs dur"},
	{"ts-type.json", "ts-type.json:2:2: traceEvents[0] (byte 19)", "ts must be a number"},
	{"syntax.json", "syntax.json:3:", "invalid JSON"},
	{"no-events.json", "no-events.json:1:1: byte 0", "nothing to convert"},
}

func TestBadInput(t *testing.T) {
	for _, bc := range badCases {
		t.Run(bc.file, func(t *testing.T) {
			_, _, err := ReadFile(filepath.Join("testdata", "bad", bc.file))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), bc.pos) || !strings.Contains(err.Error(), bc.msg) {
				t.Errorf("error %q\nwant position %q and %q", err, bc.pos, bc.msg)
			}
			var tp *textpos.Error
			if !errors.As(err, &tp) || tp.Pos.Line == 0 {
				t.Errorf("error %q carries no textpos.Error", err)
			}
		})
	}
}

func TestConformance(t *testing.T) {
	var bad []converttest.BadCase
	for _, bc := range badCases {
		bad = append(bad, converttest.BadCase{Name: bc.file, Want: []string{bc.pos, bc.msg}, New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "bad", bc.file), base, traceconv.Options{})
		}})
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "be.json"), base, traceconv.Options{Events: true})
		},
		Bad: bad,
	})
}

// TestReportWarnings: the reader's warnings reach the conversion report.
func TestReportWarnings(t *testing.T) {
	rep, err := convert.Run(context.Background(), New(filepath.Join("testdata", "be.json"), base, traceconv.Options{}),
		convert.NewNTriplesSink(&strings.Builder{}, false))
	if err != nil {
		t.Fatal(err)
	}
	if rep.WarningCount != 1 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Message, `phase "i"`) {
		t.Errorf("report warnings %d %v", rep.WarningCount, rep.Warnings)
	}
}

func TestDecimalNanos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want trace.Time
		ok   bool
	}{
		{"0", 0, true}, {"12", 12000, true}, {"1.5", 1500, true}, {"1.0005", 1001, true}, {"1.0004", 1000, true},
		{"-2.25", -2250, true}, {"1719943252600542", 1719943252600542000, true}, {"9000000000000001", 0, false}, {"1e3", 0, false}, {"", 0, false}, {"1.x", 0, false},
	} {
		got, ok := decimalNanos(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("decimalNanos(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
