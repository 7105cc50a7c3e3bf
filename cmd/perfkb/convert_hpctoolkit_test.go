package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHPCToolkitCLI converts a real HPCToolkit database into a store,
// checks that a truncated meta.db exits 1 with its byte offset and changes
// nothing, and runs the shipped rules on the result.
func TestHPCToolkitCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	td := filepath.Join("..", "..", "convert", "hpctoolkit", "testdata")
	if code, _, errs := runCmd(t, "convert", "hpctoolkit", filepath.Join(td, "d.x"), "--base", "http://perfkb.example/h/", "--store", store); code != exitOK {
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
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"meta.db", "profile.db"} {
		b, err := os.ReadFile(filepath.Join(td, "d.x", f))
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
	code, _, errs := runCmd(t, "convert", "hpctoolkit", bad, "--base", "http://perfkb.example/h/", "--store", store)
	if code != exitInvalidInput || !strings.Contains(errs, "meta.db: byte 992 (footer)") {
		t.Errorf("truncated: exit %d, stderr %q", code, errs)
	}
	if after := dump(); after != before {
		t.Errorf("a failed conversion changed the store")
	}
	if code, out, errs := runCmd(t, "reason", "--store", store); code != exitOK {
		t.Errorf("reason: exit %d\n%s\n%s", code, out, errs)
	}
	// The call tree: main's loop under main, with main's inclusive
	// cycles (15025786228, TestHandDecoded).
	code, out, errs := runCmd(t, "tree", "--store", store, "--metric", "TOT_CYC", "exp/d.x")
	if code != exitOK || !strings.Contains(out, "loop at [a.out]:0") || !strings.Contains(out, "15025786228") {
		t.Errorf("tree: exit %d\n%s\n%s", code, out, errs)
	}
}
