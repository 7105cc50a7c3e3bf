package ontology_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/ontology"
)

// vocabNamespaces are the namespaces whose IRIs Go code outside this
// package takes from ontology constants instead of spelling them out, so
// that each is declared once (issue 9, "vocabulary only from ontology").
var vocabNamespaces = []string{
	ontology.Namespace,
	ontology.RDFNamespace,
	ontology.RDFSNamespace,
	ontology.OWLNamespace,
	ontology.XSDNamespace,
}

// wireFormFiles are non-test files allowed to spell the namespaces inside
// RDF documents (a literal holding N-Triples/N-Quads statements), because
// the document pins the bytes a store must read and write back. A plain
// namespace or IRI constant in them is still reported.
var wireFormFiles = map[string]string{
	"kb/kbtest/kbtest.go": "the shared store conformance suite loads and exports a fixed N-Quads document",
}

// TestVocabularyOnlyFromOntology fails when a non-test Go file outside
// ontology/ holds a string literal containing the RDF, RDFS, OWL, XSD or
// PERFONTO namespace: such code must use the ontology constants. Comments
// may still quote the namespaces (they declare nothing).
func TestVocabularyOnlyFromOntology(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found above ontology/: %v", err)
	}
	fset := token.NewFileSet()
	var offenders []string
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			// ontology/ declares the namespaces; testdata, vendor and
			// hidden folders are not compiled into perfkb.
			if rel == "ontology" || name == "testdata" || name == "vendor" ||
				(rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		_, wireOK := wireFormFiles[rel]
		ast.Inspect(f, func(n ast.Node) bool {
			if bin, ok := n.(*ast.BinaryExpr); ok && bin.Op == token.ADD && isPerfontoNamespace(bin.X) {
				if local, ok := localNameLit(bin.Y); ok {
					pos := fset.Position(bin.Pos())
					offenders = append(offenders, rel+":"+strconv.Itoa(pos.Line)+": PERFONTO namespace + "+strconv.Quote(local)+" (use the term constant)")
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, ns := range vocabNamespaces {
				if !strings.Contains(s, ns) {
					continue
				}
				if wireOK && (strings.Contains(s, "^^<") || strings.Contains(s, "> <")) {
					continue
				}
				pos := fset.Position(lit.Pos())
				offenders = append(offenders, rel+":"+strconv.Itoa(pos.Line)+": "+ns)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("scanned only %d Go files under %s; the walk is broken", files, root)
	}
	if len(offenders) > 0 {
		t.Errorf("%d places outside ontology/ spell vocabulary IRIs; use the ontology constants (ontology.Namespace, XSDNamespace, XSDInteger, RDFType, ...):\n%s",
			len(offenders), strings.Join(offenders, "\n"))
	}
}

// perfontoNamespaceNames are the names code outside ontology/ has given the
// PERFONTO namespace (ontology.Namespace, rulelang.PERFONTO,
// server.PerfontoNS); a string appended to one of them respells a term.
var perfontoNamespaceNames = map[string]bool{"PERFONTO": true, "PerfontoNS": true}

// isPerfontoNamespace reports whether e names the PERFONTO namespace.
func isPerfontoNamespace(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return perfontoNamespaceNames[e.Name]
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "ontology" && e.Sel.Name == "Namespace" {
			return true
		}
		return perfontoNamespaceNames[e.Sel.Name]
	}
	return false
}

// localNameLit returns the value of e when it is a string literal that
// reads as a local name (starts with a letter), as in Namespace+"hasMetric";
// a prefix declaration such as "PREFIX perfonto: <"+Namespace+">" is not.
func localNameLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil || s == "" {
		return "", false
	}
	c := s[0]
	return s, c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
