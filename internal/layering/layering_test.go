package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/perfkb/perfkb"

// pkg is what go list reports of one package.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listModule returns the module's packages (and the packages they import)
// as go list sees them, without tests.
func listModule(t *testing.T) map[string]pkg {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is needed to list the packages: %v", err)
	}
	cmd := exec.Command(gotool, "list", "-deps", "-json=ImportPath,Imports,Deps", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if inModule(p.ImportPath) {
			pkgs[p.ImportPath] = p
		}
	}
	return pkgs
}

func inModule(path string) bool {
	return path == module || strings.HasPrefix(path, module+"/")
}

// topDir is the first element of a module package's path below the module.
func topDir(path string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	dir, _, _ := strings.Cut(rest, "/")
	return dir
}

// chain is an import path from one package to another, found breadth
// first, for the failure message.
func chain(pkgs map[string]pkg, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var path []string
			for ; p != ""; p = prev[p] {
				path = append(path, strings.TrimPrefix(p, module+"/"))
			}
			slices.Reverse(path)
			return path
		}
		for _, q := range pkgs[p].Imports {
			if _, seen := prev[q]; !seen && inModule(q) {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return []string{from, "…", to}
}

// violations lists the dependencies of pkgs that rules forbid, one line
// each with the import chain that brings them in.
func violations(pkgs map[string]pkg, rules map[string][]string) []string {
	var out []string
	for _, path := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[path]
		if _, ok := TestSupport[strings.TrimPrefix(path, module+"/")]; ok {
			continue
		}
		dir := topDir(path)
		allowed, ok := rules[dir]
		if !ok {
			out = append(out, fmt.Sprintf("%s: top-level directory %q is not in layering.Rules", path, dir))
			continue
		}
		if slices.Contains(allowed, "*") {
			continue
		}
		for _, d := range p.Deps {
			if !inModule(d) {
				continue
			}
			if dd := topDir(d); dd != dir && !slices.Contains(allowed, dd) {
				out = append(out, fmt.Sprintf("%s must not depend on %s (%s may use only %v): %s",
					strings.TrimPrefix(path, module+"/"), strings.TrimPrefix(d, module+"/"), dir, allowed,
					strings.Join(chain(pkgs, path, d), " → ")))
			}
		}
	}
	return out
}

// TestLayers checks every non-test package of the module against Rules.
func TestLayers(t *testing.T) {
	pkgs := listModule(t)
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages of %s: not the whole module", len(pkgs), module)
	}
	for _, v := range violations(pkgs, Rules) {
		t.Error(v)
	}
}

// TestViolations checks the checker on a made-up module: a converter that
// reaches the reasoner through a helper, and a directory Rules lacks.
func TestViolations(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	pkgs := map[string]pkg{
		m("convert/sensor"): {ImportPath: m("convert/sensor"), Imports: []string{m("convert"), "fmt"},
			Deps: []string{m("convert"), m("kb"), m("reasoner"), "fmt"}},
		m("convert"):  {ImportPath: m("convert"), Imports: []string{m("kb"), m("reasoner")}, Deps: []string{m("kb"), m("reasoner")}},
		m("kb"):       {ImportPath: m("kb")},
		m("reasoner"): {ImportPath: m("reasoner"), Imports: []string{m("kb")}, Deps: []string{m("kb")}},
		m("newtop/x"): {ImportPath: m("newtop/x"), Imports: []string{m("kb")}, Deps: []string{m("kb")}},
	}
	rules := map[string][]string{"kb": {}, "reasoner": {"kb"}, "convert": {"kb"}}
	got := violations(pkgs, rules)
	want := []string{
		"convert must not depend on reasoner (convert may use only [kb]): convert → reasoner",
		"convert/sensor must not depend on reasoner (convert may use only [kb]): convert/sensor → convert → reasoner",
		m("newtop/x") + `: top-level directory "newtop" is not in layering.Rules`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
