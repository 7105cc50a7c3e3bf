package algebra

import (
	"reflect"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

func triple(s, p, o Node) TriplePattern { return TriplePattern{S: s, P: p, O: o} }

func TestSSE(t *testing.T) {
	x, y := VarNode("x"), VarNode("y")
	p := TermNode(kb.IRI("http://e/p"))
	bgp := &BGP{Triples: []TriplePattern{triple(x, p, y)}}
	tests := []struct {
		name string
		op   Op
		want string
	}{
		{"empty bgp", &BGP{}, "(bgp)"},
		{"bgp", bgp, "(bgp\n  (triple ?x <http://e/p> ?y))"},
		{"unit", Unit(), "(table unit)"},
		{"empty table", &Table{}, "(table empty)"},
		{"values", &Table{Vars: []Var{"x", "y"}, Rows: [][]kb.Term{{kb.Literal("1", xsdInteger), {}}}},
			"(table (vars ?x ?y)\n  (row [?x 1]))"},
		{"slice", &Slice{Offset: 0, Limit: 5, Input: bgp}, "(slice _ 5\n  (bgp\n    (triple ?x <http://e/p> ?y)))"},
		{"leftjoin", &LeftJoin{Left: &BGP{}, Right: bgp, Exprs: []Expr{&BuiltinExpr{Name: BuiltinBound, Args: []Expr{&VarExpr{Var: "y"}}}}},
			"(leftjoin\n  (bgp)\n  (bgp\n    (triple ?x <http://e/p> ?y))\n  (bound ?y))"},
		{"path", &Path{Subject: x, Path: &PathOneOrMore{Path: &PathInverse{Path: &PathLink{IRI: kb.IRI("http://e/p")}}}, Object: y},
			"(path ?x (path+ (reverse <http://e/p>)) ?y)"},
		{"group", &Group{Keys: []GroupKey{{Var: "x", Expr: &VarExpr{Var: "x"}}}, Aggregates: []AggregateBinding{{Var: ".0", Aggregate: &Aggregate{Func: AggCount, Star: true}}}, Input: bgp},
			"(group (?x) ((?.0 (count *)))\n  (bgp\n    (triple ?x <http://e/p> ?y)))"},
		{"service", &Service{Silent: true, Endpoint: TermNode(kb.IRI("http://remote/")), Input: &BGP{}}, "(service silent <http://remote/>\n  (bgp))"},
	}
	for _, tc := range tests {
		if got := tc.op.String(); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestTermPrinting(t *testing.T) {
	tests := []struct {
		term kb.Term
		want string
	}{
		{kb.Literal("1", xsdInteger), "1"},
		{kb.Literal("01", xsdInteger), "01"},
		{kb.Literal("1.5", xsdDecimal), "1.5"},
		{kb.Literal("1e3", xsdDouble), "1e3"},
		{kb.Literal("abc", xsdInteger), `"abc"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{kb.Literal("true", xsdBoolean), "true"},
		{kb.LangLiteral("chat", "FR"), `"chat"@fr`},
		{kb.String("a\"b"), `"a\"b"`},
		{kb.Blank("b0"), "_:b0"},
	}
	for _, tc := range tests {
		if got := TermNode(tc.term).String(); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.term, got, tc.want)
		}
	}
}

func TestInScope(t *testing.T) {
	x, y, z := VarNode("x"), VarNode("y"), VarNode("z")
	p := TermNode(kb.IRI("http://e/p"))
	left := &BGP{Triples: []TriplePattern{triple(x, p, y)}}
	right := &BGP{Triples: []TriplePattern{triple(y, p, z)}}
	tests := []struct {
		name string
		op   Op
		want []Var
	}{
		{"bgp", left, []Var{"x", "y"}},
		{"join", &Join{Left: left, Right: right}, []Var{"x", "y", "z"}},
		{"minus keeps left", &Minus{Left: left, Right: right}, []Var{"x", "y"}},
		{"extend", &Extend{Input: left, Var: "w", Expr: &VarExpr{Var: "x"}}, []Var{"x", "y", "w"}},
		{"project", &Project{Vars: []Var{"y"}, Input: &Join{Left: left, Right: right}}, []Var{"y"}},
		{"graph var", &Graph{Name: VarNode("g"), Input: left}, []Var{"g", "x", "y"}},
		{"group", &Group{Keys: []GroupKey{{Var: "x", Expr: &VarExpr{Var: "x"}}}, Aggregates: []AggregateBinding{{Var: ".0", Aggregate: &Aggregate{Func: AggCount, Star: true}}}, Input: left}, []Var{"x", ".0"}},
	}
	for _, tc := range tests {
		if got := InScope(tc.op); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: InScope = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestVarIsDistinguished(t *testing.T) {
	for v, want := range map[Var]bool{"x": true, "?0": false, "?_b": false, ".0": false, "": false} {
		if got := v.IsDistinguished(); got != want {
			t.Errorf("Var(%q).IsDistinguished() = %v, want %v", v, got, want)
		}
	}
}

func TestWalkAndExprVars(t *testing.T) {
	x := VarNode("x")
	p := TermNode(kb.IRI("http://e/p"))
	inner := &BGP{Triples: []TriplePattern{triple(x, p, VarNode("y"))}}
	op := &Filter{Exprs: []Expr{&ExistsExpr{Pattern: inner}}, Input: &Union{Left: inner, Right: &BGP{}}}
	var n int
	Walk(op, func(Op) bool { n++; return true })
	if n != 4 {
		t.Errorf("Walk visited %d operators, want 4", n)
	}
	e := &BinaryExpr{Op: OpAnd, Left: &VarExpr{Var: "a"}, Right: &InExpr{Arg: &VarExpr{Var: "b"}, List: []Expr{&VarExpr{Var: "a"}}}}
	if got := ExprVars(e); !reflect.DeepEqual(got, []Var{"a", "b"}) {
		t.Errorf("ExprVars = %v", got)
	}
}
