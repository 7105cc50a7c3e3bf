package eval

import (
	"context"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
)

// BenchmarkCall evaluates one compiled function call per iteration on a
// bound row, so it measures how a call is dispatched and its arguments
// passed, without the store's work.
func BenchmarkCall(b *testing.B) {
	ds := native.OpenMemory()
	defer ds.Close()
	ex, err := newExecutor(context.Background(), ds, Options{}, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	x := &algebra.VarExpr{Var: "x"}
	n := &algebra.VarExpr{Var: "n"}
	lit := func(s string) algebra.Expr { return &algebra.ConstExpr{Term: kb.String(s)} }
	cases := []struct {
		name string
		e    algebra.Expr
	}{
		{"STRLEN", &algebra.BuiltinExpr{Name: algebra.BuiltinStrLen, Args: []algebra.Expr{x}}},
		{"CONTAINS", &algebra.BuiltinExpr{Name: algebra.BuiltinContains, Args: []algebra.Expr{x, lit("TCM")}}},
		{"ABS", &algebra.BuiltinExpr{Name: algebra.BuiltinAbs, Args: []algebra.Expr{n}}},
		{"CastDouble", &algebra.FuncExpr{IRI: ontology.XSDDouble, Args: []algebra.Expr{n}}},
		{"REGEX", &algebra.BuiltinExpr{Name: algebra.BuiltinRegex, Args: []algebra.Expr{x, lit("^L2_")}}},
		{"REPLACE", &algebra.BuiltinExpr{Name: algebra.BuiltinReplace, Args: []algebra.Expr{x, lit("_"), lit("-")}}},
		{"FoldedCast", &algebra.FuncExpr{IRI: ontology.XSDDateTime, Args: []algebra.Expr{lit("2020-01-01T00:00:00Z")}}},
		{"CONCAT3", &algebra.BuiltinExpr{Name: algebra.BuiltinConcat, Args: []algebra.Expr{x, lit("-"), x}}},
	}
	xs, ns := ex.vars.slot("x"), ex.vars.slot("n")
	r := make(row, max(xs, ns)+1)
	if r[xs], err = ex.dict.id(kb.String("L2_TCM")); err != nil {
		b.Fatal(err)
	}
	if r[ns], err = ex.dict.id(kb.Literal("-42", ontology.XSDInteger)); err != nil {
		b.Fatal(err)
	}
	for _, tc := range cases {
		c, err := ex.compileExpr(tc.e, scope{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c(ex, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
