package rules_test

import (
	"path/filepath"
	"testing"
)

// TestScalabilityRules runs testdata/scalability.test with the script
// interpreter of TestShippedRules.
func TestScalabilityRules(t *testing.T) {
	path := filepath.Join("testdata", "scalability.test")
	cases := readScript(t, path)
	if len(cases) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runCase(t, path, "SCALABILITY", tc) })
	}
}
