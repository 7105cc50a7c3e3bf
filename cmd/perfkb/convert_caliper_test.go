package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaliperCLI converts Hatchet's LULESH .cali into a store, checks that
// a bad .cali exits 1 with its line and column and changes nothing, runs
// the shipped rules and reads the call tree.
func TestCaliperCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	td := filepath.Join("..", "..", "convert", "caliper", "testdata")
	if code, _, errs := runCmd(t, "convert", "caliper", filepath.Join(td, "lulesh-annotation-profile.cali"), "--base", "http://perfkb.example/c/", "--store", store); code != exitOK {
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
	bad := filepath.Join(t.TempDir(), "bad.cali")
	if err := os.WriteFile(bad, []byte("__rec=node,id=12,attr=10,data=64,parent=3\n__rec=node,id=13,attr=8,data=f,parent=99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd(t, "convert", "caliper", bad, "--base", "http://perfkb.example/c/", "--store", store)
	if code != exitInvalidInput || !strings.Contains(errs, "bad.cali:2:32") {
		t.Errorf("bad .cali: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd(t, "convert", "caliper", bad, "--base", "http://perfkb.example/c/", "--time-unit", "h", "--store", store); code != exitUsage {
		t.Errorf("--time-unit h: exit %d, want %d", code, exitUsage)
	}
	if after := dump(); after != before {
		t.Errorf("a failed conversion changed the store")
	}
	if code, out, errs := runCmd(t, "reason", "--store", store); code != exitOK {
		t.Errorf("reason: exit %d\n%s\n%s", code, out, errs)
	}
	// main's inclusive time: 492491 µs (TestLuleshCali).
	code, out, errs := runCmd(t, "tree", "--store", store, "--metric", "wtime", "exp/lulesh-annotation-profile.cali")
	if code != exitOK || !strings.Contains(out, "lulesh.cycle") || !strings.Contains(out, "492491") {
		t.Errorf("tree: exit %d\n%s\n%s", code, out, errs)
	}
}
