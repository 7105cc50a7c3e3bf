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

// TestTreeTAUCallPaths converts a TAU profile written with call paths,
// where each function appears once flat and once per call path, and checks
// that the tree holds the call paths only, read off the profile files by
// hand: on ranks 0.0.0 and 1.0.0, main (90,000 µs) calls compute step
// (83,000 µs, which calls say "hi" twice), MPI_Recv and MPI_Send; on
// threads 0.0.1 and 1.0.1, .TAU application (70,010 µs) calls compute
// step (70,000 µs). The flat entries (MPI_Send(), compute step, …) are
// not roots.
func TestTreeTAUCallPaths(t *testing.T) {
	storeSpec := filepath.Join(t.TempDir(), "kb.db")
	var out, errOut bytes.Buffer
	if code := run([]string{"--store", storeSpec, "convert", "tau", "--base", "http://perfkb.example/site/x/", "../../convert/tau/testdata/example"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("convert tau: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := run([]string{"--store", storeSpec, "tree", "x/exp/example"}, strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("tree: exit %d: %s", code, errOut.String())
	}
	want := []string{
		"0.09 s|int main(int, char **) C",
		"0.083 s|├─ compute step a=>b",
		"0.00015 s|│  └─ say \"hi\" twice",
		"0.003 s|├─ MPI_Recv",
		"0.002 s|└─ MPI_Send",
		"0.07001 s|.TAU application",
		"0.07 s|└─ compute step a=>b",
	}
	lines := strings.Split(out.String(), "\n")
	col := strings.Index(lines[1], "REGION")
	if col < 0 {
		t.Fatalf("no REGION column in %q", lines[1])
	}
	var got []string
	for _, line := range lines[2:] {
		if len(line) <= col {
			continue
		}
		f := strings.Fields(line)
		got = append(got, f[0]+" "+f[1]+"|"+line[col:])
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant the call paths only:\n%s\n(output:\n%s)", strings.Join(got, "\n"), strings.Join(want, "\n"), out.String())
	}
}
