package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// drop-graph --rules withdraws what the rules derived from the dropped
// graph, in the same change, and keeps what still follows.
func TestDropGraphRetract(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	data := filepath.Join(dir, "sites.nq")
	ruleFile := filepath.Join(dir, "path.rules")
	for path, text := range map[string]string{
		data: "<http://e/x> <http://e/edge> <http://e/y> <http://e/site/a> .\n" +
			"<http://e/y> <http://e/edge> <http://e/z> <http://e/site/b> .\n" +
			"<http://e/x> <http://e/edge> <http://e/z> <http://e/site/a> .\n",
		ruleFile: "@prefix e: <http://e/>.\n" +
			"[p0: (?a e:edge ?b) -> (?a e:path ?b)]\n" +
			"[p1: (?a e:path ?b), (?b e:edge ?c) -> (?a e:path ?c)]\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		args   []string
		stdout []string
	}{
		{[]string{"load", data}, nil},
		// path x-y, y-z, x-z (by its own edge and through y).
		{[]string{"reason", "--rules", ruleFile}, nil},
		{[]string{"graphs"}, []string{"3\t<urn:x-perfkb:inferred>"}},
		// Without y-z: path y-z goes; x-z stays (its own edge).
		{[]string{"drop-graph", "--rules", ruleFile, "http://e/site/b"}, []string{"dropped 1 quads", "withdrew 1 derived triples"}},
		{[]string{"graphs"}, []string{"2\t<urn:x-perfkb:inferred>"}},
		{[]string{"export", "--graph", "urn:x-perfkb:inferred", "--format", "ntriples"}, []string{
			"<http://e/x> <http://e/path> <http://e/y> .", "<http://e/x> <http://e/path> <http://e/z> ."}},
	}
	for _, s := range steps {
		code, stdout, stderr := runCLI(t, "", append([]string{storeFlag}, s.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", s.args, code, stdout, stderr)
		}
		for _, want := range s.stdout {
			if !strings.Contains(stdout, want) {
				t.Errorf("%v: stdout lacks %q:\n%s", s.args, want, stdout)
			}
		}
	}
}
