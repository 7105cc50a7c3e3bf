package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChromeTraceCLI converts a Chrome trace into a store, checks that a
// bad one exits 1 with its position and changes nothing, runs the shipped
// rules on the result, and exports a trace for Perfetto.
func TestChromeTraceCLI(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	td := filepath.Join("..", "..", "convert", "chrometrace", "testdata")
	if code, _, errs := runCmd(t, "convert", "chrome-trace", filepath.Join(td, "be.json"), "--base", "http://perfkb.example/c/", "--store", store); code != exitOK {
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
	code, _, errs := runCmd(t, "convert", "chrome-trace", filepath.Join(td, "bad", "unmatched-end.json"), "--base", "http://perfkb.example/c/", "--store", store)
	if code != exitInvalidInput || !strings.Contains(errs, "unmatched-end.json:4:2: traceEvents[2] (byte 120)") {
		t.Errorf("bad trace: exit %d, stderr %q", code, errs)
	}
	if after := dump(); after != before {
		t.Errorf("a failed conversion changed the store")
	}
	// main runs 200 µs on pid 7 and 345 µs on pid 9: more than 1.5 times.
	code, out, errs := runCmd(t, "reason", "--store", store)
	if code != exitOK || !strings.Contains(out, "LoadImbalance") || !strings.Contains(out, "exp/be.json/rs/p9t0/0") {
		t.Errorf("reason: exit %d\n%s\n%s", code, out, errs)
	}

	code, out, errs = runCmd(t, "trace", "stat", filepath.Join(td, "perfflow-smoketest.pfw"))
	if code != exitOK || !strings.Contains(out, "116428.000") {
		t.Errorf("trace stat: exit %d\n%s\n%s", code, out, errs)
	}

	exp := filepath.Join(dir, "valid.json")
	valid := filepath.Join("..", "..", "convert", "trace", "testdata", "valid.trace")
	if code, _, errs := runCmd(t, "trace", "export", "--format", "chrome", "-o", exp, valid); code != exitOK {
		t.Fatalf("trace export: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(exp)
	var doc struct{ TraceEvents []map[string]any }
	if err != nil || json.Unmarshal(b, &doc) != nil || len(doc.TraceEvents) == 0 {
		t.Errorf("exported file: %v, %d events", err, len(doc.TraceEvents))
	}
	if code, _, _ := runCmd(t, "trace", "export", "--format", "svg", valid); code != exitUsage {
		t.Errorf("--format svg: exit %d", code)
	}
	missing := filepath.Join(dir, "bad.json")
	if code, _, _ := runCmd(t, "trace", "export", "-o", missing, filepath.Join(td, "bad", "truncated.json")); code != exitInvalidInput {
		t.Errorf("export of a truncated trace: exit %d", code)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s", missing)
	}
}
