package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/textpos"
)

// addSeeds adds every file below dir whose name ends in one of exts to the
// corpus (dir may be missing: the W3C suites are optional).
func addSeeds(f *testing.F, dir string, exts ...string) {
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, ext := range exts {
			if strings.HasSuffix(path, ext) {
				if b, err := os.ReadFile(path); err == nil && len(b) < 64<<10 {
					f.Add(string(b))
				}
			}
		}
		return nil
	})
}

// FuzzParseQuery checks that no query text makes the parser panic or run
// away: every input either parses or fails with a positioned error.
func FuzzParseQuery(f *testing.F) {
	addSeeds(f, "testdata", ".rq")
	addSeeds(f, "../../testdata/w3c/w3c-sparql", ".rq")
	f.Fuzz(func(t *testing.T, src string) {
		_, err := ParseQuery(src, Options{})
		checkPositioned(t, err)
		_, err = ParseRDQL(src, Options{})
		checkPositioned(t, err)
	})
}

// FuzzParseUpdate is FuzzParseQuery for SPARQL Update.
func FuzzParseUpdate(f *testing.F) {
	addSeeds(f, "../../testdata/w3c/w3c-sparql", ".ru")
	f.Add("INSERT DATA { <a> <b> <c> }")
	f.Fuzz(func(t *testing.T, src string) {
		_, err := ParseUpdate(src, Options{})
		checkPositioned(t, err)
	})
}

func checkPositioned(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list textpos.ErrorList
	var one *textpos.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = textpos.ErrorList{one}
	default:
		t.Fatalf("error of type %T, want a positioned syntax error: %v", err, err)
	}
	for _, e := range list {
		if e.Pos.Line < 1 || e.Pos.Column < 1 {
			t.Fatalf("error without a position: %v", e)
		}
	}
}
