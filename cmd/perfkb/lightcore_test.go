package main

import "testing"

// TestLightCore: --light-core keeps a slot from heavy work when on, never
// when off (the default), and by itself (auto) on machines of up to
// lightCoreMaxCores cores; an unknown value is a usage error.
func TestLightCore(t *testing.T) {
	for _, tc := range []struct {
		value string
		cores int
		want  bool
	}{
		{"on", 64, true},
		{"off", 2, false},
		{"auto", 1, true},
		{"auto", 2, true},
		{"auto", 4, true},
		{"auto", 5, false},
		{"auto", 16, false},
		{"", 2, false}, // unset: off, so heavy work alone keeps every core
	} {
		f := longQueryFlags{after: 1, gcPercent: 100, lightCore: tc.value, cores: tc.cores}
		if tc.value != "" {
			if err := f.validate(); err != nil {
				t.Fatalf("--light-core %q: %v", tc.value, err)
			}
		}
		if got := f.scheduler().KeepLightCore; got != tc.want {
			t.Errorf("--light-core %q on %d cores: keeps a light core %v, want %v", tc.value, tc.cores, got, tc.want)
		}
	}
	f := longQueryFlags{after: 1, gcPercent: 100, lightCore: "sometimes"}
	if err := f.validate(); err == nil {
		t.Error("--light-core sometimes: no error")
	}
}
