package fuzzyfn_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/query/function/fuzzyfn"
	"github.com/perfkb/perfkb/reasoner/builtins"
)

func registry(t *testing.T) *function.Registry {
	t.Helper()
	r := function.NewRegistry()
	if err := fuzzyfn.Register(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func num(v float64) kb.Term { return function.Double(v) }

// TestSameAsRuleBuiltins checks that each SPARQL fuzzy function gives the
// degree the rule builtin of the same name binds, over a grid of values
// crossing every edge of the sets: a query and a rule grade alike.
func TestSameAsRuleBuiltins(t *testing.T) {
	r := registry(t)
	sets := []struct {
		name   string
		params []float64
	}{
		{"fuzzyTriangle", []float64{1, 1.5, 2}},
		{"fuzzyTrapezoid", []float64{2, 2.2, 2.8, 3}},
		{"fuzzyShoulderLeft", []float64{0, 1}},
		{"fuzzyShoulderRight", []float64{4, 5}},
		{"fuzzyS", []float64{0, 4}},
		{"fuzzyZ", []float64{0, 4}},
		{"fuzzyVery", nil},
	}
	for _, s := range sets {
		def, ok := r.IRI(function.Namespace + s.name)
		if !ok {
			t.Fatalf("%s is not registered", s.name)
		}
		rule, ok := builtins.Lookup(s.name)
		if !ok {
			t.Fatalf("rule builtin %s not found", s.name)
		}
		for x := -0.5; x <= 5.5; x += 0.05 {
			args := []kb.Term{num(x)}
			for _, p := range s.params {
				args = append(args, num(p))
			}
			got, err := def.Call(args)
			if err != nil {
				t.Fatalf("%s(%v): %v", s.name, x, err)
			}
			c := &builtins.Call{Name: s.name, Args: append(append([]kb.Term(nil), args...), kb.Term{})}
			if ok, err := rule.Body(c); !ok || err != nil {
				t.Fatalf("rule %s(%v): %v, %v", s.name, x, ok, err)
			}
			want, _ := strconv.ParseFloat(c.Args[len(c.Args)-1].Value, 64)
			g, _ := strconv.ParseFloat(got.Value, 64)
			if g != want || got.Datatype != ontology.XSDDouble {
				t.Errorf("%s(%v) = %s, rule builtin gives %v", s.name, x, got, want)
			}
		}
	}
}

// TestErrors checks that bad arguments are expression errors.
func TestErrors(t *testing.T) {
	r := registry(t)
	tests := []struct {
		name string
		args []kb.Term
	}{
		{"fuzzyTriangle", []kb.Term{num(1), num(3), num(2), num(1)}}, // out of order
		{"fuzzyTriangle", []kb.Term{kb.String("1"), num(1), num(2), num(3)}},
		{"fuzzyGaussian", []kb.Term{num(1), num(0), num(1)}}, // sigma 0
		{"fuzzyOr", []kb.Term{num(0.5), kb.IRI("http://example.org/x")}},
	}
	for _, tc := range tests {
		def, _ := r.IRI(function.Namespace + tc.name)
		if _, err := def.Call(tc.args); !errors.Is(err, function.ErrExpression) {
			t.Errorf("%s%v: error %v, want an expression error", tc.name, tc.args, err)
		}
	}
	for _, d := range r.Defs() {
		if d.Doc == "" || d.Call == nil {
			t.Errorf("%s: no Doc or no Call", d.Name)
		}
	}
}
