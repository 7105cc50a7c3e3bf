package modelfn_test

import (
	"errors"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/query/function/modelfn"
)

func TestPredict(t *testing.T) {
	r := function.NewRegistry()
	if err := modelfn.Register(r); err != nil {
		t.Fatal(err)
	}
	def, ok := r.IRI(modelfn.Predict)
	if !ok {
		t.Fatal("pf:predict not registered")
	}
	num := func(v float64) kb.Term { return function.Double(v) }
	for _, tc := range []struct {
		args []kb.Term
		want float64 // hand-computed; NaN: an expression error
		err  bool
	}{
		// 2 + 0.5·16·log2(16) = 34
		{args: []kb.Term{kb.String("f(p) = 2 + 0.5*p^(1)*log2(p)^(1)"), num(16)}, want: 34},
		// 1 + 3·sqrt(4)·10 = 61
		{args: []kb.Term{kb.String("f(p,n) = 1 + 3*p^(1/2)*n^(1)"), kb.Literal("4", ontology.XSDInteger), num(10)}, want: 61},
		{args: []kb.Term{kb.String("f(p) = 1 + 2*p^(1)"), num(1), num(2)}, err: true},
		{args: []kb.Term{kb.IRI("http://example.org/model"), num(1)}, err: true},
		{args: []kb.Term{kb.String("not a model"), num(1)}, err: true},
		{args: []kb.Term{kb.String("f(p) = 1 + 2*p^(1)"), kb.String("many")}, err: true},
	} {
		got, err := def.Call(tc.args)
		if tc.err {
			if !errors.Is(err, function.ErrExpression) {
				t.Errorf("pf:predict%v = %v, %v; want an expression error", tc.args, got, err)
			}
			continue
		}
		n, ok := function.ParseNumeric(got)
		if err != nil || !ok || n.Float64() != tc.want {
			t.Errorf("pf:predict%v = %v, %v; want %g", tc.args, got, err, tc.want)
		}
	}
}
