package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	qtNS = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#"
	utNS = "http://www.w3.org/2009/sparql/tests/test-update#"
)

// TestW3CEvaluationQueriesParse parses the query and update of every W3C
// evaluation test (the evaluator's suites): they must all be valid, except
// those listed in testdata/w3c-known-failures.txt.
func TestW3CEvaluationQueriesParse(t *testing.T) {
	root, err := filepath.Abs(w3cDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("W3C SPARQL test suites not found at %s (they are part of the repository; PERFKB_W3C_SPARQL names another copy): %v", root, err)
	}
	known := knownFailures(t)
	manifests, err := filepath.Glob(filepath.Join(root, "sparql1[01]", "*", "manifest.ttl"))
	if err != nil {
		t.Fatal(err)
	}
	var passed, failed int
	for _, m := range manifests {
		dir := filepath.Dir(m)
		if strings.Contains(filepath.Base(dir), "syntax") {
			continue
		}
		abs, err := filepath.Abs(m)
		if err != nil {
			t.Fatal(err)
		}
		triples, err := readTurtle(abs, "file://"+abs)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, tr := range triples {
			update := tr.p == "<"+utNS+"request>"
			if tr.p != "<"+qtNS+"query>" && !update {
				continue
			}
			file := strings.TrimPrefix(strings.Trim(tr.o, "<>"), "file://")
			src, err := os.ReadFile(file)
			if err != nil {
				continue // some manifests name files that are not shipped
			}
			opts := Options{BaseIRI: "file://" + file}
			if update {
				_, err = ParseUpdate(string(src), opts)
			} else {
				_, err = ParseQuery(string(src), opts)
			}
			rel, _ := filepath.Rel(root, file)
			switch {
			case err == nil:
				passed++
			case known[rel] != "":
				failed++
				t.Logf("known failure %s: %s", rel, known[rel])
			default:
				failed++
				t.Errorf("%s: %v", rel, err)
			}
		}
	}
	t.Logf("evaluation queries: %d parsed, %d failed", passed, failed)
}
