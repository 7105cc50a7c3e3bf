package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertCube runs perfkb convert cube on a real Score-P profile and on
// a truncated copy: exit 0, then exit 1 with the byte position and the
// store unchanged.
func TestConvertCube(t *testing.T) {
	dir := t.TempDir()
	store := "--store=native:" + filepath.Join(dir, "db")
	good := filepath.Join("..", "..", "convert", "cube", "testdata", "time.p4", "profile.cubex")
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "truncated.cubex")
	if err := os.WriteFile(bad, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	base := "--base=http://perfkb.example/site/t/"
	count := []string{"query", store, "--format", "tsv", "-e", "SELECT (COUNT(*) AS ?n) { GRAPH <http://perfkb.example/site/t> { ?s ?p ?o } }"}
	code, stdout, stderr := runCLI(t, "", "convert", "cube", store, base, good)
	// 5,926 statements of the profile, and an annotation of two (rdf:reifies,
	// perfonto:measuredBy) on each of its 919 metric values: 7,764.
	if code != 0 || !strings.Contains(stdout, "converted 445 records (location 4, region 262, call path 173, metric 6) into 7,764 triples") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	_, before, _ := runCLI(t, "", count...)
	code, _, stderr = runCLI(t, "", "convert", "cube", store, base, bad)
	if code != 1 || !strings.Contains(stderr, "truncated.cubex: byte ") || !strings.Contains(stderr, "truncated archive") || !strings.Contains(stderr, "unchanged") {
		t.Errorf("truncated file: exit %d, stderr %s", code, stderr)
	}
	if _, after, _ := runCLI(t, "", count...); after != before || !strings.Contains(before, "7764") {
		t.Errorf("store holds %q after the failed conversion, %q before", after, before)
	}
}
