package syntax

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRDQLMatchesSPARQL checks that each testdata/rdql/*.rdql query yields
// exactly the algebra of its SPARQL translation in the .rq file beside it.
func TestRDQLMatchesSPARQL(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rdql", "*.rdql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no RDQL inputs in testdata/rdql")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			rdql, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sparql, err := os.ReadFile(strings.TrimSuffix(file, ".rdql") + ".rq")
			if err != nil {
				t.Fatal(err)
			}
			if !LooksLikeRDQL(string(rdql)) {
				t.Errorf("LooksLikeRDQL = false for %s", file)
			}
			if LooksLikeRDQL(string(sparql)) {
				t.Errorf("LooksLikeRDQL = true for the SPARQL translation")
			}
			rq, err := ParseRDQL(string(rdql), Options{})
			if err != nil {
				t.Fatalf("ParseRDQL: %v", err)
			}
			sq, err := ParseQuery(string(sparql), Options{})
			if err != nil {
				t.Fatalf("ParseQuery: %v", err)
			}
			if got, want := rq.String(), sq.String(); got != want {
				t.Errorf("RDQL algebra differs from SPARQL\n--- RDQL:\n%s\n--- SPARQL:\n%s", got, want)
			}
			if got, want := rq.Vars, sq.Vars; len(got) != len(want) {
				t.Errorf("Vars = %v, want %v", got, want)
			}
		})
	}
}

// TestRDQLErrors checks that unsupported RDQL constructs and syntax errors
// are reported with positions.
func TestRDQLErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"SELECT ?x WHERE (?x ?p ?o) AND ?o & 1", "1:35: RDQL bit operator"},
		{"SELECT ?x WHERE (?x ?p) ", "1:23: expected variable, IRI or literal, found ')'"},
		{"SELECT ?x WHERE (?x ex:p ?o)", `1:21: undefined prefix "ex:"`},
		{"SELECT ?x WHERE (?x ?p ?o) USING ex <http://e/>", "1:37: expected FOR"},
		{"SELECT ?x WHERE (?x ?p ?o) AND ?o =~ \"a\"", "1:38: expected pattern literal"},
	}
	for _, tc := range tests {
		_, err := ParseRDQL(tc.src, Options{})
		if err == nil {
			t.Errorf("ParseRDQL(%q) succeeded, want error %q", tc.src, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRDQL(%q) error = %q, want it to contain %q", tc.src, err, tc.want)
		}
	}
}
