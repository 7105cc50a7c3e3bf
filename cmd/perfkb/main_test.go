package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
)

type invalidInputError struct{}

func (invalidInputError) Error() string      { return "1:2: bad" }
func (invalidInputError) InvalidInput() bool { return true }

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, exitOK},
		{"invalid input", invalidInputError{}, exitInvalidInput},
		{"wrapped invalid input", errors.Join(errors.New("loading x.nt"), invalidInputError{}), exitInvalidInput},
		{"usage", usageError(errors.New("missing FILE")), exitUsage},
		{"other", errors.New("disk full"), exitOther},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("%s: exitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestRunUnknownCommandIsUsageError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"no-such-command"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit code = %d, want %d; stderr: %s", code, exitUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "unknown command") {
		t.Errorf("stderr does not explain the error: %q", stderr.String())
	}
}

func TestHumanCount(t *testing.T) {
	tests := map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"}
	for n, want := range tests {
		if got := humanCount(n); got != want {
			t.Errorf("humanCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestExitCodeTable runs each case of the README's exit status table
// through the real command line.
func TestExitCodeTable(t *testing.T) {
	dir := t.TempDir()
	missingStore := filepath.Join(dir, "typo.db")
	data := "testdata/query-data.ttl"
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"success", []string{"query", "--data", data, "-e", "ASK { ?s ?p ?o }"}, exitOK, "true"},
		{"--version", []string{"--version"}, exitOK, "perfkb "},
		{"version", []string{"version"}, exitOK, "revision"},
		{"query syntax error", []string{"query", "--data", data, "-e", "SELECT * { ?s ?p }"}, exitInvalidInput, "<expression>:1:"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
		{"unknown flag", []string{"stats", "--frob"}, exitUsage, "unknown flag"},
		{"mistyped global flag", []string{"stats", "--stroe", "memory:"}, exitUsage, "unknown flag: --stroe (did you mean --store?)"},
		{"mistyped flag with value", []string{"query", "--dta=x.ttl", "-e", "ASK {}"}, exitUsage, "(did you mean --data?)"},
		{"unknown flag far from any", []string{"stats", "--frob"}, exitUsage, "unknown flag: --frob\n"},
		{"mistyped subcommand", []string{"rules", "lsit"}, exitUsage, "unknown command \"lsit\" for \"perfkb rules\"\n\nDid you mean this?\n\tlist"},
		{"mistyped command", []string{"qeury"}, exitUsage, "Did you mean this?\n\tquery"},
		{"load missing file", []string{"--store", "memory:", "load", filepath.Join(dir, "none.nt")}, exitUsage, "none.nt"},
		{"query missing --data file", []string{"query", "--data", filepath.Join(dir, "none.ttl"), "-e", "ASK {}"}, exitUsage, "none.ttl"},
		{"query missing --query file", []string{"query", "--data", data, "--query", filepath.Join(dir, "none.rq")}, exitUsage, "none.rq"},
		{"unknown store scheme", []string{"--store", "bogus:x", "stats"}, exitUsage, "unknown backend"},
		{"unknown store scheme on query", []string{"--store", "bogus:x", "query", "-e", "ASK {}"}, exitUsage, "unknown backend"},
		{"format yaml", []string{"query", "--data", data, "--format", "yaml", "-e", "ASK {}"}, exitUsage, "--format"},
		{"query-memory not a size", []string{"query", "--data", data, "--query-memory", "lots", "-e", "ASK {}"}, exitUsage, "--query-memory"},
		{"query-memory exceeded", []string{"query", "--data", data, "--query-memory", "2KiB", "-e", "SELECT * { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a"}, exitOther, "query-memory limit of 2 KiB exceeded"},
		{"format turtle on SELECT", []string{"query", "--data", data, "--format", "turtle", "-e", "SELECT * { ?s ?p ?o }"}, exitUsage, "SELECT"},
		{"format csv on CONSTRUCT", []string{"query", "--data", data, "--format", "csv", "-e", "CONSTRUCT WHERE { ?s ?p ?o }"}, exitUsage, "CONSTRUCT"},
		{"format tsv on DESCRIBE", []string{"query", "--data", data, "--format", "tsv", "-e", "DESCRIBE <http://example.org/a>"}, exitUsage, "DESCRIBE"},
		{"reason bad format", []string{"--store", "memory:", "reason", "--format", "yaml"}, exitUsage, "--format"},
		{"reason missing rule file", []string{"--store", "memory:", "reason", "--rules", filepath.Join(dir, "none.rules")}, exitUsage, "none.rules"},
		{"stats on a missing store", []string{"--store", missingStore, "stats"}, exitOther, "no store at " + missingStore},
		{"graphs on a missing store", []string{"--store", "native:" + missingStore, "graphs"}, exitOther, "no store at"},
		{"export on a missing store", []string{"--store", missingStore, "export"}, exitOther, "no store at"},
		{"query on a missing store", []string{"--store", missingStore, "query", "-e", "ASK {}"}, exitOther, "--data"},
		{"reason on a missing store", []string{"--store", missingStore, "reason"}, exitOther, "perfkb load"},
		{"drop-graph on a missing store", []string{"--store", missingStore, "drop-graph", "http://ex/g"}, exitOther, "no store at"},
		{"row limit", []string{"query", "--data", data, "--max-rows", "1", "-e", "SELECT * { ?s ?p ?o }"}, exitOther, "row limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, stdout.String(), stderr.String())
			}
			if out := stdout.String() + stderr.String(); !strings.Contains(out, tc.contains) {
				t.Errorf("output %q does not contain %q", out, tc.contains)
			}
		})
	}
	if _, err := os.Stat(missingStore); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read command created the store %s (stat: %v)", missingStore, err)
	}
}

// TestQueryWithoutStoreSaysSo: 'perfkb query' in a directory without
// ./perfkb.db must not create one.
func TestQueryWithoutStoreSaysSo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run([]string{"query", "-e", "ASK {}"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOther || !strings.Contains(stderr.String(), "no store at ./perfkb.db") {
		t.Fatalf("exit %d, stderr %q; want 3 and 'no store at ./perfkb.db'", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "perfkb.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("query created ./perfkb.db (stat: %v)", err)
	}
	// load is a writing command: it creates the store.
	nt := filepath.Join(dir, "a.nt")
	if err := os.WriteFile(nt, []byte("<http://ex/a> <http://ex/p> <http://ex/b> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"load", nt}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"query", "--format", "tsv", "-e", "SELECT ?o { ?s ?p ?o }"}, strings.NewReader(""), &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "<http://ex/b>") {
		t.Fatalf("query after load: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestQueriesShareStore checks that perfkb query opens the store
// read-only: it answers while another reader holds the store open (as a
// second perfkb query or perfkb stats would), and a writer is still
// refused beside it.
func TestQueriesShareStore(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	nt := filepath.Join(dir, "a.nt")
	if err := os.WriteFile(nt, []byte("<http://ex/a> <http://ex/p> <http://ex/b> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"load", nt}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}
	other, err := native.Open(context.Background(), filepath.Join(dir, "perfkb.db"), native.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"query", "--format", "tsv", "-e", "SELECT ?o { ?s <http://ex/p> ?o }"}, strings.NewReader(""), &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "<http://ex/b>") {
		t.Fatalf("query beside a reader: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"query", "--update", "-e", "INSERT DATA { <http://ex/c> <http://ex/p> <http://ex/d> }"}, strings.NewReader(""), &stdout, &stderr); code == exitOK || !strings.Contains(stderr.String(), "in use") {
		t.Fatalf("update beside a reader: exit %d, stderr %q; want refused, store in use", code, stderr.String())
	}
}

// TestValueCompletion asks cobra's hidden completion command what it
// offers for flag values, as a shell would.
func TestValueCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"__complete", "query", "--format", ""}, []string{"json", "xml", "csv", "tsv", "table", "ntriples", "turtle", "nquads", "rdfxml", "jsonld"}, []string{"trig", "text"}},
		{[]string{"__complete", "reason", "--format", ""}, []string{"table", "json"}, []string{"csv"}},
		{[]string{"__complete", "reason", "--rules", ""}, []string{"PERFONTO", "RDFS", "OWL"}, nil},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr.String())
		}
		lines := strings.Split(stdout.String(), "\n")
		for _, w := range tc.want {
			if !slices.Contains(lines, w) {
				t.Errorf("%v offers %q, want %q among them", tc.args, lines, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(lines, w) {
				t.Errorf("%v offers %q, which that command does not take", tc.args, w)
			}
		}
	}
}

func TestManPages(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"man", "--dir", dir}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"perfkb.1", "perfkb-query.1", "perfkb-tree.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), ".TH \"PERFKB\"") {
			t.Errorf("%s is not a man page:\n%.200s", name, b)
		}
	}
}
