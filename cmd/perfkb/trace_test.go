package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
