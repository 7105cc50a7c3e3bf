package builtins

import (
	"testing"

	"github.com/perfkb/perfkb/kb"
)

func dbl(v string) kb.Term { return lit(v, "double") }

func TestFuzzyBuiltins(t *testing.T) {
	tests := []struct {
		name string
		args []kb.Term
		ok   bool
		mu   string // expected lexical of the bound degree when ok
	}{
		{"fuzzyTriangle", []kb.Term{dbl("1.25"), i1(1), dbl("1.5"), i1(2), unbound}, true, "0.5"},
		{"fuzzyTriangle", []kb.Term{lit("3", "integer"), i1(1), dbl("1.5"), i1(2), unbound}, true, "0.0"},
		{"fuzzyTriangle", []kb.Term{dbl("1.5"), i1(1), dbl("1.5"), i1(2), dbl("1.0")}, true, ""},
		{"fuzzyTriangle", []kb.Term{dbl("1.5"), i1(1), dbl("1.5"), i1(2), dbl("0.5")}, false, ""},
		{"fuzzyTriangle", []kb.Term{str, i1(1), dbl("1.5"), i1(2), unbound}, false, ""},
		{"fuzzyTriangle", []kb.Term{dbl("1.5"), i1(2), dbl("1.5"), i1(1), unbound}, false, ""}, // out of order
		{"fuzzyTrapezoid", []kb.Term{dbl("2.1"), i1(2), dbl("2.2"), dbl("2.8"), i1(3), unbound}, true, "0.5"},
		{"fuzzyTrapezoid", []kb.Term{dbl("2.5"), i1(2), dbl("2.2"), dbl("2.8"), i1(3), unbound}, true, "1.0"},
		{"fuzzyShoulderLeft", []kb.Term{dbl("0.5"), i1(0), i1(1), unbound}, true, "0.5"},
		{"fuzzyShoulderLeft", []kb.Term{dbl("0.0"), i1(0), i1(1), unbound}, true, "1.0"},
		{"fuzzyShoulderRight", []kb.Term{dbl("4.5"), i1(4), i1(5), unbound}, true, "0.5"},
		{"fuzzyShoulderRight", []kb.Term{lit("9", "long"), i1(4), i1(5), unbound}, true, "1.0"},
		{"fuzzyS", []kb.Term{i1(1), i1(0), i1(4), unbound}, true, "0.125"},
		{"fuzzyZ", []kb.Term{i1(3), i1(0), i1(4), unbound}, true, "0.125"},
		{"fuzzyVery", []kb.Term{dbl("0.5"), unbound}, true, "0.25"},
		{"fuzzyVery", []kb.Term{iri, unbound}, false, ""},
	}
	for _, tc := range tests {
		b, ok := Lookup(tc.name)
		if !ok {
			t.Fatalf("builtin %s not registered", tc.name)
		}
		if err := b.CheckArity(len(tc.args)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		args := append([]kb.Term(nil), tc.args...)
		got, err := b.Body(&Call{Name: tc.name, Args: args, Env: &fakeEnv{}})
		if err != nil {
			t.Fatalf("%s%v: %v", tc.name, tc.args, err)
		}
		if got != tc.ok {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.args, got, tc.ok)
			continue
		}
		if tc.mu != "" {
			if want := dbl(tc.mu); args[len(args)-1] != want {
				t.Errorf("%s%v bound %v, want %v", tc.name, tc.args, args[len(args)-1], want)
			}
		}
	}
	if b, _ := Lookup("fuzzyTriangle"); b.CheckArity(4) == nil {
		t.Error("fuzzyTriangle with 4 arguments: want an arity error")
	}
}

func i1(v int) kb.Term { return IntLiteral(int64(v)) }
