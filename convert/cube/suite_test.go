package cube

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
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

// pycubexrScript prints, for every cnode, location and metric, the
// inclusive and exclusive values pycubexr reads.
const pycubexrScript = `
import json, sys
from pycubexr import CubexParser
out = {}
with CubexParser(sys.argv[1]) as cubex:
    for m in cubex.get_metrics():
        try:
            mv = cubex.get_metric_values(m)
        except Exception:
            continue
        for cn in cubex.all_cnodes():
            for kind, kw in (("incl", {"convert_to_inclusive": True}), ("excl", {"convert_to_exclusive": True})):
                for loc, v in enumerate(mv.cnode_values(cn, **kw)):
                    out["%s %d %d %s" % (m.name, cn.id, loc, kind)] = float(v)
json.dump(out, sys.stdout)
`

// TestAgainstPycubexr compares time and visits with pycubexr, the
// independent reader, when it is installed.
func TestAgainstPycubexr(t *testing.T) {
	if err := exec.Command("python3", "-c", "import pycubexr").Run(); err != nil {
		t.Skipf("pycubexr is not installed (PyPI is not reachable here; pip install pycubexr to run this oracle): %v", err)
	}
	for _, tc := range []struct {
		path string
		pu   func(loc int) (int, int)
	}{
		{filepath.Join("testdata", "call_tree_test", "call_tree_test.cubex"), func(int) (int, int) { return 0, 0 }},
		{filepath.Join("testdata", "time.p4", "profile.cubex"), func(l int) (int, int) { return l, 0 }},
	} {
		out, err := exec.CommandContext(context.Background(), "python3", "-c", pycubexrScript, tc.path).Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("pycubexr: %v\n%s", err, ee.Stderr)
		} else if err != nil {
			t.Fatal(err)
		}
		var want map[string]float64
		if err := json.Unmarshal(out, &want); err != nil {
			t.Fatal(err)
		}
		c, _ := convertFile(t, tc.path)
		checked := 0
		for k, v := range want {
			var metric, kind string
			var cn, loc int
			if _, err := fmt.Sscan(k, &metric, &cn, &loc, &kind); err != nil {
				t.Fatal(err)
			}
			m, ok := map[[2]string]struct {
				name  string
				scale float64
			}{
				{"time", "incl"}: {"wtime", 1e6}, {"time", "excl"}: {"excl_wtime", 1e6}, {"visits", "excl"}: {"ncalls", 1},
			}[[2]string{metric, kind}]
			if !ok {
				continue
			}
			p, th := tc.pu(loc)
			got, ok := metricValue(t, c, rsOf(tc.path, p, th, cn), m.name)
			if !ok && v == 0 {
				continue
			}
			if !near(got, v*m.scale) {
				t.Errorf("%s: %s = %g, pycubexr %g", k, m.name, got, v*m.scale)
			}
			checked++
		}
		t.Logf("%s: %d values equal pycubexr's", tc.path, checked)
	}
}
