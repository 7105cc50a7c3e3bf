package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/reasoner"
)

// TestWaitStateRules runs testdata/waitstates.test like TestShippedRules
// and checks that every rule of waitstates.rules has a fires and a
// not-fires case.
func TestWaitStateRules(t *testing.T) {
	path := filepath.Join("testdata", "waitstates.test")
	cases := readScript(t, path)
	if len(cases) == 0 {
		t.Fatalf("%s has no cases", path)
	}
	fires, notFires := map[string]bool{}, map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runCase(t, path, "WAITSTATES", tc) })
		for _, st := range tc.steps {
			for _, a := range st.args {
				fires[a] = fires[a] || st.verb == "fires"
				notFires[a] = notFires[a] || st.verb == "not-fires"
			}
		}
	}
	prog, err := reasoner.LoadProgram([]string{"WAITSTATES"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range prog.Rules() {
		if !fires[r.Name] || !notFires[r.Name] {
			t.Errorf("rule %s needs a fires and a not-fires case", r.Name)
		}
	}
}
