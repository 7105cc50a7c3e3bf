package function_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/function"
)

func double(args []kb.Term) (kb.Term, error) { return args[0], nil }

// TestRegister checks what Register accepts and the reason it gives for
// what it refuses.
func TestRegister(t *testing.T) {
	const ex = "http://example.org/f#"
	tests := []struct {
		name    string
		def     function.Def
		wantErr string // "" for success
	}{
		{"iri function", function.Def{Name: ex + "double", Min: 1, Max: 1, Call: double}, ""},
		{"variadic", function.Def{Name: ex + "sum", Min: 0, Max: function.Variadic, Call: double}, ""},
		{"keyword", function.Def{Name: "DOUBLE", Min: 1, Max: 1, Call: double}, "named by an absolute IRI"},
		{"no implementation", function.Def{Name: ex + "none", Min: 1, Max: 1}, "has no implementation"},
		{"special", function.Def{Name: ex + "lazy", Min: 1, Max: 1, Special: true, Call: double}, "special forms"},
		{"volatile", function.Def{Name: ex + "rnd", Min: 0, Max: 0, Volatile: true, Call: double}, "never folded"},
		{"negative min", function.Def{Name: ex + "neg", Min: -1, Max: 1, Call: double}, "bad arity"},
		{"max below min", function.Def{Name: ex + "inv", Min: 2, Max: 1, Call: double}, "bad arity"},
		{"cast again", function.Def{Name: "http://www.w3.org/2001/XMLSchema#integer", Min: 1, Max: 1, Call: double}, "already declared"},
		{"aliases", function.Def{Name: ex + "al", Aliases: []string{"AL"}, Min: 1, Max: 1, Call: double}, "only keywords have aliases"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := function.Builtin().Clone()
			err := r.Register(tc.def)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Register: %v", err)
			case tc.wantErr == "":
				d, ok := r.IRI(tc.def.Name)
				if !ok || d.Min != tc.def.Min || d.Max != tc.def.Max || d.Call == nil {
					t.Fatalf("IRI(%q) = %+v, %v after Register", tc.def.Name, d, ok)
				}
			case err == nil || !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("Register error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestBuiltinFrozen checks that the shared registry cannot change and that
// a clone's additions do not leak into it or into other clones.
func TestBuiltinFrozen(t *testing.T) {
	const iri = "http://example.org/f#double"
	if err := function.Builtin().Register(function.Def{Name: iri, Min: 1, Max: 1, Call: double}); err == nil {
		t.Fatal("Register on function.Builtin() succeeded")
	}
	if err := function.Builtin().Close("http://example.org/"); err == nil {
		t.Fatal("Close on function.Builtin() succeeded")
	}
	a, b := function.Builtin().Clone(), function.Builtin().Clone()
	if err := a.Register(function.Def{Name: iri, Min: 1, Max: 1, Call: double}); err != nil {
		t.Fatal(err)
	}
	if _, ok := function.Builtin().IRI(iri); ok {
		t.Error("a clone's function appeared in function.Builtin()")
	}
	if _, ok := b.IRI(iri); ok {
		t.Error("a clone's function appeared in another clone")
	}
	if err := a.Freeze().Register(function.Def{Name: iri + "2", Min: 1, Max: 1, Call: double}); err == nil {
		t.Error("Register after Freeze succeeded")
	}
}

// TestLookup checks keyword lookup in any case, aliases and IRIs.
func TestLookup(t *testing.T) {
	r := function.Builtin()
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"strlen", "STRLEN", true},
		{"StrLen", "STRLEN", true},
		{"uri", "IRI", true},
		{"isURI", "ISIRI", true},
		{"COUNT", "", false}, // an aggregate: grammar of its own
		{"EXISTS", "", false},
		{"FOO", "", false},
	}
	for _, tc := range tests {
		d, ok := r.Keyword(tc.name)
		if ok != tc.ok || (ok && d.Name != tc.want) {
			t.Errorf("Keyword(%q) = %v, %v; want %q, %v", tc.name, d, ok, tc.want, tc.ok)
		}
	}
	if d, ok := r.IRI("http://www.w3.org/2001/XMLSchema#int"); !ok || d.Min != 1 || d.Max != 1 {
		t.Errorf("IRI(xsd:int) = %v, %v", d, ok)
	}
	if !r.Closed("http://www.w3.org/2001/XMLSchema#date") {
		t.Error("the XSD namespace is not closed")
	}
	if r.Closed("http://example.org/name") {
		t.Error("an arbitrary namespace is closed")
	}
}

// TestCheckArity checks the arity messages the parser and evaluator give.
func TestCheckArity(t *testing.T) {
	r := function.Builtin()
	tests := []struct {
		name string
		n    int
		want string // "" when allowed
	}{
		{"STRLEN", 1, ""},
		{"STRLEN", 2, "STRLEN takes 1 argument, found 2"},
		{"REGEX", 1, "REGEX takes 2 or 3 arguments, found 1"},
		{"REPLACE", 5, "REPLACE takes 3 or 4 arguments, found 5"},
		{"RAND", 1, "RAND takes no arguments, found 1"},
		{"CONCAT", 0, ""},
		{"CONCAT", 7, ""},
		{"IF", 2, "IF takes 3 arguments, found 2"},
		{"http://www.w3.org/2001/XMLSchema#double", 2, "<http://www.w3.org/2001/XMLSchema#double> takes 1 argument, found 2"},
	}
	for _, tc := range tests {
		d, ok := r.Keyword(tc.name)
		if !ok {
			d, ok = r.IRI(tc.name)
		}
		if !ok {
			t.Fatalf("%s is not declared", tc.name)
		}
		err := d.CheckArity(tc.n)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s with %d arguments: %q, want %q", tc.name, tc.n, got, tc.want)
		}
	}
	v := &function.Def{Name: "http://example.org/f", Min: 2, Max: function.Variadic}
	if got := v.ArityText(); got != "at least 2 arguments" {
		t.Errorf("ArityText = %q", got)
	}
}

// TestDefs checks that every declaration is listed once, aliases
// included only through their function.
func TestDefs(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range function.Builtin().Defs() {
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Doc == "" {
			t.Errorf("%s has no Doc", d.Name)
		}
	}
	for _, name := range []string{"STRLEN", "IRI", "BOUND", "http://www.w3.org/2001/XMLSchema#string"} {
		if !seen[name] {
			t.Errorf("%s missing from Defs", name)
		}
	}
	if seen["URI"] || seen["ISURI"] {
		t.Error("an alias is listed as a function of its own")
	}
}

// TestErrorf checks that extension functions' errors are expression
// errors.
func TestErrorf(t *testing.T) {
	err := function.Errorf("bad %d", 1)
	if !strings.Contains(err.Error(), "bad 1") {
		t.Errorf("Errorf text = %q", err)
	}
	if !errors.Is(err, function.ErrExpression) {
		t.Error("Errorf does not wrap ErrExpression")
	}
}
