package main

import (
	"strings"
	"testing"

	"github.com/perfkb/perfkb/rules"
)

// TestRulesListAligned: every row of 'rules list' starts its file and
// count columns at the same offsets, whatever the length of the set's
// name, and lists each shipped set once.
func TestRulesListAligned(t *testing.T) {
	code, out, errOut := runCLI(t, "", "rules", "list")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(rules.Names()) {
		t.Fatalf("%d lines for %d rule sets:\n%s", len(lines), len(rules.Names()), out)
	}
	fileCol, countCol := -1, -1
	for i, line := range lines {
		name := rules.Names()[i]
		file, _, _ := rules.Lookup(name)
		if !strings.HasPrefix(line, name+" ") {
			t.Errorf("line %d %q does not start with %s", i, line, name)
			continue
		}
		f := strings.Index(line, " "+file+" ") + 1
		c := strings.LastIndex(line, "  ") + 2
		if f <= 0 || !strings.HasSuffix(line, " rules") {
			t.Errorf("line %q lacks the file %s or the count", line, file)
			continue
		}
		if fileCol < 0 {
			fileCol, countCol = f, c
		}
		if f != fileCol || c != countCol {
			t.Errorf("line %q: file at column %d, count at %d; want %d and %d as on the first line", line, f, c, fileCol, countCol)
		}
	}
}
