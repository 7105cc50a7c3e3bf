package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/otf2"
	"github.com/perfkb/perfkb/convert/trace/compensate"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCalibrateFixedContract(t *testing.T) {
	out := filepath.Join(t.TempDir(), "calib.json")
	if code, _, errs := runCmd(t, "calibrate", "--overhead", "2us", "--copy-cost", "1ns", "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	c, err := compensate.ReadCalibration(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.OverheadUs != 2 || len(c.Copy) != 1 || c.Copy[0].NsPerByte != 1 || c.Host == "" || c.Date == "" || !strings.Contains(c.Method, "given") {
		t.Errorf("calibration %+v", c)
	}
	// Only --overhead: the copy cost is measured (small sizes keep it fast).
	if code, _, errs := runCmd(t, "calibrate", "--overhead", "800ns", "--max-size", "1024", "--repeats", "3", "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(out)
	var raw compensate.Calibration
	if err := json.Unmarshal(b, &raw); err != nil || raw.OverheadUs != 0.8 || len(raw.Copy) != 11 || !strings.Contains(raw.Method, "copy: measured") {
		t.Errorf("calibration %s (%v)", b, err)
	}
	if code, _, _ := runCmd(t, "calibrate", "--overhead", "fast", "-o", out); code != exitUsage {
		t.Errorf("bad --overhead: exit %d", code)
	}
}

func TestConvertOTF2WithoutTag(t *testing.T) {
	if otf2.Enabled {
		t.Skip("built with -tags otf2")
	}
	f := filepath.Join(t.TempDir(), "a.otf2")
	os.WriteFile(f, nil, 0o644)
	code, _, errs := runCmd(t, "convert", "otf2", f, "--base", "http://perfkb.example/x/", "--out", "-")
	if code != exitUsage || !strings.Contains(errs, "built without OTF2 support; rebuild with -tags otf2 (needs libopen-trace-format2-dev)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestTraceCheckExitAndJSON(t *testing.T) {
	code, out, _ := runCmd(t, "trace", "check", "--format", "json", "../../convert/trace/testdata/check/unmatched-recv.trace")
	if code != exitInvalidInput || !strings.Contains(out, `"kind": "unmatched-recv"`) || !strings.Contains(out, `"index": 2`) {
		t.Errorf("exit %d, output %s", code, out)
	}
	code, out, _ = runCmd(t, "trace", "check", "../../convert/trace/testdata/check/unclosed-region.trace")
	if code != exitOK || !strings.Contains(out, "warning: unclosed-region") {
		t.Errorf("warnings only: exit %d, output %s", code, out)
	}
	code, out, _ = runCmd(t, "trace", "list", "--location", "1", "../../convert/trace/testdata/valid.trace")
	if code != exitOK || strings.Count(out, "\n") != 15 || strings.Contains(out, "p0 t0") {
		t.Errorf("list: exit %d, %d lines:\n%s", code, strings.Count(out, "\n"), out)
	}
}

func TestConvertTraceViolationLeavesOutputAbsent(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.nt")
	code, _, errs := runCmd(t, "convert", "trace", "../../convert/trace/testdata/check/unmatched-leave.trace", "--base", "http://perfkb.example/x/", "--out", out)
	if code != exitInvalidInput || !strings.Contains(errs, "location 1 event 1") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed conversion left its output file")
	}
	code, _, errs = runCmd(t, "convert", "trace", "../../convert/trace/testdata/check/unmatched-leave.trace", "--base", "http://perfkb.example/x/", "--out", out, "--accept-violations")
	if code != exitOK {
		t.Errorf("--accept-violations: exit %d, %s", code, errs)
	}
}

// TestConvertTraceCompensateM2 runs the commands a user would on the
// (m.2) trace of convert/trace/compensate/testdata: O = 100 ns, C = 1 ns/B.
// MPI_Recv lasts 2 µs as measured; by eqs. (6, 8, 9) its lower bound is
// enter.recv_a + C·16 B + (leave_m − recv_m) − O − enter.recv_a =
// 0.016 + 1 − 0.1 = 0.916 µs; the upper bound (eqs. 5, 10) keeps the
// measured recv − send and so the 2 µs (the arithmetic is in
// convert/trace/compensate/cases_test.go).
func TestConvertTraceCompensateM2(t *testing.T) {
	dir := t.TempDir()
	calib := filepath.Join(dir, "calib.json")
	if code, _, errs := runCmd(t, "calibrate", "--overhead", "100ns", "--copy-cost", "1ns", "-o", calib); code != exitOK {
		t.Fatalf("calibrate: exit %d: %s", code, errs)
	}
	const q = `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?v WHERE {
  ?e perfonto:compensatedFrom ?measured .
  ?rs perfonto:inExperiment ?e ; perfonto:ofCodeRegion ?r ; perfonto:hasMetric ?m .
  ?r perfonto:regionName "MPI_Recv" .
  ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }`
	for _, c := range []struct{ bound, want string }{{"lower", "0.916"}, {"upper", "2"}} {
		nt := filepath.Join(dir, c.bound+".nt")
		code, _, errs := runCmd(t, "convert", "trace", "../../convert/trace/compensate/testdata/m2-lower.trace",
			"--base", "http://perfkb.example/t/", "--compensate", calib, "--bound", c.bound, "-o", nt)
		if code != exitOK {
			t.Fatalf("%s: convert: exit %d: %s", c.bound, code, errs)
		}
		code, out, errs := runCmd(t, "query", "--data", nt, "--format", "csv", "-e", q)
		if code != exitOK {
			t.Fatalf("%s: query: exit %d: %s", c.bound, code, errs)
		}
		rows := strings.Split(strings.TrimSpace(out), "\n")
		if len(rows) != 2 || strings.TrimSpace(rows[1]) != c.want {
			t.Errorf("%s: compensated MPI_Recv wtime = %q, want %s µs", c.bound, out, c.want)
		}
		// The value itself says how it was compensated (an RDF 1.2
		// annotation): the bound asked for and O = 100 ns = 0.1 µs.
		code, out, errs = runCmd(t, "query", "--data", nt, "--format", "csv", "-e", `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?v ?bound ?o WHERE {
  ?e perfonto:compensatedFrom ?measured .
  ?rs perfonto:inExperiment ?e ; perfonto:ofCodeRegion ?r ; perfonto:hasMetric ?m .
  ?r perfonto:regionName "MPI_Recv" .
  ?m perfonto:hasMetricName "wtime" ;
     perfonto:hasMetricValue ?v {| perfonto:valueCompensationBound ?bound ; perfonto:valuePerEventOverhead ?o |} }`)
		if code != exitOK {
			t.Fatalf("%s: annotation query: exit %d: %s", c.bound, code, errs)
		}
		if got, want := strings.TrimSpace(out), "v,bound,o\n"+c.want+","+c.bound+",0.1"; strings.ReplaceAll(got, "\r", "") != want {
			t.Errorf("%s: annotated compensated value:\n%s\nwant\n%s", c.bound, got, want)
		}
		// Measured values carry no compensation annotation.
		code, out, _ = runCmd(t, "query", "--data", nt, "--format", "csv", "-e", `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT (COUNT(*) AS ?n) WHERE {
  ?rs perfonto:inExperiment ?e ; perfonto:hasMetric ?m . ?m perfonto:hasMetricValue ?v .
  FILTER NOT EXISTS { ?e perfonto:compensatedFrom ?x }
  << ?m perfonto:hasMetricValue ?v >> perfonto:valueCompensationBound ?b }`)
		if code != exitOK || strings.TrimSpace(strings.Split(strings.TrimSpace(out), "\n")[1]) != "0" {
			t.Errorf("%s: measured values annotated as compensated: exit %d, %s", c.bound, code, out)
		}
	}
}

// TestConvertersAnnotateValues checks that TAU and CUBE values say which
// tool measured them (RDF 1.2 annotations, queried with SPARQL 1.2): every
// metric value statement has exactly one, naming the tool as its input
// does. The TAU example's profiles carry no "TAU Version" metadata; the
// CUBE anchors say "Cube Version" 4.8.2, and two name their Creator.
func TestConvertersAnnotateValues(t *testing.T) {
	dir := t.TempDir()
	const counts = `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?tool (COUNT(*) AS ?n) WHERE {
  ?m perfonto:hasMetricValue ?v
  OPTIONAL { << ?m perfonto:hasMetricValue ?v >> perfonto:measuredBy ?tool }
} GROUP BY ?tool ORDER BY ?tool`
	for _, c := range []struct {
		name string
		args []string
		tool string
	}{
		{"tau", []string{"convert", "tau", "../../convert/tau/testdata/example"}, "TAU"},
		{"cube", []string{"convert", "cube", "../../convert/cube/testdata/time.p4/profile.cubex"}, "CUBE 4.8.2 (Score-P 9.0-dev)"},
		{"cube-values", []string{"convert", "cube", "../../convert/cube/testdata/cube-values_example.cubex"}, "CUBE 4.8.2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nt := filepath.Join(dir, c.name+".nt")
			if code, _, errs := runCmd(t, append(c.args, "--base", "http://perfkb.example/a/", "-o", nt)...); code != exitOK {
				t.Fatalf("convert: exit %d: %s", code, errs)
			}
			code, out, errs := runCmd(t, "query", "--data", nt, "--format", "csv", "-e", counts)
			if code != exitOK {
				t.Fatalf("query: exit %d: %s", code, errs)
			}
			rows := strings.Split(strings.ReplaceAll(strings.TrimSpace(out), "\r", ""), "\n")
			// One row: every value annotated, all with the same tool (no
			// row with an unbound ?tool).
			if len(rows) != 2 || !strings.HasPrefix(rows[1], strconv.Quote(c.tool)+",") && !strings.HasPrefix(rows[1], c.tool+",") {
				t.Fatalf("values by annotating tool:\n%s\nwant one row, tool %q", out, c.tool)
			}
			if n := strings.TrimPrefix(strings.TrimPrefix(rows[1], strconv.Quote(c.tool)+","), c.tool+","); n == "0" {
				t.Errorf("no values converted:\n%s", out)
			}
		})
	}
}
