package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/store"
)

// runCLI runs perfkb with args and returns the exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestLoadStatsExportDropGraph(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=leveldb:" + filepath.Join(dir, "db")
	good := filepath.Join(dir, "good.nt")
	bad := filepath.Join(dir, "bad.nt")
	quads := filepath.Join(dir, "sites.nq")
	write := func(path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good, "<http://e/s> <http://e/p> \"007\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n<http://e/s> <http://e/q> _:b .\n")
	write(bad, "<http://e/s> <http://e/p> <http://e/o> .\n<http://e/s> <http://e/p> <http://e/o> .\n<http://e/s> <http://e/p> \"no end .\n")
	write(quads, "<http://e/s> <http://e/p> \"v\" <http://e/site/a> .\n<http://e/s> <http://e/p> \"w\" <http://e/site/b> .\n")

	// Every store commands write to also holds PERFONTO in its own graph
	// (its triples plus one digest triple).
	ont, err := store.CheckOntology(context.Background(), native.OpenMemory())
	if err != nil {
		t.Fatal(err)
	}
	n := fmt.Sprint(4 + ont.Triples + 1)
	for i := len(n) - 3; i > 0; i -= 3 {
		n = n[:i] + "," + n[i:]
	}
	quadsLine := "quads: " + n
	steps := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		noStdout []string
	}{
		{"load two files", "", []string{"load", good, quads}, 0, []string{"loaded 4 triples into 3 graphs in", ": 4 new, 0 already present\n"}, nil, nil},
		{"stats", "", []string{"stats"}, 0, []string{quadsLine, "graphs: 4"}, nil, nil},
		// The quads file has no blank nodes, which a reload would mint afresh.
		{"reload stores nothing", "", []string{"load", quads}, 0, []string{"loaded 2 triples into 2 graphs in", ": 0 new, 2 already present\n"}, nil, nil},
		{"stats after the reload", "", []string{"stats"}, 0, []string{quadsLine, "graphs: 4"}, nil, nil},
		{"syntax error", "", []string{"load", bad}, 1, nil, []string{"bad.nt:3:27: unterminated string literal"}, nil},
		{"stats unchanged", "", []string{"stats"}, 0, []string{quadsLine, "graphs: 4"}, nil, nil},
		{"graphs", "", []string{"graphs"}, 0, []string{"2\t<file://" + filepath.ToSlash(good) + ">", "1\t<http://e/site/a>", "1\t<http://e/site/b>", "<" + kb.OntologyGraphIRI + ">"}, nil, nil},
		{"export one graph", "", []string{"export", "--graph", "http://e/site/a", "--format", "ntriples"}, 0, []string{"<http://e/s> <http://e/p> \"v\" .\n"}, nil, []string{"\"w\""}},
		{"export keeps literals", "", []string{"export"}, 0, []string{`"007"^^<http://www.w3.org/2001/XMLSchema#integer>`, "<http://e/site/b> ."}, nil, nil},
		{"export RDF/XML", "", []string{"export", "--graph", "http://e/site/b", "--format", "rdfxml"}, 0, []string{"<rdf:RDF", "rdf:about=\"http://e/s\""}, nil, nil},
		{"export TriG", "", []string{"export", "--graph", "http://e/site/b", "--format", "trig"}, 0, []string{"<http://e/site/b> {"}, nil, nil},
		{"drop graph", "", []string{"drop-graph", "http://e/site/a"}, 0, []string{"dropped 1 quads from graph <http://e/site/a>"}, nil, nil},
		{"graph gone", "", []string{"graphs"}, 0, []string{"<http://e/site/b>"}, nil, []string{"site/a"}},
		{"drop unknown graph", "", []string{"drop-graph", "http://e/site/a"}, 2, nil, []string{"no graph <http://e/site/a>"}, nil},
		{"drop unknown graph silently", "", []string{"drop-graph", "--silent", "http://e/site/a"}, 0, nil, nil, nil},
		{"stdin", "<http://e/x> <http://e/y> <http://e/z> .\n", []string{"load", "--format", "nt", "--graph", "urn:x:stdin", "-"}, 0, []string{"loaded 1 triples into 1 graph in"}, nil, nil},
		{"stdin needs a format", "", []string{"load", "-"}, 2, nil, []string{"needs --format"}, nil},
		{"missing file", "", []string{"load", filepath.Join(dir, "none.nt")}, 2, nil, []string{"none.nt"}, nil},
		{"unknown extension", "", []string{"load", filepath.Join(dir, "db")}, 2, nil, []string{"directory"}, nil},
		{"bad format name", "", []string{"load", "--format", "json", good}, 2, nil, []string{"unknown RDF format \"json\""}, nil},
		{"relative graph", "", []string{"load", "--graph", "site-a", good}, 2, nil, []string{"not an absolute IRI"}, nil},
		{"no files", "", []string{"load"}, 2, nil, []string{"at least one FILE"}, nil},
	}
	for _, s := range steps {
		code, stdout, stderr := runCLI(t, s.stdin, append([]string{storeFlag}, s.args...)...)
		if code != s.code {
			t.Errorf("%s: exit code %d, want %d\nstdout: %s\nstderr: %s", s.name, code, s.code, stdout, stderr)
		}
		for _, want := range s.stdout {
			if !strings.Contains(collapse(stdout), collapse(want)) {
				t.Errorf("%s: stdout lacks %q:\n%s", s.name, want, stdout)
			}
		}
		for _, want := range s.stderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", s.name, want, stderr)
			}
		}
		for _, unwanted := range s.noStdout {
			if strings.Contains(stdout, unwanted) {
				t.Errorf("%s: stdout has %q:\n%s", s.name, unwanted, stdout)
			}
		}
	}
}

// collapse turns runs of white space into one space, so that checks do not
// depend on column widths.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestBenchLoad(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "bench", "load", "--triples", "2000", "--runs", "1", "--backend", "memory:", "--backend", "leveldb:")
	if code != 0 {
		t.Fatalf("bench load: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"generated", "memory: run 1/1", "leveldb: run 1/1", "median triples/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bench load output lacks %q:\n%s", want, stdout)
		}
	}
	if code, _, stderr := runCLI(t, "", "bench", "load", "--runs", "0"); code != 2 || !strings.Contains(stderr, "--runs") {
		t.Errorf("bench load --runs 0: exit %d, stderr %q; want a usage error", code, stderr)
	}
	if code, _, _ := runCLI(t, "", "bench", "nosuch"); code != 2 {
		t.Errorf("bench nosuch: exit %d; want 2", code)
	}
}

func TestOntologyCheck(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	data := filepath.Join(dir, "d.nt")
	if err := os.WriteFile(data, []byte("<http://e/s> <http://e/p> <http://e/o> .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", data); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", storeFlag, "ontology", "--check")
	if code != 0 || !strings.Contains(stdout, "current") {
		t.Fatalf("ontology --check after load: exit %d\n%s%s", code, stdout, stderr)
	}
	// Without flags it prints the built-in ontology.
	if code, stdout, _ := runCLI(t, "", "ontology"); code != 0 || !strings.Contains(stdout, "owl:Ontology") {
		t.Fatalf("ontology prints the Turtle: exit %d, %d bytes", code, len(stdout))
	}
}
