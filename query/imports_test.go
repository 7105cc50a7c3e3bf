package query_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFacadeIsTheOnlyImport fails when a file of the server or the CLI
// (tests included) imports a stage of the query engine instead of this
// package: what they need belongs in package query (or query/results, the
// results codec, which they may import).
func TestFacadeIsTheOnlyImport(t *testing.T) {
	forbidden := map[string]bool{}
	for _, stage := range []string{"eval", "syntax", "algebra", "federation", "opt", "function"} {
		forbidden["github.com/perfkb/perfkb/query/"+stage] = true
	}
	checked := 0
	for _, root := range []string{"../server", "../cmd/perfkb"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			for _, imp := range f.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					return err
				}
				if forbidden[p] {
					t.Errorf("%s imports %s; use package query instead", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d Go files under ../server and ../cmd/perfkb; is the layout different?", checked)
	}
}
