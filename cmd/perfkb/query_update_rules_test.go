package main

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// query --update on a store the rules ran on withdraws the derived
// triples that no longer follow (DELETE) and derives what newly follows
// (INSERT), as serve --rules does; --no-rules writes only the update.
// The expected inferred graphs are the transitive closures of the edges
// left, worked by hand.
func TestQueryUpdateKeepsDerivations(t *testing.T) {
	rulesFile := filepath.Join("testdata", "updaterules", "path.rules")
	data := filepath.Join("testdata", "updaterules", "sites.nq")
	const site = "<http://e/site/a>"
	cases := []struct {
		name   string
		update []string // query --update arguments after the store
		stderr string
		paths  []string // inferred e:path pairs afterwards
	}{
		{
			// x-y-z-w; without y-z only x-y and z-w stay.
			name:   "delete data",
			update: []string{"--rules", rulesFile, "-e", "DELETE DATA { GRAPH " + site + " { <http://e/y> <http://e/edge> <http://e/z> } }"},
			stderr: "4 withdrawn",
			paths:  []string{"x y", "z w"},
		},
		{
			name:   "delete where",
			update: []string{"--rules", rulesFile, "-e", "DELETE WHERE { GRAPH ?g { ?a <http://e/edge> <http://e/w> } }"},
			stderr: "3 withdrawn",
			paths:  []string{"x y", "x z", "y z"},
		},
		{
			// w-v adds a path to v from each of x, y, z, w.
			name:   "insert data",
			update: []string{"--rules", rulesFile, "-e", "INSERT DATA { GRAPH " + site + " { <http://e/w> <http://e/edge> <http://e/v> } }"},
			stderr: "4 derived",
			paths:  []string{"w v", "x v", "x w", "x y", "x z", "y v", "y w", "y z", "z v", "z w"},
		},
		{
			name:   "no rules",
			update: []string{"--no-rules", "-e", "DELETE DATA { GRAPH " + site + " { <http://e/y> <http://e/edge> <http://e/z> } }"},
			paths:  []string{"x w", "x y", "x z", "y w", "y z", "z w"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			storeFlag := "--store=native:" + filepath.Join(t.TempDir(), "db")
			run := func(args ...string) (string, string) {
				t.Helper()
				code, stdout, stderr := runCLI(t, "", append([]string{storeFlag}, args...)...)
				if code != 0 {
					t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
				}
				return stdout, stderr
			}
			run("load", data)
			run("reason", "--rules", rulesFile)
			_, stderr := run(append([]string{"query", "--update"}, c.update...)...)
			if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
			}
			if c.stderr == "" && strings.Contains(stderr, "rules:") {
				t.Errorf("--no-rules ran the rules:\n%s", stderr)
			}
			out, _ := run("query", "--format", "tsv", "-e", "SELECT ?a ?b { GRAPH <urn:x-perfkb:inferred> { ?a <http://e/path> ?b } }")
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
				f := strings.Split(line, "\t")
				if len(f) != 2 {
					t.Fatalf("row %q", line)
				}
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(f[0], "<http://e/"), ">")+" "+strings.TrimSuffix(strings.TrimPrefix(f[1], "<http://e/"), ">"))
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, c.paths) {
				t.Errorf("inferred paths %v, want %v", got, c.paths)
			}
		})
	}
}

// The rule flags belong to --update.
func TestQueryRulesFlagsNeedUpdate(t *testing.T) {
	for _, args := range [][]string{
		{"query", "--no-rules", "-e", "ASK {}"},
		{"query", "--update", "--no-rules", "--rules", "RDFS", "-e", "CLEAR ALL"},
		{"query", "--update", "--define", "A=1", "-e", "CLEAR ALL"},
	} {
		if code, _, stderr := runCLI(t, "", append([]string{"--store=native:" + filepath.Join(t.TempDir(), "db")}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, code, stderr)
		}
	}
}

// Without --rules, an update on a store that `perfkb reason` ran on (the
// shipped sets) withdraws through those sets: i's type B follows from
// its type A and A ⊑ B only.
func TestQueryUpdateDefaultRules(t *testing.T) {
	storeFlag := "--store=native:" + filepath.Join(t.TempDir(), "db")
	const ask = "ASK { GRAPH <urn:x-perfkb:inferred> { <http://e/i> a <http://e/B> } }"
	steps := []struct {
		args []string
		want string // in stdout and stderr
	}{
		{[]string{"load", filepath.Join("testdata", "updaterules", "subclass.nq")}, ""},
		{[]string{"reason"}, ""},
		{[]string{"query", "--format", "tsv", "-e", ask}, "true"},
		{[]string{"query", "--update", "-e", "DELETE DATA { GRAPH <http://e/site/a> { <http://e/i> a <http://e/A> } }"}, "1 withdrawn"},
		{[]string{"query", "--format", "tsv", "-e", ask}, "false"},
	}
	for _, s := range steps {
		code, stdout, stderr := runCLI(t, "", append([]string{storeFlag}, s.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", s.args, code, stdout, stderr)
		}
		if !strings.Contains(stdout+stderr, s.want) {
			t.Errorf("%v: output lacks %q:\n%s%s", s.args, s.want, stdout, stderr)
		}
	}
}
