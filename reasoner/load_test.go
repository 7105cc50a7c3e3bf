package reasoner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/textpos"
)

// ruleNames lists the labels of a program's rules that are not from a
// shipped set.
func ruleNames(p *Program) []string {
	var out []string
	for _, r := range p.Rules() {
		if !rules.IsShippedFile(r.Pos.Source) {
			out = append(out, r.Name)
		}
	}
	return out
}

// TestLoadSources covers the one rule-loading path with both resolvers:
// files relative to the including file (CLI), the shipped sets only
// (HTTP), a diamond of includes read once, and #@advice checked in every
// file read.
func TestLoadSources(t *testing.T) {
	dir := filepath.Join("testdata", "load")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		sources []Source
		upload  bool
		rules   []string // non-shipped rule labels, in order (when no error)
		advice  []string // advice classes (when no error)
		errs    []string // wanted errors, each FILE:LINE:COL: …text
	}{
		{
			name:    "diamond of files read once",
			sources: []Source{{Name: filepath.Join(dir, "top.rules")}},
			rules:   []string{"leaf", "left", "right", "top"},
			advice:  []string{"http://example.org/my#Leafy"},
		},
		{
			name: "a file named again and included by an earlier source is read once",
			sources: []Source{{Name: filepath.Join(dir, "top.rules")}, {Name: filepath.Join(dir, "left.rules")},
				{Name: filepath.Join(dir, "sub", "leaf.rules")}, {Name: "RDFS"}},
			rules:  []string{"leaf", "left", "right", "top"},
			advice: []string{"http://example.org/my#Leafy"},
		},
		{
			name:    "uploaded text including shipped sets",
			sources: []Source{{Name: "up.rules", Text: []byte("@include <PERFONTO>.\n@include <rdfs>.\n[mine: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]\n")}},
			upload:  true,
			rules:   []string{"mine"},
		},
		{
			name:    "upload may not include a file, relative",
			sources: []Source{{Name: "upload.rules", Text: read("upload.rules")}},
			upload:  true,
			errs:    []string{"upload.rules:2:10: @include <top.rules>: rule files are not read from the server's disk"},
		},
		{
			name: "upload may not include a file, absolute",
			sources: []Source{{Name: "abs.rules", Text: []byte("[r: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]\n@include <" +
				mustAbs(t, filepath.Join(dir, "top.rules")) + ">.\n")}},
			upload: true,
			errs:   []string{"abs.rules:2:10: @include <"},
		},
		{
			name:    "upload resolver does not read a named file either",
			sources: []Source{{Name: filepath.Join(dir, "top.rules")}},
			upload:  true,
			errs:    []string{filepath.Join(dir, "top.rules") + ":1:1: rule files are not read from the server's disk"},
		},
		{
			name:    "missing file",
			sources: []Source{{Name: filepath.Join(dir, "nothere.rules")}},
			errs:    []string{filepath.Join(dir, "nothere.rules") + ":1:1: cannot read "},
		},
		{
			name:    "malformed advice in a top-level file",
			sources: []Source{{Name: filepath.Join(dir, "badadvice.rules")}},
			errs:    []string{filepath.Join(dir, "badadvice.rules") + `:3:10: #@advice: undeclared prefix "nope:"`},
		},
		{
			name:    "malformed advice in an included file, with a syntax error beside it",
			sources: []Source{{Name: filepath.Join(dir, "includes-badadvice.rules")}},
			errs: []string{
				filepath.Join(dir, "badadvice.rules") + `:3:10: #@advice: undeclared prefix "nope:"`,
				filepath.Join(dir, "includes-badadvice.rules") + ":2:",
			},
		},
		{
			name:    "advice without text in an upload",
			sources: []Source{{Name: "u.rules", Text: []byte("@prefix my: <http://e/my#>.\n#@advice my:A\n[r: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]\n")}},
			upload:  true,
			errs:    []string{"u.rules:2:1: #@advice: no text for http://e/my#A"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := ParseOptions{}
			if tc.upload {
				opts.Resolve = UploadResolver()
			}
			prog, err := LoadSources(context.Background(), tc.sources, opts)
			if len(tc.errs) > 0 {
				var list textpos.ErrorList
				if !errors.As(err, &list) {
					t.Fatalf("err = %v (%T), want a textpos.ErrorList", err, err)
				}
				if len(list) != len(tc.errs) {
					t.Errorf("%d errors, want %d: %v", len(list), len(tc.errs), list.Unwrap())
				}
				for i, want := range tc.errs {
					if i < len(list) && !strings.HasPrefix(list[i].Error(), want) {
						t.Errorf("error %d = %q\nwant prefix %q", i, list[i].Error(), want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ruleNames(prog); !slices.Equal(got, tc.rules) {
				t.Errorf("rules %v, want %v", got, tc.rules)
			}
			var classes []string
			for _, a := range prog.Advice() {
				if !rules.IsShippedFile(a.File) {
					classes = append(classes, a.Class)
				}
			}
			if !slices.Equal(classes, tc.advice) {
				t.Errorf("advice %v, want %v", classes, tc.advice)
			}
		})
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestIncludeBounds: includes nest at most 32 deep and a cycle is an error
// at the @include, whichever resolver reads them.
func TestIncludeBounds(t *testing.T) {
	files := map[string]string{}
	const depth = 40
	for i := 0; i < depth; i++ {
		files[fmt.Sprintf("f%d.rules", i)] = fmt.Sprintf("@include <f%d.rules>.\n", i+1)
	}
	files[fmt.Sprintf("f%d.rules", depth)] = "[end: (?a <http://e/p> ?b) -> (?a <http://e/q> ?b)]\n"
	files["a.rules"] = "\n@include <b.rules>.\n"
	files["b.rules"] = "@include <a.rules>.\n"
	reads := 0
	readFile := func(path string) ([]byte, error) {
		reads++
		if src, ok := files[filepath.Base(path)]; ok {
			return []byte(src), nil
		}
		return nil, os.ErrNotExist
	}
	_, err := LoadProgram([]string{"f0.rules"}, ParseOptions{ReadFile: readFile})
	if err == nil || !strings.Contains(err.Error(), "f31.rules:1:10: @include <f32.rules>: includes nested more than 32 deep") {
		t.Errorf("deep chain: %v", err)
	}
	if reads != 32 {
		t.Errorf("read %d files for a chain cut at depth 32", reads)
	}
	_, err = LoadProgram([]string{"a.rules"}, ParseOptions{ReadFile: readFile})
	if err == nil || !strings.Contains(err.Error(), "b.rules:1:10: @include <a.rules>: include cycle (a.rules -> b.rules -> a.rules)") {
		t.Errorf("cycle: %v", err)
	}
}
