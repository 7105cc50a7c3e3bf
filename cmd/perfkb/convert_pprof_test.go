package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPprofCLI converts the committed CPU profile into a store, checks
// that a protobuf that is not pprof exits 1 with its byte offset and
// changes nothing, and runs the shipped rules on the result.
func TestPprofCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	td := filepath.Join("..", "..", "convert", "pprof", "testdata")
	if code, _, errs := runCmd(t, "convert", "pprof", filepath.Join(td, "cpu.pb.gz"), "--base", "http://perfkb.example/p/", "--store", store); code != exitOK {
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
	code, _, errs := runCmd(t, "convert", "pprof", filepath.Join(td, "bad", "timestamp.pb"), "--base", "http://perfkb.example/p/", "--store", store)
	if code != exitInvalidInput || !strings.Contains(errs, "timestamp.pb: byte 0 (Profile field 1)") {
		t.Errorf("not pprof: exit %d, stderr %q", code, errs)
	}
	if after := dump(); after != before {
		t.Errorf("a failed conversion changed the store")
	}
	if code, out, errs := runCmd(t, "reason", "--store", store); code != exitOK {
		t.Errorf("reason: exit %d\n%s\n%s", code, out, errs)
	}
	// The call tree reads the converted call paths: main.outer under main.main.
	code, out, errs := runCmd(t, "tree", "--store", store, "--metric", "ctime", "exp/cpu.pb.gz")
	if code != exitOK || !strings.Contains(out, "└─ main.outer") || !strings.Contains(out, "1320000") {
		t.Errorf("tree: exit %d\n%s\n%s", code, out, errs)
	}
}
