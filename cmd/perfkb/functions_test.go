package main

import (
	"strings"
	"testing"
)

// TestFunctionsList checks that perfkb functions lists built-ins,
// aliases, casts and the fuzzy extension functions with their arities.
func TestFunctionsList(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "functions")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	for name, want := range map[string]string{
		"STRLEN":           "1 argument",
		"REGEX":            "2 or 3 arguments",
		"IRI":              "(URI)",
		"CONCAT":           "any number of arguments",
		"pf:fuzzyTriangle": "4 arguments",
		"pf:fuzzyAnd":      "at least 1 argument",
		"xsd:integer":      "1 argument",
	} {
		if l, ok := lines[name]; !ok || !strings.Contains(l, want) {
			t.Errorf("%s: line %q, want one containing %q", name, l, want)
		}
	}
}
