package eval

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// specialForms are the built-ins compileBuiltin implements itself because
// their arguments are not all evaluated first.
var specialForms = map[algebra.Builtin]bool{algebra.BuiltinBound: true, algebra.BuiltinIf: true, algebra.BuiltinCoalesce: true}

// TestImplementationsDeclared fails when a function is declared in
// function.Builtin but not implemented here, implemented here but not
// declared, or named by an algebra.Builtin constant without a declaration:
// the parser and the evaluator read one table, and nothing may bypass it.
func TestImplementationsDeclared(t *testing.T) {
	reg := function.Builtin()
	declared := map[string]bool{}
	for _, d := range reg.Defs() {
		declared[d.Name] = true
		switch {
		case d.Special:
			if !specialForms[algebra.Builtin(d.Name)] {
				t.Errorf("%s is declared special but compileBuiltin does not handle it", d.Name)
			}
		case d.IsIRI():
			if _, ok := castImpls[d.Name]; !ok {
				t.Errorf("cast <%s> is declared but not implemented (castImpls)", d.Name)
			}
		default:
			if _, ok := builtinImpls[algebra.Builtin(d.Name)]; !ok {
				t.Errorf("%s is declared but not implemented (builtinImpls)", d.Name)
			}
		}
		if d.Call != nil {
			t.Errorf("built-in %s carries an extension implementation", d.Name)
		}
	}
	for name := range builtinImpls {
		if d, ok := reg.Keyword(string(name)); !ok || d.Name != string(name) || d.Special {
			t.Errorf("builtinImpls implements %s, which function.Builtin does not declare as a strict built-in", name)
		}
	}
	for iri := range castImpls {
		if !declared[iri] {
			t.Errorf("castImpls implements <%s>, which function.Builtin does not declare", iri)
		}
	}
	for name := range specialForms {
		if d, ok := reg.Keyword(string(name)); !ok || !d.Special {
			t.Errorf("special form %s is not declared special", name)
		}
	}
	// Every algebra.Builtin constant names a declared function.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../algebra/expr.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := 0
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Builtin" {
			return true
		}
		for i, v := range vs.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok {
				continue
			}
			name, _ := strconv.Unquote(lit.Value)
			consts++
			if !declared[name] {
				t.Errorf("algebra.%s = %q is not declared in function.Builtin", vs.Names[i].Name, name)
			}
		}
		return true
	})
	if consts < 50 {
		t.Errorf("found %d algebra.Builtin constants in ../algebra/expr.go, want the 52 of SPARQL 1.1", consts)
	}
}

// TestCompileResolves checks that calls are resolved when compiled: an
// arity the declaration does not allow fails the query before any row, an
// extension function in Options.Functions is called, and a function no
// registry declares is an expression error (FILTER false, BIND unbound).
func TestCompileResolves(t *testing.T) {
	const ex = "http://example.org/f#"
	reg := function.Builtin().Clone()
	calls := 0
	if err := reg.Register(function.Def{Name: ex + "twice", Min: 1, Max: 1, Call: func(a []kb.Term) (kb.Term, error) {
		calls++
		return kb.String(a[0].Value + a[0].Value), nil
	}}); err != nil {
		t.Fatal(err)
	}
	ds := native.OpenMemory()
	defer ds.Close()
	lit := func(s string) algebra.Expr { return &algebra.ConstExpr{Term: kb.String(s)} }
	tests := []struct {
		name    string
		expr    algebra.Expr
		want    string // value bound to ?x; "" for unbound
		wantErr bool   // the query fails when compiled
	}{
		{"extension", &algebra.FuncExpr{IRI: ex + "twice", Args: []algebra.Expr{lit("ab")}}, "abab", false},
		{"extension arity", &algebra.FuncExpr{IRI: ex + "twice", Args: []algebra.Expr{lit("a"), lit("b")}}, "", true},
		{"builtin arity", &algebra.BuiltinExpr{Name: algebra.BuiltinStrLen, Args: []algebra.Expr{lit("a"), lit("b")}}, "", true},
		{"unknown builtin", &algebra.BuiltinExpr{Name: "FROB", Args: []algebra.Expr{lit("a")}}, "", true},
		{"undeclared iri", &algebra.FuncExpr{IRI: ex + "nope", Args: []algebra.Expr{lit("a")}}, "", false},
		{"cast", &algebra.FuncExpr{IRI: ontology.XSDInteger, Args: []algebra.Expr{lit(" 42 ")}}, "42", false},
		{"regex constant", &algebra.BuiltinExpr{Name: algebra.BuiltinRegex, Args: []algebra.Expr{lit("Abc"), lit("^a"), lit("i")}}, "true", false},
		{"regex bad constant", &algebra.BuiltinExpr{Name: algebra.BuiltinRegex, Args: []algebra.Expr{lit("Abc"), lit("(")}}, "", false},
		{"regex variable flags", &algebra.BuiltinExpr{Name: algebra.BuiltinRegex, Args: []algebra.Expr{lit("Abc"), lit("^a"), &algebra.BuiltinExpr{Name: algebra.BuiltinLCase, Args: []algebra.Expr{lit("I")}}}}, "true", false},
		{"replace constant", &algebra.BuiltinExpr{Name: algebra.BuiltinReplace, Args: []algebra.Expr{lit("a-b-c"), lit("-(.)"), lit(`\\$1`)}}, `a\b\c`, false},
		{"replace quoted", &algebra.BuiltinExpr{Name: algebra.BuiltinReplace, Args: []algebra.Expr{lit("a.b"), lit("."), lit("$"), lit("q")}}, "a$b", false},
		{"regex unknown flag", &algebra.BuiltinExpr{Name: algebra.BuiltinRegex, Args: []algebra.Expr{lit("a"), lit("a"), lit("u")}}, "", false},
		{"replace variable replacement", &algebra.BuiltinExpr{Name: algebra.BuiltinReplace, Args: []algebra.Expr{lit("abc"), lit("b"), &algebra.BuiltinExpr{Name: algebra.BuiltinUCase, Args: []algebra.Expr{lit("x$0")}}}}, "aXbc", false},
		{"replace empty match", &algebra.BuiltinExpr{Name: algebra.BuiltinReplace, Args: []algebra.Expr{lit("abc"), lit("x*"), lit("y")}}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := &algebra.Query{Form: algebra.FormSelect, Vars: []algebra.Var{"x"},
				Pattern: &algebra.Extend{Input: &algebra.BGP{}, Var: "x", Expr: tc.expr}}
			res, err := Query(context.Background(), ds, q, Options{Functions: reg})
			if err == nil {
				defer res.Close()
			}
			if tc.wantErr {
				if err == nil {
					t.Fatal("query succeeded, want a compile error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			row, ok := res.Next()
			if !ok {
				t.Fatalf("no row: %v", res.Err())
			}
			if row[0].Value != tc.want {
				t.Errorf("?x = %v, want %q", row[0], tc.want)
			}
		})
	}
	if calls != 1 {
		t.Errorf("the extension function ran %d times, want 1", calls)
	}
}
