package cube

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/internal/oracle"
	"github.com/perfkb/perfkb/ontology"
)

func TestSuite(t *testing.T) {
	synthetic := func(name string, corrupt func(member string, b []byte) []byte, want ...string) converttest.BadCase {
		return converttest.BadCase{Name: name, Want: want, New: func(t testing.TB) convert.Converter {
			w := scalasca()
			w.corrupt = corrupt
			return New(w.write(t, t.TempDir(), "x/scout.cubex"), base, Options{})
		}}
	}
	only := func(member string, f func(b []byte) []byte) func(string, []byte) []byte {
		return func(m string, b []byte) []byte {
			if m == member {
				return f(bytes.Clone(b))
			}
			return b
		}
	}
	file := func(name string, data func(t testing.TB) []byte, want ...string) converttest.BadCase {
		return converttest.BadCase{Name: name, Want: want, New: func(t testing.TB) convert.Converter {
			path := filepath.Join(t.TempDir(), "bad.cubex")
			if err := os.WriteFile(path, data(t), 0o644); err != nil {
				t.Fatal(err)
			}
			return New(path, base, Options{})
		}}
	}
	real := func(t testing.TB) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "call_tree_test", "call_tree_test.cubex"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(scalasca().write(t, t.TempDir(), "x/scout.cubex"), base, Options{})
		},
		Bad: []converttest.BadCase{
			file("truncated archive", func(t testing.TB) []byte { return real(t)[:60000] },
				"bad.cubex: byte 0:", "truncated archive", `"remapping.spec"`),
			file("truncated after a member", func(t testing.TB) []byte { return real(t)[:111364+512+512+100] },
				"bad.cubex: byte 112128", "truncated archive"),
			file("not a tar archive", func(testing.TB) []byte { return bytes.Repeat([]byte("not a cube file\n"), 40) },
				"byte 0", "not a tar header"),
			synthetic("wrong zlib stream", only("2.data", func(b []byte) []byte {
				seg := 11 + 8 + 24*int(binary.LittleEndian.Uint64(b[11:])) // magic, count, segment headers
				copy(b[seg+2:], []byte{0xde, 0xad, 0xbe, 0xef, 0xde, 0xad})
				return b
			}), "2.data segment 0 byte 67 (archive byte", "zlib"),
			synthetic("XML that is not CUBE", only("anchor.xml", func([]byte) []byte {
				return []byte("<?xml version=\"1.0\"?>\n<html><body/></html>\n")
			}), "anchor.xml:2:1", "expected a <cube> root element"),
			synthetic("XML cut short", only("anchor.xml", func(b []byte) []byte { return b[:len(b)/2] }),
				"anchor.xml:", "XML syntax"),
			synthetic("index header", only("0.index", func(b []byte) []byte { b[0] = 'X'; return b }),
				"0.index byte 0 (archive byte", `expected the index header "CUBEX.INDEX"`),
			synthetic("index entry out of range", only("0.index", func(b []byte) []byte { b[22+4*3] = 99; return b }),
				"0.index entry 3 byte 34", "call-tree index 99 out of range"),
			synthetic("data too short", only("1.data", func(b []byte) []byte { return b[:len(b)-3] }),
				"1.data byte", "expected 10 cnodes × 2 locations × 8-byte UINT64 values = 160 bytes"),
		},
	})
}

// TestBadChecksumRead reads an archive whose first tar header has a wrong
// checksum, as CubeWriter 4.8 writes them, with a warning.
func TestBadChecksumRead(t *testing.T) {
	path := scalasca().write(t, t.TempDir(), "x/scout.cubex")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := converttest.Sorted(t, New(path, base, Options{}))
	copy(b[148:156], "0013071\x00")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, rep := converttest.Sorted(t, New(path, base, Options{}))
	if !bytes.Equal(got, want) {
		t.Error("a wrong tar checksum changed the conversion")
	}
	if rep.WarningCount == 0 || !strings.Contains(rep.Warnings[0].String(), "archive byte 0: 1 tar header(s) with a wrong checksum") {
		t.Errorf("warnings %v", rep.Warnings)
	}
}

// TestGzippedArchive converts a gzip-compressed .cubex like the plain one.
func TestGzippedArchive(t *testing.T) {
	dir := t.TempDir()
	path := scalasca().write(t, dir, "x/scout.cubex")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	want, _ := converttest.Sorted(t, New(path, base, Options{}))
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := converttest.Sorted(t, New(path, base, Options{})); !bytes.Equal(got, want) {
		t.Error("the gzip-compressed archive converts differently")
	}
}

// pycubexrScript prints what pycubexr reads from a .cubex: every scalar
// metric's stored value per (cnode, location), the exclusive value of the
// inclusive ones (pycubexr's convert_to_exclusive), the metrics it cannot
// read as numbers, and the call tree's parent → child edges.
const pycubexrScript = `
import json, sys
import numpy as np
from pycubexr import CubexParser
vals, metrics, skipped, edges = {}, {}, [], []
def num(v):
    v = getattr(v, "_values", v)
    if isinstance(v, np.ndarray):
        v = v.item()
    return float(v)
with CubexParser(sys.argv[1]) as cubex:
    for cn in cubex.all_cnodes():
        for k in cn.get_children():
            edges.append([cn.id, k.id])
    for m in cubex.all_metrics():
        try:
            mv = cubex.get_metric_values(m)
            row = {}
            for cn in cubex.all_cnodes():
                kinds = [("raw", {})]
                if m.metric_type == "INCLUSIVE":
                    kinds.append(("excl", {"convert_to_exclusive": True}))
                for kind, kw in kinds:
                    for loc, v in enumerate(mv.cnode_values(cn, **kw)):
                        row["%d %d %s" % (cn.id, loc, kind)] = num(v)
        except Exception as e:
            skipped.append("%s (%s): %s" % (m.name, m.data_type, type(e).__name__))
            continue
        metrics[m.name] = {"type": m.metric_type, "dtype": m.data_type}
        vals[m.name] = row
json.dump({"metrics": metrics, "values": vals, "skipped": skipped, "edges": edges}, sys.stdout)
`

// pycubexrOut is pycubexrScript's output.
type pycubexrOut struct {
	Metrics map[string]struct{ Type, Dtype string }
	Values  map[string]map[string]float64 // metric → "cnode location raw|excl" → value
	Skipped []string
	Edges   [][2]int
}

// TestAgainstPycubexr compares every scalar metric value (stored and, for
// inclusive metrics, exclusive) and the call-tree edges with pycubexr, the
// independent reader. Comparable: a metric's stored value is perfkb's value
// of MetricName(metric); an inclusive metric's exclusive value is perfkb's
// excl_ value, except for MIN/MAXDOUBLE metrics, whose values do not add up
// (perfkb writes no exclusive value; pycubexr subtracts with min/max) and
// for unsigned counters whose exclusive value would be negative (pycubexr
// clamps it to 0; perfkb keeps the difference, which the test computes from
// pycubexr's stored values). Scalasca's
// mpi_wait_nxn and mpi_barrier_wait are compared through their sum,
// wnxn_wait.
func TestAgainstPycubexr(t *testing.T) {
	py := oracle.Python(t, "pycubexr")
	for _, tc := range []struct {
		path string
		pu   func(loc int) (int, int)
	}{
		{filepath.Join("testdata", "call_tree_test", "call_tree_test.cubex"), func(int) (int, int) { return 0, 0 }},
		{filepath.Join("testdata", "time.p4", "profile.cubex"), func(l int) (int, int) { return l, 0 }},
		// Locations 0 and 2 are threads of process 0, 1 and 3 of process 1.
		{filepath.Join("testdata", "cube-values_example.cubex"), func(l int) (int, int) { return l % 2, l }},
		// Scalasca 2.6's trace analysis: one location per MPI rank.
		{scoutPath, func(l int) (int, int) { return l, 0 }},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.path))+"/"+filepath.Base(tc.path), func(t *testing.T) {
			out, err := exec.CommandContext(context.Background(), py, "-c", pycubexrScript, tc.path).Output()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("pycubexr: %v\n%s", err, ee.Stderr)
			} else if err != nil {
				t.Fatal(err)
			}
			var want pycubexrOut
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			c, rep := convertFile(t, tc.path)
			// Compound types perfkb skips with a warning (doc.go).
			notScalar := map[string]bool{}
			for _, w := range rep.Warnings {
				if strings.Contains(w.Message, "is not a scalar") {
					notScalar[strings.Trim(strings.Fields(w.Message)[1], `":`)] = true
				}
			}
			rs := func(cn, loc int) string { p, th := tc.pu(loc); return rsOf(tc.path, p, th, cn) }
			type key struct {
				name    string
				cn, loc int
			}
			expect := map[key]float64{}
			clamped := 0
			carries := map[[2]int]bool{} // (cnode, location) with a non-zero value
			for m, row := range want.Values {
				info := want.Metrics[m]
				if notScalar[m] {
					continue
				}
				name, scale := MetricName(m)
				if info.Dtype != "DOUBLE" && info.Dtype != "FLOAT" && info.Dtype != "MINDOUBLE" && info.Dtype != "MAXDOUBLE" {
					scale = 1 // integer values are written as stored
				}
				for k, v := range row {
					var cn, loc int
					var kind string
					if _, err := fmt.Sscan(k, &cn, &loc, &kind); err != nil {
						t.Fatal(err)
					}
					n := name
					switch {
					case kind == "excl" && (info.Dtype == "MINDOUBLE" || info.Dtype == "MAXDOUBLE"):
						continue
					case kind == "excl":
						n = "excl_" + name
						if strings.HasPrefix(info.Dtype, "UINT") && v == 0 {
							// pycubexr clamps a negative unsigned difference
							// to 0; perfkb keeps it: compare with the
							// difference of pycubexr's stored values.
							d := row[fmt.Sprintf("%d %d raw", cn, loc)]
							for _, e := range want.Edges {
								if e[0] == cn {
									d -= row[fmt.Sprintf("%d %d raw", e[1], loc)]
								}
							}
							if d < 0 {
								v = d
								clamped++
							}
						}
					}
					if kind == "raw" && v != 0 {
						carries[[2]int{cn, loc}] = true
					}
					expect[key{n, cn, loc}] += v * scale
				}
			}
			compared, equal := 0, 0
			for k, v := range expect {
				got, ok := metricValue(t, c, rs(k.cn, k.loc), k.name)
				if !ok && v == 0 {
					continue // a zero value is absent, as in CUBE
				}
				compared++
				if !ok || math.Abs(got-v) > 1e-9*math.Max(1, math.Abs(v)) {
					t.Errorf("cnode %d location %d: %s = %v (present %v), pycubexr %v", k.cn, k.loc, k.name, got, ok, v)
					continue
				}
				equal++
			}
			// Every value perfkb writes is one pycubexr has.
			written := 0
			for _, q := range c.qs {
				if q.P.Value == ontology.HasMetricValue {
					written++
				}
			}
			if written != compared {
				t.Errorf("perfkb wrote %d metric values, pycubexr's non-zero comparable ones are %d", written, compared)
			}
			// Edges: pycubexr's parent → child pairs at every location where
			// the child carries a value.
			var wantEdges []string
			locs := 0
			for k := range carries {
				locs = max(locs, k[1]+1)
			}
			for _, e := range want.Edges {
				for loc := range locs {
					if carries[[2]int{e[1], loc}] {
						wantEdges = append(wantEdges, rs(e[0], loc)+" -> "+rs(e[1], loc))
					}
				}
			}
			sort.Strings(wantEdges)
			gotEdges := edges(c)
			if !slices.Equal(gotEdges, wantEdges) {
				t.Errorf("hasChildRS edges differ from pycubexr's:\n got %d %v\nwant %d %v", len(gotEdges), gotEdges, len(wantEdges), wantEdges)
			}
			t.Logf("%s: %d of %d metric values equal pycubexr's (%d of them clamped to 0 by pycubexr; %d metrics; not read by pycubexr: %v; skipped by perfkb: %v); %d of %d call-tree edges (%d cnode edges × locations carrying values)",
				tc.path, equal, compared, clamped, len(want.Values), want.Skipped, slices.Sorted(maps.Keys(notScalar)), len(gotEdges), len(wantEdges), len(want.Edges))
		})
	}
}
