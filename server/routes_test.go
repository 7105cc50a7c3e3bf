package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoutesInOnePlace checks that every route of the server is registered
// in routes(), where a reader finds the whole HTTP surface: no gin route
// registration (GET, POST, PUT, DELETE, HEAD, Handle, Any) appears in any
// other function of the package.
func TestRoutesInOnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	register := map[string]bool{"GET": true, "POST": true, "PUT": true, "DELETE": true, "HEAD": true, "PATCH": true, "OPTIONS": true, "Handle": true, "Any": true}
	fset := token.NewFileSet()
	inRoutes := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !register[sel.Sel.Name] || len(call.Args) < 2 {
					return true
				}
				// A route registration: a path string literal first.
				if lit, ok := call.Args[0].(*ast.BasicLit); !ok || lit.Kind != token.STRING || !strings.HasPrefix(lit.Value, `"/`) {
					if sel.Sel.Name != "Handle" {
						return true
					}
				}
				if fn.Name.Name == "routes" {
					inRoutes++
				} else {
					t.Errorf("%s: route registered in %s, not in routes()", fset.Position(call.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
	if inRoutes < 20 {
		t.Errorf("found %d route registrations in routes(); the check does not see them", inRoutes)
	}
}
