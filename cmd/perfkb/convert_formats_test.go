package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatCLIs converts a real sample of each tool format into a store,
// checks that a bad input exits 1 with its position and leaves the store
// as it was, runs the shipped rules and reads the converted call tree.
func TestFormatCLIs(t *testing.T) {
	td := func(format string, p ...string) string {
		return filepath.Join(append([]string{"..", "..", "convert", format, "testdata"}, p...)...)
	}
	write := func(name string, b []byte) func(t *testing.T) string {
		return func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	for _, tc := range []struct {
		name, format, input string
		bad                 func(t *testing.T) string
		badWant             string
		// tree: the experiment, metric and what the tree must show.
		exp, metric string
		treeWant    []string
		// more checks on the store after the good conversion.
		more func(t *testing.T, store, dump string)
	}{
		{
			name: "caliper", format: "caliper", input: td("caliper", "lulesh-annotation-profile.cali"),
			bad:     write("bad.cali", []byte("__rec=node,id=12,attr=10,data=64,parent=3\n__rec=node,id=13,attr=8,data=f,parent=99\n")),
			badWant: "bad.cali:2:32",
			// main's inclusive time: 492491 µs (TestLuleshCali).
			exp: "exp/lulesh-annotation-profile.cali", metric: "wtime", treeWant: []string{"lulesh.cycle", "492491"},
			more: func(t *testing.T, store, _ string) {
				if code, _, _ := runCmd(t, "convert", "caliper", td("caliper", "spot-lulesh.cali"), "--base", "http://perfkb.example/c/", "--time-unit", "h", "--store", store); code != exitUsage {
					t.Errorf("--time-unit h: exit %d, want %d", code, exitUsage)
				}
			},
		},
		{
			name: "hpctoolkit", format: "hpctoolkit", input: td("hpctoolkit", "d.x"),
			bad: func(t *testing.T) string {
				bad := filepath.Join(t.TempDir(), "bad")
				if err := os.Mkdir(bad, 0o755); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{"meta.db", "profile.db"} {
					b, err := os.ReadFile(td("hpctoolkit", "d.x", f))
					if err != nil {
						t.Fatal(err)
					}
					if f == "meta.db" {
						b = b[:1000]
					}
					if err := os.WriteFile(filepath.Join(bad, f), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return bad
			},
			badWant: "meta.db: byte 992 (footer)",
			// main's loop under main, with main's inclusive cycles
			// (15025786228, TestHandDecoded).
			exp: "exp/d.x", metric: "TOT_CYC", treeWant: []string{"loop at [a.out]:0", "15025786228"},
		},
		{
			name: "hpctoolkit experiment.xml", format: "hpctoolkit", input: td("hpctoolkit", "xml", "hpctoolkit-cpi-database"),
			bad: func(t *testing.T) string {
				dir := filepath.Dir(write("experiment.xml", []byte("<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"2.0\"><Header>\n"))(t))
				return dir
			},
			badWant: "experiment.xml:3",
			// main below <program root>, with the mean over the 4 ranks
			// of its inclusive CPU time: (999238 + 999390 + 1000306 +
			// 999308) / 4 µs (the ranks' metric-db files; Hatchet's
			// hpctoolkit-cpi-graphframe.csv lists the same).
			exp: "exp/hpctoolkit-cpi-database", metric: "ctime", treeWant: []string{"<program root>", "└─ main", "9.996e+05"},
		},
		{
			name: "hpctoolkit not a directory", format: "hpctoolkit", input: td("hpctoolkit", "d.x"),
			bad:     func(*testing.T) string { return td("hpctoolkit", "d.x", "meta.db") },
			badWant: "meta.db: not a directory",
		},
		{
			name: "otlp", format: "otlp", input: td("otlp", "trace.json"),
			bad:     write("bad.json", []byte(`{"traceEvents": []}`)),
			badWant: "bad.json: request 1 (line 1)",
			more: func(t *testing.T, store, dump string) {
				if !strings.Contains(dump, "/ri/5b8efff798038103d269b633813fc60c/eee19b7ec3c1b174>") {
					t.Errorf("the example span is not stored")
				}
				if code, _, errs := runCmd(t, "otlp-listen", "--base", "http://perfkb.example/o/", "--max-message", "0", "--store", store); code != exitUsage {
					t.Errorf("otlp-listen --max-message 0: exit %d: %s", code, errs)
				}
			},
		},
		{
			name: "pprof", format: "pprof", input: td("pprof", "cpu.pb.gz"),
			bad:     func(*testing.T) string { return td("pprof", "bad", "timestamp.pb") },
			badWant: "timestamp.pb: byte 0 (Profile field 1)",
			// main.outer under main.main.
			exp: "exp/cpu.pb.gz", metric: "ctime", treeWant: []string{"└─ main.outer", "1320000"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "store")
			base := "http://perfkb.example/" + tc.format + "/"
			if code, _, errs := runCmd(t, "convert", tc.format, tc.input, "--base", base, "--store", store); code != exitOK {
				t.Fatalf("convert: exit %d: %s", code, errs)
			}
			dump := func() string {
				code, out, errs := runCmd(t, "export", "--store", store, "--format", "nquads")
				if code != exitOK {
					t.Fatalf("export: exit %d: %s", code, errs)
				}
				return out
			}
			before := dump()
			bad := tc.bad(t)
			if code, _, errs := runCmd(t, "convert", tc.format, bad, "--base", base, "--store", store); code != exitInvalidInput || !strings.Contains(errs, tc.badWant) {
				t.Errorf("bad input: exit %d, stderr %q, want exit %d and %q", code, errs, exitInvalidInput, tc.badWant)
			}
			if after := dump(); after != before {
				t.Errorf("a failed conversion changed the store")
			}
			if tc.more != nil {
				tc.more(t, store, before)
			}
			if code, out, errs := runCmd(t, "reason", "--store", store); code != exitOK {
				t.Errorf("reason: exit %d\n%s\n%s", code, out, errs)
			}
			if tc.exp == "" {
				return
			}
			code, out, errs := runCmd(t, "tree", "--store", store, "--metric", tc.metric, tc.exp)
			if code != exitOK {
				t.Fatalf("tree: exit %d\n%s", code, errs)
			}
			for _, w := range tc.treeWant {
				if !strings.Contains(out, w) {
					t.Errorf("tree lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
