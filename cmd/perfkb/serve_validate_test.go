package main

import (
	"testing"

	"github.com/perfkb/perfkb/server"
)

// TestPushValidateFlags: --validate's modes become the server's, a bad
// mode or --shapes without --validate is a usage error, and a shapes file
// is read (a missing one is an error).
func TestPushValidateFlags(t *testing.T) {
	for _, tc := range []struct {
		mode, shapes string
		want         server.ValidationMode
		ok           bool
	}{
		{"", "", server.ValidateOff, true},
		{"reject", "", server.ValidateReject, true},
		{"warn", "", server.ValidateWarn, true},
		{"reject", "../../ontology/perfonto-shapes.ttl", server.ValidateReject, true},
		{"sometimes", "", 0, false},
		{"", "../../ontology/perfonto-shapes.ttl", 0, false},
		{"reject", "no-such-shapes.ttl", 0, false},
	} {
		f := pushValidateFlags{mode: tc.mode, shapes: tc.shapes}
		err := f.validate()
		if (err == nil) != tc.ok {
			t.Errorf("--validate=%q --shapes=%q: error %v, want ok=%v", tc.mode, tc.shapes, err, tc.ok)
			continue
		}
		if tc.ok && f.checked.Mode != tc.want {
			t.Errorf("--validate=%q: mode %d, want %d", tc.mode, f.checked.Mode, tc.want)
		}
		if tc.ok && tc.shapes != "" && f.checked.Shapes == nil {
			t.Errorf("--shapes %s was not read", tc.shapes)
		}
	}
}
