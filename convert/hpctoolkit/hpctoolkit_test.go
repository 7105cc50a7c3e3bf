package hpctoolkit

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var base = convert.MustBase("http://perfkb.example/hpctoolkit/")

type memSink struct{ qs []kb.TermQuad }

func (m *memSink) Add(_ context.Context, q kb.TermQuad) error { m.qs = append(m.qs, q); return nil }
func (m *memSink) Close(context.Context, error) error         { return nil }

// converted holds what a conversion says about its region summaries.
type converted struct {
	values   map[string]float64 // "<pu>/<ctx>/<metric>" → value
	children map[string][]string
	region   map[string]string // rs "<pu>/<ctx>" → region name
	inNode   map[string]string // processing unit IRI → inNode
	warnings []convert.Warning
}

func convertDB(t *testing.T, dir string) converted {
	t.Helper()
	sink := &memSink{}
	rep, err := New(dir, base, Options{}).Convert(context.Background(), sink)
	if err != nil {
		t.Fatal(err)
	}
	exp := base.String() + "exp/" + filepath.Base(dir) + "/rs/"
	c := converted{values: map[string]float64{}, children: map[string][]string{}, region: map[string]string{}, inNode: map[string]string{}, warnings: rep.Warnings}
	regionName := map[string]string{}
	ofRegion := map[string]string{}
	for _, q := range sink.qs {
		switch q.P.Value {
		case ontology.HasMetricValue:
			v, err := strconv.ParseFloat(q.O.Value, 64)
			if err != nil {
				t.Fatal(err)
			}
			c.values[strings.TrimPrefix(q.S.Value, exp)] = v
		case ontology.HasChildRS:
			p := strings.TrimPrefix(q.S.Value, exp)
			c.children[p] = append(c.children[p], strings.TrimPrefix(q.O.Value, exp))
		case ontology.RegionName:
			regionName[q.S.Value] = q.O.Value
		case ontology.OfCodeRegion:
			ofRegion[strings.TrimPrefix(q.S.Value, exp)] = q.O.Value
		case ontology.InNode:
			c.inNode[q.S.Value] = q.O.Value
		}
	}
	for rs, r := range ofRegion {
		c.region[rs] = regionName[r]
	}
	return c
}

// TestHandDecoded checks d.x (a real database of a.out under Linux perf
// "cycles": one thread, kernel stacks below main's loop) against values
// decoded by hand from profile.db's bytes. Its thread profile is the
// second {PI} (byte 0x70): pValues 0xc8, pCtxIndices 0x348, 39 contexts.
func TestHandDecoded(t *testing.T) {
	c := convertDB(t, filepath.Join("testdata", "d.x"))
	f64 := func(hex string) float64 { // 8 little-endian bytes
		var b [8]byte
		for i := range 8 {
			v, _ := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
			b[i] = byte(v)
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	}
	// Each {Val} is u16 metricId, f64 value: metric 0/1/2 is cycles in
	// the point/function/execution scope (meta.db Metrics section).
	for _, tc := range []struct {
		key  string
		at   string // byte offset of the {Val} in profile.db
		hex  string // its 8 value bytes
		want float64
	}{
		{"p0t0/2/TOT_CYC", "0xfa", "0000a06bdafc0b42", 15025786228},      // ctx 2 main, metric 2
		{"p0t0/2/excl_TOT_CYC", "0xf0", "000048437df60b42", 15012440169}, // metric 1
		{"p0t0/3/TOT_CYC", "0x10e", "0000a06bdafc0b42", 15025786228},     // ctx 3, the loop
		{"p0t0/3/excl_TOT_CYC", "0x104", "000048437df60b42", 15012440169},
		{"p0t0/6/excl_TOT_CYC", "0x14a", "0000000000405a40", 105}, // ctx 6, _stext
		{"p0t0/6/TOT_CYC", "0x154", "00000040a1746941", 13346058},
		{"p0t0/1/TOT_CYC", "0xe6", "0000b06bdafc0b42", 15025786230}, // the entry point
		{"p0t0/1/excl_TOT_CYC", "0xdc", "0000000000000040", 2},
	} {
		if f64(tc.hex) != tc.want {
			t.Fatalf("the test's own decoding of %s gives %v, not %v", tc.hex, f64(tc.hex), tc.want)
		}
		if got, ok := c.values[tc.key]; !ok || got != tc.want {
			t.Errorf("%s = %v (present %v), want %v (bytes at %s)", tc.key, got, ok, tc.want, tc.at)
		}
	}
	// The point scope (metric 0) and values of contexts meta.db does not
	// list (ctx 5, 7, …) are not converted.
	if _, ok := c.values["p0t0/5/TOT_CYC"]; ok {
		t.Error("converted ctx 5, which meta.db does not list")
	}
	warned := false
	for _, w := range c.warnings {
		if strings.Contains(w.Message, "meta.db does not list") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning about unlisted contexts: %v", c.warnings)
	}
	// The tree as meta.db's context section gives it (decoded by hand:
	// entry "main thread" 1 → main 2 → loop 3 → line 4 → _stext 6 and 35).
	for _, e := range [][2]string{{"p0t0/1", "p0t0/2"}, {"p0t0/2", "p0t0/3"}, {"p0t0/3", "p0t0/4"}, {"p0t0/4", "p0t0/6"}, {"p0t0/6", "p0t0/8"}, {"p0t0/6", "p0t0/16"}} {
		if !contains(c.children[e[0]], e[1]) {
			t.Errorf("no hasChildRS %s → %s; children %v", e[0], e[1], c.children[e[0]])
		}
	}
	for rs, want := range map[string]string{"p0t0/1": "main thread", "p0t0/2": "main", "p0t0/3": "loop at [a.out]:0", "p0t0/4": "[a.out]:0", "p0t0/6": "_stext [vmlinux]"} {
		if c.region[rs] != want {
			t.Errorf("%s is a summary of %q, want %q", rs, c.region[rs], want)
		}
	}
	// NODE identifier: physical host id 0x7f0101 (8323329) at 0xa8.
	if got := c.inNode[base.String()+"exp/d.x/pu/p0t0"]; got != "hostid 7f0101" {
		t.Errorf("thread inNode %q, want hostid 7f0101", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// cctValues decodes a cct.db (the context-major copy hpcprof writes of
// the same values) independently of the converter's profile.db reader:
// ctx → metric → profile index → value.
func cctValues(t *testing.T, path string) map[uint32]map[uint16]map[uint32]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if string(b[:14]) != "HPCTOOLKITctxt" || string(b[len(b)-8:]) != "__ctx.db" {
		t.Fatalf("%s is not a cct.db", path)
	}
	sec := le.Uint64(b[0x18:])
	pCtxs, nCtxs, szCtx := le.Uint64(b[sec:]), le.Uint32(b[sec+8:]), uint64(b[sec+12])
	out := map[uint32]map[uint16]map[uint32]float64{}
	for id := range nCtxs {
		at := pCtxs + uint64(id)*szCtx
		nValues, pValues := le.Uint64(b[at:]), le.Uint64(b[at+8:])
		nMetrics, pIdx := uint64(le.Uint16(b[at+0x10:])), le.Uint64(b[at+0x18:])
		for m := range nMetrics {
			mid := le.Uint16(b[pIdx+10*m:])
			start, end := le.Uint64(b[pIdx+10*m+2:]), nValues
			if m+1 < nMetrics {
				end = le.Uint64(b[pIdx+10*(m+1)+2:])
			}
			for v := start; v < end; v++ {
				prof := le.Uint32(b[pValues+12*v:])
				val := math.Float64frombits(le.Uint64(b[pValues+12*v+4:]))
				if out[id] == nil {
					out[id] = map[uint16]map[uint32]float64{}
				}
				if out[id][mid] == nil {
					out[id][mid] = map[uint32]float64{}
				}
				out[id][mid][prof] = val
			}
		}
	}
	return out
}

// TestAgainstCCTDB compares every converted value with cct.db, which
// hpcprof writes separately from profile.db (context-major), and checks
// that every execution/function value of a listed context was converted.
func TestAgainstCCTDB(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		prof   uint32 // profile.db index of the converted thread profile
		pu     string
		values int // converted values, at least
	}{
		{"d.x", 1, "p0t0", 20},
		{"issue-328", 3, "p0t0", 100},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.dir)
			c := convertDB(t, dir)
			cct := cctValues(t, filepath.Join(dir, "cct.db"))
			data, err := os.ReadFile(filepath.Join(dir, "meta.db"))
			if err != nil {
				t.Fatal(err)
			}
			meta, err := ReadMeta(data, "meta.db")
			if err != nil {
				t.Fatal(err)
			}
			names := map[uint16]metricOut{}
			for _, pm := range meta.Metrics {
				if o, ok := mapMetric(pm); ok {
					names[pm.ID] = o
				}
			}
			want := map[string]float64{}
			for id, ms := range cct {
				if id == 0 || meta.Context(id) == nil {
					continue
				}
				for mid, byProf := range ms {
					o, ok := names[mid]
					if !ok {
						continue
					}
					if v, ok := byProf[tc.prof]; ok {
						want[tc.pu+"/"+strconv.Itoa(int(id))+"/"+o.name] = v * o.scale
					}
				}
			}
			if len(want) < tc.values {
				t.Fatalf("cct.db gives %d values, expected at least %d", len(want), tc.values)
			}
			for k, w := range want {
				if got, ok := c.values[k]; !ok || math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
					t.Errorf("%s = %v (present %v); cct.db says %v", k, got, ok, w)
				}
			}
			for k := range c.values {
				if _, ok := want[k]; !ok {
					t.Errorf("converted %s = %v, which cct.db does not hold", k, c.values[k])
				}
			}
		})
	}
}

// TestIssue328Metrics: the GPU database's metric names and units
// (hand-read from meta.db's Metrics section).
func TestIssue328Metrics(t *testing.T) {
	for _, tc := range []struct {
		pm   PropMetric
		name string
		sc   float64
		ok   bool
	}{
		{PropMetric{Metric: "GSYNC:STR (sec)", Scope: "execution", ScopeType: scopeExecution}, "GSYNC_STR", 1e6, true},
		{PropMetric{Metric: "GSYNC:STR (sec)", Scope: "function", ScopeType: scopeTransit}, "excl_GSYNC_STR", 1e6, true},
		{PropMetric{Metric: "GXCOPY:D2A (B)", Scope: "execution", ScopeType: scopeExecution}, "GXCOPY_D2A_B", 1, true},
		{PropMetric{Metric: "REALTIME (sec)", Scope: "execution", ScopeType: scopeExecution}, "wtime", 1e6, true},
		{PropMetric{Metric: "CPUTIME (sec)", Scope: "function", ScopeType: scopeTransit}, "excl_ctime", 1e6, true},
		{PropMetric{Metric: "cycles", Scope: "execution", ScopeType: scopeExecution}, "TOT_CYC", 1, true},
		{PropMetric{Metric: "PAPI_L2_TCM", Scope: "function", ScopeType: scopeTransit}, "excl_L2_TCM", 1, true},
		{PropMetric{Metric: "cycles", Scope: "point", ScopeType: scopePoint}, "", 0, false},
		{PropMetric{Metric: "cycles", Scope: "lex_aware", ScopeType: scopeCustom}, "", 0, false},
	} {
		o, ok := mapMetric(tc.pm)
		if ok != tc.ok || ok && (o.name != tc.name || o.scale != tc.sc) {
			t.Errorf("%+v → %+v %v, want %s ×%v %v", tc.pm, o, ok, tc.name, tc.sc, tc.ok)
		}
	}
	c := convertDB(t, filepath.Join("testdata", "issue-328"))
	skipped := false
	for _, w := range c.warnings {
		if strings.Contains(w.Message, "GPUCONTEXT has no PERFONTO processing unit") {
			skipped = true
		}
	}
	if !skipped {
		t.Errorf("the GPU context profile (profile 2) is not reported as skipped: %v", c.warnings)
	}
}
