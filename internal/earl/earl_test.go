package earl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReport: one assertion per test with its outcome, and nothing is
// written unless PERFKB_EARL_DIR names a folder.
func TestReport(t *testing.T) {
	r := New()
	r.Add("urn:x:b", false)
	r.Add("urn:x:a", true)
	r.Add("urn:x:a", true) // a test recorded twice counts once
	if r.Len() != 2 {
		t.Errorf("Len = %d, want 2", r.Len())
	}
	out := r.Turtle(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	for _, want := range []string{
		"earl:test <urn:x:a> ;\n  earl:mode earl:automatic ;\n  earl:result [ a earl:TestResult ; earl:outcome earl:passed ; dc:date \"2026-11-27\"^^xsd:date ]",
		"earl:test <urn:x:b> ;\n  earl:mode earl:automatic ;\n  earl:result [ a earl:TestResult ; earl:outcome earl:failed ;",
		"@prefix earl: <http://www.w3.org/ns/earl#> .",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "<urn:x:a>") > strings.Index(out, "<urn:x:b>") {
		t.Error("assertions are not sorted by test")
	}
	t.Setenv(EnvDir, "")
	if path, err := r.WriteIfAsked("x.ttl"); path != "" || err != nil {
		t.Errorf("WriteIfAsked without %s = %q, %v", EnvDir, path, err)
	}
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	path, err := r.WriteIfAsked("x.ttl")
	if err != nil || path != filepath.Join(dir, "x.ttl") {
		t.Fatalf("WriteIfAsked = %q, %v", path, err)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "earl:Assertion") {
		t.Errorf("written report: %v %.200s", err, b)
	}
}
