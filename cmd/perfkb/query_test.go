package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestQueryCommand(t *testing.T) {
	data := "testdata/query-data.ttl"
	named := "http://example.org/g=testdata/query-named.ttl"
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"json select", []string{"query", "--data", data, "-e", "SELECT ?s { ?s <http://example.org/p> 1 }"}, exitOK, `"value":"http://example.org/a"`},
		{"tsv", []string{"query", "--data", data, "--format", "tsv", "-e", "SELECT ?n { <http://example.org/b> <http://example.org/name> ?n }"}, exitOK, "?n\n\"beta\"@en\n"},
		{"named graph", []string{"query", "--data", data, "--named", named, "--format", "csv", "-e", "SELECT ?g ?s { GRAPH ?g { ?s ?p ?o } }"}, exitOK, "http://example.org/g,http://example.org/c"},
		{"ask", []string{"query", "--data", data, "-e", "ASK { ?s ?p 3 }"}, exitOK, `"boolean":false`},
		{"construct", []string{"query", "--data", data, "-e", "CONSTRUCT { ?s <http://example.org/q> ?o } WHERE { ?s <http://example.org/p> ?o FILTER(?o > 1) }"}, exitOK, "<http://example.org/b> <http://example.org/q> \"2\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"},
		{"update prints the dataset", []string{"query", "--data", data, "--update", "-e", "DELETE WHERE { ?s <http://example.org/name> ?n }"}, exitOK, "<http://example.org/a> <http://example.org/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<http://example.org/b>"},
		{"parse only", []string{"query", "--parse-only", "-e", "SELECT * { ?s ?p ?o }"}, exitOK, ""},
		{"syntax error", []string{"query", "--parse-only", "-e", "SELECT * { ?s ?p }"}, exitInvalidInput, "<expression>:1:"},
		{"static error", []string{"query", "--parse-only", "-e", "SELECT (1 AS ?x) { BIND(2 AS ?x) }"}, exitInvalidInput, ""},
		{"no query", []string{"query", "--data", data}, exitUsage, "exactly one"},
		{"bad format", []string{"query", "--format", "yaml", "-e", "ASK {}"}, exitUsage, "--format"},
		{"bad named", []string{"query", "--named", "nofile", "-e", "ASK {}"}, exitUsage, "IRI=FILE"},
		{"missing data file", []string{"query", "--data", "testdata/none.ttl", "-e", "ASK {}"}, exitUsage, "none.ttl"},
		{"query as the argument", []string{"query", "--data", data, "--format", "tsv", "SELECT ?n { <http://example.org/b> <http://example.org/name> ?n }"}, exitOK, "?n\n\"beta\"@en\n"},
		{"query file as the argument", []string{"query", "--data", data, "--format", "tsv", "testdata/query-beta.rq"}, exitOK, "?n\n\"beta\"@en\n"},
		{"argument and -e", []string{"query", "--data", data, "-e", "ASK {}", "ASK {}"}, exitUsage, "give the query once"},
		{"two arguments", []string{"query", "--data", data, "ASK {}", "ASK {}"}, exitUsage, "accepts at most 1 arg"},
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
}

func TestQueryExplain(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"query", "--data", "testdata/query-data.ttl", "--explain", "--format", "tsv",
		"-e", "SELECT ?s { ?s <http://example.org/p> ?v ; <http://example.org/name> ?n FILTER(?v > 1) }"},
		strings.NewReader(""), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"BGP", "est=", "actual=1", "filter:"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("explain output lacks %q:\n%s", want, stderr.String())
		}
	}
}
