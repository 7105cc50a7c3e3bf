package rules

import "testing"

// TestLookupNoCopy: looking a shipped set up again does not copy its
// file: a rule upload may name the same set tens of thousands of times
// (each @include is resolved before the parser finds it a repeat), and a
// copy per lookup was gigabytes of garbage.
func TestLookupNoCopy(t *testing.T) {
	for _, name := range []string{"OWL", "RDFS", "PERFONTO"} {
		if _, _, ok := Lookup(name); !ok {
			t.Fatalf("Lookup(%q): not found", name)
		}
		if n := testing.AllocsPerRun(50, func() { Lookup(name) }); n != 0 {
			t.Errorf("Lookup(%q): %.0f allocations per call, want 0", name, n)
		}
	}
}
