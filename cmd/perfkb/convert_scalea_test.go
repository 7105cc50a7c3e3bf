package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/scalea/scaleatest"
	"github.com/perfkb/perfkb/internal/pgtest"
)

func TestConvertScaleaCommand(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.NewDatabase(t)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := scaleatest.Fill(context.Background(), db, scaleatest.Small()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := "--store=native:" + filepath.Join(dir, "db")
	seedFile := filepath.Join(dir, "seed.nt")
	os.WriteFile(seedFile, []byte("<http://e/s> <http://e/p> <http://e/o> .\n"), 0o644)
	out := filepath.Join(dir, "exp2.nt")
	base := "--base=http://perfkb.example/site/innsbruck/"
	count := "SELECT (COUNT(*) AS ?n) { GRAPH <http://perfkb.example/site/innsbruck> { ?s ?p ?o } }"

	steps := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr []string
		notStderr      string
	}{
		{"no dsn", []string{"convert", "scalea", base}, 2, nil, []string{"--dsn is required"}, ""},
		{"bad positions", []string{"convert", "scalea", base, "--dsn", dsn, "--positions", "xy"}, 2, nil, []string{"want line-col or col-line"}, ""},
		{"unreachable", []string{"convert", "scalea", base, "-o", out, "--dsn", "postgres://perf:s3cret@127.0.0.1:1/scalea?sslmode=disable&connect_timeout=5"}, 3, nil,
			[]string{"cannot connect to the SCALEA repository postgres://perf:xxxxx@127.0.0.1:1/scalea"}, "s3cret"},
		{"unknown experiment", []string{"convert", "scalea", base, "-o", out, "--dsn", dsn, "--experiment", "2", "--experiment", "4711"}, 2, nil, []string{"no experiment 4711"}, ""},
		{"one experiment to a file", []string{"convert", "scalea", base, "-o", out, "--dsn", dsn, "--experiment", "2"}, 0, []string{"converted ", "(" + out + ")"}, []string{"warning: "}, ""},
		{"create the store", []string{"load", store, seedFile}, 0, nil, nil, ""},
		{"into the store", []string{"convert", "scalea", store, base, "--dsn", dsn}, 0, []string{"(graph <http://perfkb.example/site/innsbruck>)"}, nil, ""},
	}
	for _, s := range steps {
		code, stdout, stderr := runCLI(t, "", s.args...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", s.name, code, s.code, stdout, stderr)
		}
		for _, w := range s.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout %q lacks %q", s.name, stdout, w)
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", s.name, stderr, w)
			}
		}
		if s.notStderr != "" && strings.Contains(stderr, s.notStderr) {
			t.Errorf("%s: stderr shows %q: %s", s.name, s.notStderr, stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), "<http://perfkb.example/site/innsbruck/exp/2>") || strings.Contains(string(data), "<http://perfkb.example/site/innsbruck/exp/3> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>") {
		t.Errorf("--experiment 2 output (%d bytes, %v) lacks experiment 2 or has experiment 3", len(data), err)
	}
	code, stdoutBefore, _ := runCLI(t, "", "query", store, "--format", "tsv", "-e", count)
	if code != 0 || !strings.HasPrefix(stdoutBefore, "?n\n") || stdoutBefore == "?n\n0\n" {
		t.Fatalf("count after the load: exit %d %q", code, stdoutBefore)
	}

	// A dangling reference: exit 1 naming table, key and column; the
	// graph keeps what the first conversion stored.
	if _, err := db.Exec("BEGIN; SET LOCAL session_replication_role = replica; UPDATE Experiment SET versionID = 888 WHERE experimentID = 2; COMMIT"); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "convert", "scalea", store, base, "--dsn", dsn)
	if code != 1 || !strings.Contains(stderr, "table Experiment key=2 column=versionID: dangling reference: versionID 888 is not in table Version") || !strings.Contains(stderr, "unchanged") {
		t.Errorf("dangling version: exit %d, stderr %s", code, stderr)
	}
	if _, after, _ := runCLI(t, "", "query", store, "--format", "tsv", "-e", count); after != stdoutBefore {
		t.Errorf("a failed conversion changed the graph: %q before, %q after", stdoutBefore, after)
	}
	code, stdout, stderr := runCLI(t, "", "convert", "scalea", "-o", out, base, "--dsn", dsn, "--lenient", "--report", "json")
	if code != 0 || !strings.Contains(stdout, `"warning_count"`) || !strings.Contains(stdout, "row dropped") {
		t.Errorf("--lenient: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
