package builtins

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"

	"github.com/perfkb/perfkb/ontology"
)

type fakeEnv struct {
	printed []string
	removed []int
	triples map[[3]kb.Term]bool
	blanks  int
}

func (f *fakeEnv) Exists(s, p, o kb.Term) (bool, error) {
	for t := range f.triples {
		if (s.IsZero() || s == t[0]) && (p.IsZero() || p == t[1]) && (o.IsZero() || o == t[2]) {
			return true, nil
		}
	}
	return false, nil
}
func (f *fakeEnv) Print(line string) { f.printed = append(f.printed, line) }
func (f *fakeEnv) Now() time.Time {
	return time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
}
func (f *fakeEnv) Remove(n int, silent bool) error         { f.removed = append(f.removed, n); return nil }
func (f *fakeEnv) Regexp(p string) (*regexp.Regexp, error) { return regexp.Compile(p) }
func (f *fakeEnv) NewBlank() kb.Term                       { f.blanks++; return kb.Blank("b" + string(rune('0'+f.blanks))) }
func (f *fakeEnv) Rule() string                            { return "test" }

func lit(v, dt string) kb.Term { return kb.Literal(v, XSD+dt) }

var (
	unbound = kb.Term{}
	i5      = lit("5", "int")
	i7      = lit("7", "integer")
	d5      = lit("5.0", "double")
	dec25   = lit("2.5", "decimal")
	l7      = lit("7", "long")
	str     = kb.String("abc")
	iri     = kb.IRI("http://e/x")
	bnode   = kb.Blank("b")
	date1   = lit("2026-01-01T00:00:00Z", "dateTime")
	date2   = lit("2026-06-01T00:00:00Z", "dateTime")
)

func TestBodyBuiltins(t *testing.T) {
	tests := []struct {
		name string
		args []kb.Term
		ok   bool
		out  map[int]kb.Term // bound outputs to check
	}{
		{"equal", []kb.Term{i5, d5}, true, nil},
		{"equal", []kb.Term{i5, i7}, false, nil},
		{"equal", []kb.Term{iri, iri}, true, nil},
		{"equal", []kb.Term{str, kb.String("abd")}, false, nil},
		{"notEqual", []kb.Term{i5, i7}, true, nil},
		{"notEqual", []kb.Term{i5, d5}, false, nil},
		{"lessThan", []kb.Term{i5, i7}, true, nil},
		{"lessThan", []kb.Term{i7, l7}, false, nil},
		{"lessThan", []kb.Term{str, i7}, false, nil},
		{"lessThan", []kb.Term{date1, date2}, true, nil},
		{"greaterThan", []kb.Term{i7, dec25}, true, nil},
		{"greaterThan", []kb.Term{d5, i5}, false, nil},
		{"greaterThan", []kb.Term{iri, i5}, false, nil},
		{"le", []kb.Term{d5, i5}, true, nil},
		{"le", []kb.Term{i7, i5}, false, nil},
		{"ge", []kb.Term{i7, l7}, true, nil},
		{"ge", []kb.Term{dec25, i5}, false, nil},
		{"sum", []kb.Term{i5, i7, unbound}, true, map[int]kb.Term{2: lit("12", "int")}},
		{"sum", []kb.Term{i5, dec25, unbound}, true, map[int]kb.Term{2: lit("7.5", "double")}},
		{"sum", []kb.Term{i5, i7, lit("12", "integer")}, true, nil},
		{"sum", []kb.Term{i5, i7, lit("13", "integer")}, false, nil},
		{"sum", []kb.Term{i5, str, unbound}, false, nil},
		{"difference", []kb.Term{i5, i7, unbound}, true, map[int]kb.Term{2: lit("-2", "int")}},
		{"product", []kb.Term{i5, dec25, unbound}, true, map[int]kb.Term{2: lit("12.5", "double")}},
		{"product", []kb.Term{lit("3000000000", "long"), lit("3", "int"), unbound}, true, map[int]kb.Term{2: lit("9000000000", "long")}},
		{"quotient", []kb.Term{i7, lit("2", "int"), unbound}, true, map[int]kb.Term{2: lit("3", "int")}},
		{"quotient", []kb.Term{i7, lit("2.0", "double"), unbound}, true, map[int]kb.Term{2: lit("3.5", "double")}},
		{"quotient", []kb.Term{i7, lit("0", "int"), unbound}, false, nil},
		{"min", []kb.Term{i7, dec25, unbound}, true, map[int]kb.Term{2: dec25}},
		{"max", []kb.Term{i7, dec25, unbound}, true, map[int]kb.Term{2: i7}},
		{"max", []kb.Term{i7, str, unbound}, false, nil},
		{"addOne", []kb.Term{i5, unbound}, true, map[int]kb.Term{1: lit("6", "int")}},
		{"strConcat", []kb.Term{str, i5, iri, unbound}, true, map[int]kb.Term{3: kb.String("abc5http://e/x")}},
		{"uriConcat", []kb.Term{kb.String("http://e/"), kb.String("y"), unbound}, true, map[int]kb.Term{2: kb.IRI("http://e/y")}},
		{"regex", []kb.Term{kb.String("CR_MPIP2P"), kb.String("CR_MPI(.*)"), unbound}, true, map[int]kb.Term{2: kb.String("P2P")}},
		{"regex", []kb.Term{kb.String("CR_MPIP2P"), kb.String("MPI")}, false, nil},
		{"isLiteral", []kb.Term{str}, true, nil},
		{"isLiteral", []kb.Term{iri}, false, nil},
		{"notLiteral", []kb.Term{bnode}, true, nil},
		{"notLiteral", []kb.Term{i5}, false, nil},
		{"isBNode", []kb.Term{bnode}, true, nil},
		{"isBNode", []kb.Term{iri}, false, nil},
		{"notBNode", []kb.Term{iri}, true, nil},
		{"notBNode", []kb.Term{bnode}, false, nil},
		{"isDType", []kb.Term{i5, kb.IRI(ontology.XSDInt)}, true, nil},
		{"isDType", []kb.Term{i5, kb.IRI(ontology.XSDInteger)}, true, nil},
		{"isDType", []kb.Term{str, kb.IRI("http://www.w3.org/2000/01/rdf-schema#Literal")}, true, nil},
		{"isDType", []kb.Term{d5, kb.IRI(ontology.XSDInteger)}, false, nil},
		{"notDType", []kb.Term{d5, kb.IRI(ontology.XSDInteger)}, true, nil},
		{"isFunctor", []kb.Term{kb.Literal("f(1)", FunctorDatatype)}, true, nil},
		{"notFunctor", []kb.Term{str}, true, nil},
		{"bound", []kb.Term{i5, str}, true, nil},
		{"bound", []kb.Term{i5, unbound}, false, nil},
		{"unbound", []kb.Term{unbound}, true, nil},
		{"unbound", []kb.Term{i5}, false, nil},
		{"noValue", []kb.Term{iri, kb.IRI("http://e/p")}, false, nil},
		{"noValue", []kb.Term{iri, kb.IRI("http://e/q")}, true, nil},
		{"noValue", []kb.Term{iri, kb.IRI("http://e/p"), i5}, false, nil},
		{"noValue", []kb.Term{iri, kb.IRI("http://e/p"), i7}, true, nil},
		{"makeTemp", []kb.Term{unbound}, true, map[int]kb.Term{0: kb.Blank("b1")}},
		{"makeSkolem", []kb.Term{unbound, iri, str}, true, map[int]kb.Term{0: Skolem([]kb.Term{iri, str})}},
		{"makeSkolem", []kb.Term{Skolem([]kb.Term{iri}), iri}, true, nil},
		{"makeInstance", []kb.Term{iri, kb.IRI("http://e/p"), unbound}, true, map[int]kb.Term{2: Skolem([]kb.Term{kb.IRI("urn:x-perfkb:makeInstance"), iri, kb.IRI("http://e/p")})}},
		{"now", []kb.Term{unbound}, true, map[int]kb.Term{0: lit("2026-11-22T01:02:03Z", "dateTime")}},
		{"print", []kb.Term{iri, kb.String("Big message hold!")}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := Lookup(tc.name)
			if !ok {
				t.Fatalf("builtin %s is not registered", tc.name)
			}
			if err := b.CheckArity(len(tc.args)); err != nil {
				t.Fatal(err)
			}
			env := &fakeEnv{triples: map[[3]kb.Term]bool{{iri, kb.IRI("http://e/p"), i5}: true}}
			c := &Call{Name: tc.name, Args: append([]kb.Term(nil), tc.args...), Env: env}
			got, err := b.Body(c)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.ok {
				t.Fatalf("%s%v = %v, want %v", tc.name, tc.args, got, tc.ok)
			}
			for i, want := range tc.out {
				if c.Args[i] != want {
					t.Errorf("argument %d bound to %v, want %v", i, c.Args[i], want)
				}
			}
		})
	}
}

func TestHeadActions(t *testing.T) {
	env := &fakeEnv{}
	p, _ := Lookup("print")
	if err := p.Head(&Call{Name: "print", Args: []kb.Term{iri, kb.String("Big message hold!"), i5}, Env: env}); err != nil {
		t.Fatal(err)
	}
	if want := `<http://e/x> Big message hold! "5"^^<http://www.w3.org/2001/XMLSchema#int>`; len(env.printed) != 1 || env.printed[0] != want {
		t.Errorf("print wrote %q, want %q", env.printed, want)
	}
	for _, name := range []string{"remove", "drop"} {
		env := &fakeEnv{}
		b, _ := Lookup(name)
		if b.Body != nil {
			t.Errorf("%s must be head-only", name)
		}
		if err := b.Head(&Call{Name: name, Args: []kb.Term{lit("0", "int"), lit("2", "int")}, Env: env}); err != nil {
			t.Fatal(err)
		}
		if len(env.removed) != 2 || env.removed[0] != 0 || env.removed[1] != 2 {
			t.Errorf("%s removed %v, want [0 2]", name, env.removed)
		}
		if err := b.Head(&Call{Name: name, Args: []kb.Term{str}, Env: env}); err == nil {
			t.Errorf("%s with a non-index argument: want an error", name)
		}
	}
}

func TestArityAndRegistry(t *testing.T) {
	b, _ := Lookup("greaterThan")
	if err := b.CheckArity(3); err == nil || !strings.Contains(err.Error(), "takes 2 arguments, got 3") {
		t.Errorf("arity error = %v", err)
	}
	want := []string{"equal", "notEqual", "lessThan", "greaterThan", "le", "ge", "sum", "difference", "product",
		"quotient", "min", "max", "strConcat", "uriConcat", "regex", "isLiteral", "notLiteral", "isBNode",
		"notBNode", "isDType", "bound", "unbound", "noValue", "makeTemp", "makeSkolem", "now", "print", "remove", "drop"}
	for _, n := range want {
		if _, ok := Lookup(n); !ok {
			t.Errorf("builtin %s missing", n)
		}
	}
	if len(Names()) < len(want) {
		t.Errorf("Names() = %v", Names())
	}
}

func TestJavaDouble(t *testing.T) {
	for v, want := range map[float64]string{
		1: "1.0", 12.5: "12.5", 1234567.25: "1234567.25", 1e7: "1.0E7", 12345678: "1.2345678E7",
		0.001: "0.001", 0.0001: "1.0E-4", -2.5e-5: "-2.5E-5", 0: "0.0", 3e8: "3.0E8",
	} {
		if got := JavaDouble(v); got != want {
			t.Errorf("JavaDouble(%v) = %q, want %q", v, got, want)
		}
	}
}
