package pprof

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	rpprof "runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var base = convert.MustBase("http://perfkb.example/pprof/")

// The workload of the CPU profile: leaf does the work, called from inner
// and outer, so the functions have distinct flat and cumulative times.

//go:noinline
func workLeaf(n int) int {
	s := 0
	for i := range n {
		s += i * i % 7
	}
	return s
}

//go:noinline
func workInner(n int) int { return workLeaf(n) + workLeaf(n/2) }

//go:noinline
func workOuter(n int) int {
	s := 0
	for range 10 {
		s += workInner(n) + workLeaf(n/4)
	}
	return s
}

// The allocations of the heap profile.
var keep [][]byte

//go:noinline
func allocSmall() {
	for range 1000 {
		keep = append(keep, make([]byte, 64))
	}
}

//go:noinline
func allocLarge() {
	for range 10 {
		keep = append(keep, make([]byte, 1<<20))
	}
}

//go:noinline
func allocBoth() { allocSmall(); allocLarge() }

// writeCPUProfile profiles the workload with runtime/pprof until it has
// at least 20 samples (or 5 s passed).
func writeCPUProfile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rpprof.StartCPUProfile(f); err != nil {
		t.Skipf("CPU profiling unavailable: %v", err)
	}
	s := 0
	for i := 0; i < 60; i++ {
		s += workOuter(300_000)
		if i >= 5 && testing.Short() {
			break
		}
	}
	rpprof.StopCPUProfile()
	f.Close()
	if s == 42 {
		t.Log(s) // keeps the work from being optimised away
	}
	return path
}

// writeHeapProfile records every allocation (MemProfileRate 1) of the
// alloc functions and writes the heap profile with runtime/pprof.
func writeHeapProfile(t *testing.T) string {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	allocBoth()
	allocSmall()
	runtime.GC()
	path := filepath.Join(t.TempDir(), "heap.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := rpprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
	keep = nil
	return path
}

type memSink struct{ qs []kb.TermQuad }

func (m *memSink) Add(_ context.Context, q kb.TermQuad) error { m.qs = append(m.qs, q); return nil }
func (m *memSink) Close(context.Context, error) error         { return nil }

// flatCum reads per-function flat (sum of exclusive values) and cum (sum
// of inclusive values over call paths with no ancestor of the same
// function) of metric from converted triples.
func flatCum(qs []kb.TermQuad, incl, excl string) (flat, cum map[string]float64) {
	regionOf := map[string]string{}
	regionName := map[string]string{}
	parent := map[string]string{}
	metricName := map[string]string{}
	metricValue := map[string]float64{}
	rsMetrics := map[string][]string{}
	for _, q := range qs {
		switch q.P.Value {
		case ontology.OfCodeRegion:
			regionOf[q.S.Value] = q.O.Value
		case ontology.RegionName:
			regionName[q.S.Value] = q.O.Value
		case ontology.HasChildRS:
			parent[q.O.Value] = q.S.Value
		case ontology.HasMetric:
			rsMetrics[q.S.Value] = append(rsMetrics[q.S.Value], q.O.Value)
		case ontology.HasMetricName:
			metricName[q.S.Value] = q.O.Value
		case ontology.HasMetricValue:
			v, _ := strconv.ParseFloat(q.O.Value, 64)
			metricValue[q.S.Value] = v
		}
	}
	flat, cum = map[string]float64{}, map[string]float64{}
	for rs, reg := range regionOf {
		fn := regionName[reg]
		recursive := false
		for p := parent[rs]; p != ""; p = parent[p] {
			if regionOf[p] == reg {
				recursive = true
			}
		}
		for _, m := range rsMetrics[rs] {
			switch metricName[m] {
			case excl:
				flat[fn] += metricValue[m]
			case incl:
				if !recursive {
					cum[fn] += metricValue[m]
				}
			}
		}
	}
	return flat, cum
}

// pprofTop runs `go tool pprof -top` (the format's reference tool) on a
// profile and returns flat and cum per function of one sample type, in
// the unit given (ns, B or a plain count).
func pprofTop(t *testing.T, path, sampleIndex, unit string) (flat, cum map[string]float64) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool pprof is not available (no go command on PATH): %v", err)
	}
	args := []string{"tool", "pprof", "-top", "-nodecount=0", "-nodefraction=0", "-edgefraction=0", "-sample_index=" + sampleIndex}
	if unit != "" {
		args = append(args, "-unit="+unit)
	}
	out, err := exec.Command(gobin, append(args, path)...).Output()
	if err != nil {
		t.Fatalf("go tool pprof: %v", err)
	}
	num := func(s string) float64 {
		s = strings.TrimSuffix(strings.TrimSuffix(s, "ns"), "B")
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("go tool pprof printed %q", s)
		}
		return v
	}
	flat, cum = map[string]float64{}, map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	table := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 5 && f[0] == "flat" && f[3] == "cum" {
			table = true
			continue
		}
		if !table || len(f) < 6 {
			continue
		}
		// pprof keeps inlined and partly inlined calls of a function
		// apart ("f (inline)", "f (partial-inline)"); the converter names
		// regions by function.
		name := strings.Join(f[5:], " ")
		name = strings.TrimSuffix(strings.TrimSuffix(name, " (inline)"), " (partial-inline)")
		flat[name] += num(f[0])
		cum[name] += num(f[3])
	}
	if len(flat) == 0 {
		t.Fatalf("no functions in go tool pprof's output:\n%s", out)
	}
	return flat, cum
}

func TestRealProfilesAgainstGoToolPprof(t *testing.T) {
	type metric struct {
		sampleIndex, unit string
		incl, excl        string
		scale             float64 // converter value = pprof value × scale
	}
	cpu := []metric{
		{"cpu", "ns", "ctime", "excl_ctime", 1e-3},
		{"samples", "", "samples", "excl_samples", 1},
	}
	heap := []metric{
		{"alloc_space", "B", "alloc_space", "excl_alloc_space", 1},
		{"alloc_objects", "", "alloc_objects", "excl_alloc_objects", 1},
		{"inuse_space", "B", "inuse_space", "excl_inuse_space", 1},
	}
	for _, tc := range []struct {
		name    string
		path    func(t *testing.T) string
		metrics []metric
		must    []string // functions the profile must show
	}{
		{"cpu", writeCPUProfile, cpu, []string{"github.com/perfkb/perfkb/convert/pprof.workLeaf"}},
		{"heap", writeHeapProfile, heap, []string{"github.com/perfkb/perfkb/convert/pprof.allocSmall", "github.com/perfkb/perfkb/convert/pprof.allocLarge"}},
		{"fixture", func(*testing.T) string { return filepath.Join("testdata", "cpu.pb.gz") }, cpu, []string{"main.leaf", "main.inner", "main.outer", "main.main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			sink := &memSink{}
			if _, err := New(path, base, Options{}).Convert(context.Background(), sink); err != nil {
				t.Fatal(err)
			}
			for _, m := range tc.metrics {
				wantFlat, wantCum := pprofTop(t, path, m.sampleIndex, m.unit)
				gotFlat, gotCum := flatCum(sink.qs, m.incl, m.excl)
				for _, fn := range tc.must {
					if _, ok := wantCum[fn]; !ok {
						t.Errorf("go tool pprof does not show %s", fn)
					}
				}
				for fn, w := range wantCum {
					if !near(gotCum[fn], w*m.scale) || !near(gotFlat[fn], wantFlat[fn]*m.scale) {
						t.Errorf("%s %s: flat %v cum %v, go tool pprof says flat %v cum %v (×%v)", m.sampleIndex, fn, gotFlat[fn], gotCum[fn], wantFlat[fn], w, m.scale)
					}
				}
				// pprof leaves out functions whose samples are all 0 for
				// the sample type.
				for fn, v := range gotCum {
					if _, ok := wantCum[fn]; !ok && (v != 0 || gotFlat[fn] != 0) {
						t.Errorf("%s: function %s (cum %v) is not in go tool pprof's output", m.sampleIndex, fn, v)
					}
				}
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestTreeByHand builds a profile with the profile package (recursion,
// inlined frames, two sample types) and checks the call-path tree against
// values computed by hand.
func TestTreeByHand(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, Filename: "x.go"}
	}
	mainF, a, b, inl := fn(1, "main"), fn(2, "a"), fn(3, "b"), fn(4, "inl")
	loc := func(id uint64, fs ...*profile.Function) *profile.Location {
		l := &profile.Location{ID: id, Address: 0x1000 + id}
		for _, f := range fs {
			l.Line = append(l.Line, profile.Line{Function: f})
		}
		return l
	}
	lMain, lA, lB, lBInl := loc(1, mainF), loc(2, a), loc(3, b), loc(4, inl, b) // inl inlined into b
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1000,
		Function: []*profile.Function{mainF, a, b, inl},
		Location: []*profile.Location{lMain, lA, lB, lBInl},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lA, lMain}, Value: []int64{2, 2000}},         // main > a
			{Location: []*profile.Location{lBInl, lA, lMain}, Value: []int64{3, 3000}},  // main > a > b > inl
			{Location: []*profile.Location{lA, lB, lA, lMain}, Value: []int64{5, 5000}}, // main > a > b > a
			{Location: []*profile.Location{lMain}, Value: []int64{1, 1000}},             // main
		},
	}
	path := filepath.Join(t.TempDir(), "hand.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sink := &memSink{}
	if _, err := New(path, base, Options{}).Convert(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	values := map[string]float64{} // "<path>/<metric>" → value
	prefix := base.String() + "exp/hand.pb.gz/rs/p0t0/"
	for _, q := range sink.qs {
		if q.P.Value == ontology.HasMetricValue && strings.HasPrefix(q.S.Value, prefix) {
			v, _ := strconv.ParseFloat(q.O.Value, 64)
			values[strings.TrimPrefix(q.S.Value, prefix)] = v
		}
	}
	seg := convert.EscapeSegment
	want := map[string]float64{
		seg("main") + "/samples": 11, seg("main") + "/excl_samples": 1, seg("main") + "/ctime": 11, seg("main") + "/excl_ctime": 1,
		seg("main => a") + "/samples": 10, seg("main => a") + "/excl_samples": 2,
		seg("main => a => b") + "/samples": 8, seg("main => a => b") + "/excl_samples": 0,
		seg("main => a => b => inl") + "/samples": 3, seg("main => a => b => inl") + "/excl_samples": 3,
		seg("main => a => b => a") + "/samples": 5, seg("main => a => b => a") + "/excl_ctime": 5,
	}
	for k, w := range want {
		if g, ok := values[k]; !ok || g != w {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, w)
		}
	}
	if n := len(values); n != 5*4 {
		t.Errorf("%d metric values, want 20 (5 call paths × 2 sample types × inclusive, exclusive)", n)
	}
	// The tree: each call path but main has its parent.
	children := 0
	for _, q := range sink.qs {
		if q.P.Value == ontology.HasChildRS {
			children++
		}
	}
	if children != 4 {
		t.Errorf("%d hasChildRS, want 4", children)
	}
}
