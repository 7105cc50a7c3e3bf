package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTree loads a two-PU call tree (testdata/tree.ttl) whose values the
// goldens hold worked out by hand: main's inclusive mean (10+12)/2 = 11 s,
// exclusive (10-6-1 = 3 s on p0, 12-2 = 10 s on p1) mean 6.5 s; compute
// (6+2)/2 = 4 s with (4+2)/2 = 3 calls; MPI_Send only on p0.
func TestTree(t *testing.T) {
	dir := t.TempDir()
	storeSpec := filepath.Join(dir, "kb.db")
	var out, errOut bytes.Buffer
	if code := run([]string{"--store", storeSpec, "load", "--graph", "http://example.org/g", "testdata/tree.ttl"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, errOut.String())
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string
		errHas string
	}{
		{"mean over PUs", []string{"tree", "x/exp/1"}, exitOK, "testdata/tree-mean.golden", ""},
		{"one PU", []string{"tree", "http://example.org/site/x/exp/1", "--pu", "p1"}, exitOK, "testdata/tree-p1.golden", ""},
		{"unknown experiment", []string{"tree", "nope/exp/9"}, exitUsage, "", "no experiment"},
		{"bad metric", []string{"tree", "x/exp/1", "--metric", "bogus"}, exitUsage, "", "metric catalog"},
		{"bad agg", []string{"tree", "x/exp/1", "--agg", "median"}, exitUsage, "", "--agg"},
		{"no argument", []string{"tree"}, exitUsage, "", "EXPERIMENT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"--store", storeSpec}, tc.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr.String())
			}
			if tc.golden != "" {
				want, err := os.ReadFile(tc.golden)
				if err != nil {
					t.Fatal(err)
				}
				if stdout.String() != string(want) {
					t.Errorf("output:\n%s\nwant (%s):\n%s", stdout.String(), tc.golden, want)
				}
			}
			if !strings.Contains(stderr.String(), tc.errHas) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.errHas)
			}
		})
	}
}
