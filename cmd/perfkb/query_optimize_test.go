package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestQueryExplainOptimizer: --explain prints the optimizer's plan (the
// triple patterns in its order with the store's counts and each filter
// after the pattern it waits for) before the execution counts, and
// --no-optimize runs the patterns as written.
func TestQueryExplainOptimizer(t *testing.T) {
	const q = "SELECT ?s { ?s <http://example.org/p> ?v ; <http://example.org/name> ?n FILTER(?v > 1) }"
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"optimized", nil, []string{"optimizer:\n", "count=", "filter: (> ?v 1)", "execution:\n", "actual="}},
		{"as written", []string{"--no-optimize"}, []string{"(not optimized: as written)", "Filter (> ?v 1)", "execution:\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"query", "--data", "testdata/query-data.ttl", "--explain", "--format", "tsv", "-e", q}, tc.args...)
			if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("explain output lacks %q:\n%s", want, stderr.String())
				}
			}
			if got := stdout.String(); !strings.Contains(got, "?s") {
				t.Errorf("no result rows: %q", got)
			}
		})
	}
}
