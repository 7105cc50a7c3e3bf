package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReasonWritesToTheDeltaLog: perfkb reason runs over the native
// store's read side, so the triples it derives go to the delta log as one
// entry and the side files of the loaded base stay valid (a write to the
// six indexes would remove them, and the next command would scan Pebble
// to rebuild what they held). The closure is checked against the hand
// count of a chain's transitive closure, read back by a separate query,
// and a second run derives nothing. --cpuprofile writes a gzipped pprof
// profile of the command.
func TestReasonWritesToTheDeltaLog(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	storeFlag := "--store=native:" + db
	const nodes = 40
	var data strings.Builder
	for i := range nodes - 1 {
		fmt.Fprintf(&data, "<http://e/n%d> <http://e/next> <http://e/n%d> .\n", i, i+1)
	}
	// Enough other triples for a bulk load, which writes side files.
	for i := range 20000 {
		fmt.Fprintf(&data, "<http://e/x%d> <http://e/label> \"%d\" .\n", i, i)
	}
	dataFile, rulesFile := filepath.Join(dir, "chain.nt"), filepath.Join(dir, "t.rules")
	if err := os.WriteFile(dataFile, []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rulesFile, []byte("@prefix e: <http://e/>.\n[t: (?a e:next ?b) (?b e:next ?c) -> (?a e:next ?c)]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", dataFile); code != 0 {
		t.Fatalf("load: %d %s", code, stderr)
	}
	sides, _ := filepath.Glob(filepath.Join(db, "readside-*"))
	if len(sides) == 0 {
		t.Fatalf("the load left no side files in %s: nothing to check", db)
	}
	profile := filepath.Join(dir, "cpu.pprof")
	code, _, stderr := runCLI(t, "", storeFlag, "reason", "--rules", rulesFile, "--no-derivations", "--cpuprofile", profile)
	if code != 0 {
		t.Fatalf("reason: %d %s", code, stderr)
	}
	derived := nodes*(nodes-1)/2 - (nodes - 1)
	if want := fmt.Sprintf("%d derived", derived); !strings.Contains(stderr, want) {
		t.Errorf("reason's summary lacks %q:\n%s", want, stderr)
	}
	after, _ := filepath.Glob(filepath.Join(db, "readside-*"))
	if len(after) != len(sides) {
		t.Errorf("side files after reason: %v, want the load's %v", after, sides)
	}
	b, err := os.ReadFile(profile)
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("--cpuprofile wrote %d bytes (err %v), want a gzipped profile", len(b), err)
	}
	code, stdout, stderr := runCLI(t, "", storeFlag, "query", "--format", "tsv",
		"SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:x-perfkb:inferred> { ?a <http://e/next> ?c } }")
	if code != 0 || !strings.Contains(stdout, fmt.Sprint(derived)) {
		t.Errorf("query of the inferred graph: exit %d, %q (want %d) %s", code, stdout, derived, stderr)
	}
	code, _, stderr = runCLI(t, "", storeFlag, "reason", "--rules", rulesFile, "--no-derivations")
	if code != 0 || !strings.Contains(stderr, "nothing to derive") {
		t.Errorf("second reason: exit %d, want nothing to derive:\n%s", code, stderr)
	}
}
