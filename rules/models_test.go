package rules_test

import (
	"path/filepath"
	"testing"
)

// TestModelsRules runs testdata/models.test with the script interpreter
// of TestShippedRules.
func TestModelsRules(t *testing.T) {
	path := filepath.Join("testdata", "models.test")
	cases := readScript(t, path)
	if len(cases) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runCase(t, path, "MODELS", tc) })
	}
}
