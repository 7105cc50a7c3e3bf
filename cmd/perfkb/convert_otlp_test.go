package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOTLPCLI converts the OTLP example trace into a store, checks that a
// file that is not OTLP exits 1 with its position and changes nothing, and
// that otlp-listen refuses bad limits as usage errors.
func TestOTLPCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	td := filepath.Join("..", "..", "convert", "otlp", "testdata")
	if code, _, errs := runCmd(t, "convert", "otlp", filepath.Join(td, "trace.json"), "--base", "http://perfkb.example/o/", "--store", store); code != exitOK {
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
	if !strings.Contains(before, "/ri/5b8efff798038103d269b633813fc60c/eee19b7ec3c1b174>") {
		t.Errorf("the example span is not stored")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"traceEvents": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd(t, "convert", "otlp", bad, "--base", "http://perfkb.example/o/", "--store", store)
	if code != exitInvalidInput || !strings.Contains(errs, "bad.json: request 1 (line 1)") {
		t.Errorf("not OTLP: exit %d, stderr %q", code, errs)
	}
	if after := dump(); after != before {
		t.Errorf("a failed conversion changed the store")
	}
	if code, _, errs := runCmd(t, "otlp-listen", "--base", "http://perfkb.example/o/", "--max-message", "0", "--store", store); code != exitUsage {
		t.Errorf("otlp-listen --max-message 0: exit %d: %s", code, errs)
	}
}
