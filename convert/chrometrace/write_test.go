package chrometrace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/convert/trace/compensate"
)

func loadText(t *testing.T, path string) *trace.Mem {
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

// CheckFormat checks exported JSON against the Trace Event Format's rules
// for the phases perfkb writes, and against what Perfetto's JSON importer
// needs to show them (json_trace_parser.cc, json_trace_utils.cc): the
// object form with a traceEvents array; every event an object with a
// one-letter ph, name a string, pid and tid integers in uint32 range; X:
// numeric ts and dur ≥ 0; B/E: numeric ts; i: numeric ts and scope g, p
// or t; s/f: numeric ts, cat, name, id, f with bp "e", each flow id
// started once and finished once, and each inside a slice of its thread
// (flow v1 binds to the enclosing slice); M: process_name/thread_name with
// a string args.name, *_sort_index with an integer args.sort_index.
// Slices of one thread nest (Perfetto drops ones that overlap partially)
// and a tid belongs to one pid (Perfetto's threads are keyed by tid).
func CheckFormat(data []byte) error {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if u, ok := top["displayTimeUnit"]; ok && string(u) != `"ms"` && string(u) != `"ns"` {
		return fmt.Errorf("displayTimeUnit %s: want \"ms\" or \"ns\"", u)
	}
	var events []map[string]any
	d2 := json.NewDecoder(bytes.NewReader(top["traceEvents"]))
	d2.UseNumber()
	if err := d2.Decode(&events); err != nil {
		return fmt.Errorf("traceEvents is not an array of objects: %v", err)
	}
	num := func(e map[string]any, k string) (float64, bool) {
		n, ok := e[k].(json.Number)
		if !ok {
			return 0, false
		}
		f, err := n.Float64()
		return f, err == nil
	}
	integer := func(e map[string]any, k string) (int64, bool) {
		n, ok := e[k].(json.Number)
		if !ok {
			return 0, false
		}
		i, err := n.Int64()
		return i, err == nil
	}
	type slice struct{ ts, end float64 }
	slices := map[[2]int64][]slice{}
	type flowPt struct {
		ts  float64
		thr [2]int64
	}
	flows := map[string][2]int{}
	var points []flowPt
	tidPid := map[int64]int64{}
	for i, e := range events {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("traceEvents[%d] %v: %s", i, e, fmt.Sprintf(format, args...))
		}
		ph, ok := e["ph"].(string)
		if !ok || len(ph) != 1 {
			return bad("ph must be a one-letter string")
		}
		if _, ok := e["name"].(string); !ok {
			return bad("name must be a string")
		}
		pid, ok1 := integer(e, "pid")
		tid, ok2 := integer(e, "tid")
		if !ok1 || !ok2 || pid < 0 || tid < 0 || pid > math.MaxUint32 || tid > math.MaxUint32 {
			return bad("pid and tid must be integers in uint32 range")
		}
		if p, ok := tidPid[tid]; ok && p != pid {
			return bad("tid %d is used by pids %d and %d", tid, p, pid)
		}
		tidPid[tid] = pid
		if c, ok := e["cat"]; ok {
			if _, ok := c.(string); !ok {
				return bad("cat must be a string")
			}
		}
		if a, ok := e["args"]; ok {
			if _, ok := a.(map[string]any); !ok {
				return bad("args must be an object")
			}
		}
		thr := [2]int64{pid, tid}
		ts, hasTs := num(e, "ts")
		switch ph {
		case "X":
			dur, ok := num(e, "dur")
			if !hasTs || !ok || dur < 0 {
				return bad("X needs a numeric ts and dur >= 0")
			}
			slices[thr] = append(slices[thr], slice{ts, ts + dur})
		case "B", "E":
			if !hasTs {
				return bad("%s needs a numeric ts", ph)
			}
		case "i":
			if s, ok := e["s"].(string); !hasTs || !ok || (s != "g" && s != "p" && s != "t") {
				return bad("i needs a numeric ts and s in g, p, t")
			}
		case "s", "f":
			cat, ok := e["cat"].(string)
			if !hasTs || !ok || e["id"] == nil {
				return bad("%s needs ts, cat and id", ph)
			}
			if ph == "f" && e["bp"] != "e" {
				return bad("f needs bp \"e\"")
			}
			key := fmt.Sprint(cat, "/", e["name"], "/", e["id"])
			c := flows[key]
			if ph == "s" {
				c[0]++
			} else {
				c[1]++
			}
			flows[key] = c
			points = append(points, flowPt{ts, thr})
		case "M":
			args, _ := e["args"].(map[string]any)
			switch e["name"] {
			case "process_name", "thread_name":
				if _, ok := args["name"].(string); !ok {
					return bad("args.name must be a string")
				}
			case "process_sort_index", "thread_sort_index":
				n, ok := args["sort_index"].(json.Number)
				if _, err := n.Int64(); !ok || err != nil {
					return bad("args.sort_index must be an integer")
				}
			default:
				return bad("unknown metadata event")
			}
		default:
			return bad("phase %q is not one perfkb writes", ph)
		}
	}
	for k, c := range flows {
		if c != [2]int{1, 1} {
			return fmt.Errorf("flow %s has %d starts and %d ends; want one each", k, c[0], c[1])
		}
	}
	for thr, ss := range slices {
		sort.Slice(ss, func(i, j int) bool {
			if ss[i].ts != ss[j].ts {
				return ss[i].ts < ss[j].ts
			}
			return ss[i].end > ss[j].end
		})
		var stack []slice
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.ts {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s.end > stack[len(stack)-1].end+1e-9 {
				return fmt.Errorf("thread %v: slice %v overlaps %v without nesting", thr, s, stack[len(stack)-1])
			}
			stack = append(stack, s)
		}
	}
	for _, p := range points {
		inside := false
		for _, s := range slices[p.thr] {
			if s.ts <= p.ts && p.ts <= s.end {
				inside = true
				break
			}
		}
		if !inside {
			return fmt.Errorf("flow event at %v on thread %v is in no slice", p.ts, p.thr)
		}
	}
	return nil
}

// export writes src (merged, or compensated) as Chrome JSON.
func export(t *testing.T, src trace.Source, model *compensate.Model) []byte {
	t.Helper()
	var buf bytes.Buffer
	ctx := context.Background()
	d := *src.Defs()
	events := trace.Merge(ctx, src)
	if model != nil {
		d.Offsets = nil
		events = compensate.Stream(ctx, src, model, nil)
	}
	st, err := Write(ctx, &buf, &d, events)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stray != 0 || st.Unclosed != 0 {
		t.Errorf("export of a consistent trace: %+v", st)
	}
	return buf.Bytes()
}

// compensated holds the compensated event streams of src in memory.
func compensated(t *testing.T, src trace.Source, model *compensate.Model) *trace.Mem {
	t.Helper()
	d := *src.Defs()
	d.Offsets = nil
	m := &trace.Mem{D: d, Stream: make([][]trace.Event, len(d.Locations))}
	for e, err := range compensate.Stream(context.Background(), src, model, nil) {
		if err != nil {
			t.Fatal(err)
		}
		m.Stream[e.Loc] = append(m.Stream[e.Loc], e)
	}
	return m
}

func reimport(t *testing.T, data []byte) *trace.Mem {
	t.Helper()
	m, warnings, err := Read(data, "export.json")
	if err != nil {
		t.Fatalf("re-import: %v", err)
	}
	for _, w := range warnings {
		t.Errorf("re-import warns: %s", w)
	}
	return m
}

// fullStats is TRCSTAT per location (process, thread) and region name,
// with the message and waiting-time columns.
func fullStats(t *testing.T, src trace.Source) map[[2]int]map[string]trace.RegionStat {
	t.Helper()
	s, err := trace.Summarize(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]int]map[string]trace.RegionStat{}
	for _, r := range s.RegionStats(true) {
		l := src.Defs().Locations[r.Loc]
		k := [2]int{l.Process, l.Thread}
		if out[k] == nil {
			out[k] = map[string]trace.RegionStat{}
		}
		out[k][r.Name] = r
	}
	return out
}

// sameFullStats compares the message counts, bytes and waiting times of
// two traces' regions (times to the nanosecond the export keeps).
func sameFullStats(t *testing.T, want, got map[[2]int]map[string]trace.RegionStat) {
	t.Helper()
	for loc, regions := range want {
		for name, w := range regions {
			g := got[loc][name]
			if g.Msgs != w.Msgs || g.Bytes != w.Bytes || math.Abs(g.LSWait-w.LSWait) > 2e-3*float64(w.Count) || math.Abs(g.NxNWait-w.NxNWait) > 2e-3*float64(w.Count) {
				t.Errorf("location %v %s: re-imported msgs %d bytes %d ls_wait %v wnxn_wait %v, want %d %d %v %v",
					loc, name, g.Msgs, g.Bytes, g.LSWait, g.NxNWait, w.Msgs, w.Bytes, w.LSWait, w.NxNWait)
			}
		}
	}
}

// sameRegionStats compares per-location region statistics of two traces
// (locations by process and thread, regions by name), times to the
// nanosecond the export keeps.
func sameRegionStats(t *testing.T, want, got map[[2]int]map[string]stat) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d locations, want %d", len(got), len(want))
	}
	for loc, regions := range want {
		if len(got[loc]) != len(regions) {
			t.Errorf("location %v: regions %v, want %v", loc, got[loc], regions)
		}
		for name, w := range regions {
			g := got[loc][name]
			const ns = 1e-3
			if g.calls != w.calls || math.Abs(g.incl-w.incl) > ns*float64(w.calls) || math.Abs(g.excl-w.excl) > 2*ns*float64(w.calls) ||
				math.Abs(g.min-w.min) > ns || math.Abs(g.mx-w.mx) > ns {
				t.Errorf("location %v %s: re-imported %+v, want %+v", loc, name, g, w)
			}
		}
	}
}

func TestExportRoundTrip(t *testing.T) {
	cal := &compensate.Calibration{OverheadUs: 1, Copy: []compensate.CopyPoint{{Bytes: 1, NsPerByte: 1}}}
	for _, tc := range []struct {
		name  string
		src   func(t *testing.T) trace.Source
		model *compensate.Model
	}{
		{"valid.trace", func(t *testing.T) trace.Source { return loadText(t, "../trace/testdata/valid.trace") }, nil},
		{"valid.trace compensated", func(t *testing.T) trace.Source { return loadText(t, "../trace/testdata/valid.trace") },
			compensate.NewModel(cal, compensate.Lower)},
		{"be.json", func(t *testing.T) trace.Source {
			m, _, err := ReadFile("testdata/be.json")
			if err != nil {
				t.Fatal(err)
			}
			return m
		}, nil},
		{"synthetic", func(t *testing.T) trace.Source {
			return trace.NewSynthetic(4, 400)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src(t)
			data := export(t, src, tc.model)
			if err := CheckFormat(data); err != nil {
				t.Fatalf("export breaks the format: %v", err)
			}
			want := src
			if tc.model != nil {
				want = compensated(t, src, tc.model)
			}
			back := reimport(t, data)
			sameRegionStats(t, locStats(t, want), locStats(t, back))
			sameFullStats(t, fullStats(t, want), fullStats(t, back))
			if vs, err := trace.Check(context.Background(), back); err != nil || trace.AnyFatal(vs) {
				t.Errorf("the re-imported trace fails CHECKTRACE: %v %v", vs, err)
			}
		})
	}
}

// TestCheckFormatCatches makes sure the format check fails on what it
// forbids, so its passing means something.
func TestCheckFormatCatches(t *testing.T) {
	for _, bad := range []string{
		`[]`,
		`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0}]}`,
		`{"traceEvents":[{"ph":"X","name":"a","pid":-1,"tid":1,"ts":0,"dur":1}]}`,
		`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":5}]}`,
		`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"X","name":"b","pid":2,"tid":1,"ts":0,"dur":5}]}`,
		`{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"s","name":"m","cat":"c","id":1,"pid":1,"tid":1,"ts":1}]}`,
		`{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":3}}]}`,
		`{"traceEvents":[{"ph":"i","name":"a","pid":1,"tid":1,"ts":0,"s":"x"}]}`,
	} {
		if err := CheckFormat([]byte(bad)); err == nil {
			t.Errorf("CheckFormat accepts %s", bad)
		}
	}
}
