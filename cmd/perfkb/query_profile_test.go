package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestQueryCPUProfile: --cpuprofile writes a CPU profile that pprof reads
// beside the answer; a file that cannot be created is a usage error
// before the query runs.
func TestQueryCPUProfile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "q.prof")
	code, stdout, stderr := runCmd(t, "query", "--data", filepath.Join("testdata", "query-data.ttl"), "--format", "csv",
		"--cpuprofile", out, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "n\r\n") {
		t.Fatalf("answer %q", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("profile does not parse: %v", err)
	}
	if len(p.SampleType) == 0 || p.SampleType[len(p.SampleType)-1].Type != "cpu" {
		t.Fatalf("sample types %v, want a CPU profile", p.SampleType)
	}
	code, _, stderr = runCmd(t, "query", "--data", filepath.Join("testdata", "query-data.ttl"),
		"--cpuprofile", filepath.Join(dir, "missing", "q.prof"), "ASK {}")
	if code != exitUsage || !strings.Contains(stderr, "--cpuprofile") {
		t.Fatalf("unwritable profile: exit %d, %q", code, stderr)
	}
}

// TestLoadCPUProfile: perfkb load's --cpuprofile writes a CPU profile that
// pprof reads, and the load itself stores the file's triples.
func TestLoadCPUProfile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "load.prof")
	code, stdout, stderr := runCmd(t, "--store", "native:"+filepath.Join(dir, "db"), "load",
		"--cpuprofile", out, filepath.Join("testdata", "query-data.ttl"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "loaded ") {
		t.Fatalf("output %q", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("profile does not parse: %v", err)
	}
	if len(p.SampleType) == 0 || p.SampleType[len(p.SampleType)-1].Type != "cpu" {
		t.Fatalf("sample types %v, want a CPU profile", p.SampleType)
	}
}
