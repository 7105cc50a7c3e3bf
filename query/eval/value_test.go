package eval

import (
	"math/big"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/function"

	"github.com/perfkb/perfkb/ontology"
)

func lit(v, dt string) kb.Term { return kb.Literal(v, ontology.XSDNamespace+dt) }

func TestArithmeticPromotionAndCanonicalForms(t *testing.T) {
	tests := []struct {
		op   byte
		a, b kb.Term
		want kb.Term
	}{
		{'+', lit("1", "integer"), lit("2", "integer"), lit("3", "integer")},
		{'+', lit("1", "int"), lit("2", "short"), lit("3", "integer")},
		{'+', lit("1", "integer"), lit("2.50", "decimal"), lit("3.5", "decimal")},
		{'/', lit("1", "integer"), lit("4", "integer"), lit("0.25", "decimal")},
		{'/', lit("4", "integer"), lit("2", "integer"), lit("2", "decimal")},
		{'/', lit("-4", "integer"), lit("2", "integer"), lit("-2", "decimal")},
		{'/', lit("1", "integer"), lit("3", "integer"), lit("0.333333333333333333", "decimal")},
		{'-', lit("3", "decimal"), lit("3.0", "decimal"), lit("0", "decimal")},
		{'*', lit("1.5", "decimal"), lit("2", "float"), lit("3", "float")},
		{'*', lit("0.1", "float"), lit("1", "integer"), lit("0.1", "float")},
		{'+', lit("0.1", "double"), lit("0.2", "double"), lit("0.30000000000000004", "double")},
		{'*', lit("1000", "double"), lit("1000", "integer"), lit("1.0E6", "double")},
		{'*', lit("999999.5", "double"), lit("1", "integer"), lit("999999.5", "double")},
		{'/', lit("1", "double"), lit("1E7", "double"), lit("1.0E-7", "double")},
		{'/', lit("1", "double"), lit("1E6", "double"), lit("0.000001", "double")},
		{'*', lit("-0", "double"), lit("1", "integer"), lit("-0", "double")},
		{'-', lit("1", "integer"), lit("1.0e1", "double"), lit("-9", "double")},
		{'/', lit("1", "double"), lit("0", "double"), lit("INF", "double")},
	}
	for _, tc := range tests {
		got, err := arith(tc.op, tc.a, tc.b)
		if err != nil || got != tc.want {
			t.Errorf("%s %c %s = %s, %v; want %s", tc.a, tc.op, tc.b, got, err, tc.want)
		}
	}
	if _, err := arith('/', lit("1", "integer"), lit("0", "integer")); !isExpressionError(err) {
		t.Errorf("integer division by zero: err = %v, want an expression error", err)
	}
	if _, err := arith('+', kb.String("1"), lit("1", "integer")); !isExpressionError(err) {
		t.Errorf("string + integer: err = %v, want an expression error", err)
	}
}

func TestEffectiveBooleanValue(t *testing.T) {
	tests := []struct {
		term    kb.Term
		want    bool
		wantErr bool
	}{
		{trueLit, true, false},
		{lit("0", "boolean"), false, false},
		{kb.String(""), false, false},
		{kb.String("x"), true, false},
		// SPARQL 1.2 (W3C test sparql12/expression not-not): only
		// xsd:string has an EBV among the strings, and an ill-typed
		// xsd:boolean has none.
		{kb.LangLiteral("x", "en"), false, true},
		{kb.DirLangLiteral("x", "en", "ltr"), false, true},
		{lit("z", "boolean"), false, true},
		{lit("1", "boolean"), true, false},
		{lit("0.0", "decimal"), false, false},
		{lit("NaN", "double"), false, false},
		{lit("abc", "integer"), false, false}, // invalid lexical form
		{lit("3", "integer"), true, false},
		{kb.IRI("http://x"), false, true},
		{lit("2020-01-01T00:00:00Z", "dateTime"), false, true},
	}
	for _, tc := range tests {
		got, err := effectiveBool(tc.term)
		if (err != nil) != tc.wantErr || (err == nil && got != tc.want) {
			t.Errorf("effectiveBool(%s) = %v, %v; want %v (error %v)", tc.term, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestEqualValueVsTermEquality(t *testing.T) {
	tests := []struct {
		a, b    kb.Term
		want    bool
		wantErr bool
	}{
		{lit("1", "integer"), lit("1.0", "decimal"), true, false},
		{lit("1", "integer"), lit("01", "int"), true, false},
		{kb.String("a"), kb.String("a"), true, false},
		{kb.String("a"), kb.LangLiteral("a", "en"), false, false},
		{kb.IRI("http://a"), kb.IRI("http://a"), true, false},
		{kb.IRI("http://a"), kb.String("http://a"), false, false},
		{kb.IRI("http://a"), kb.IRI("http://b"), false, false},
		{kb.Blank("b1"), kb.Blank("b1"), true, false},
		{kb.Blank("b1"), kb.Blank("b2"), false, false},
		{kb.Blank("b1"), kb.IRI("http://a"), false, false},
		{lit("1", "integer"), kb.IRI("http://a"), false, false},
		{lit("x", "unknown"), kb.Blank("b1"), false, false},
		{lit("x", "unknown"), lit("y", "unknown"), false, true},
		{lit("x", "unknown"), lit("x", "unknown"), true, false},
		{kb.String("xyz"), lit("xyz", "integer"), false, true},
		{lit("2006-08-23Z", "date"), lit("2006-08-23", "date"), false, true},
		{lit("NaN", "double"), lit("NaN", "double"), false, false},
	}
	for _, tc := range tests {
		got, err := equal(tc.a, tc.b)
		if (err != nil) != tc.wantErr || (err == nil && got != tc.want) {
			t.Errorf("%s = %s: %v, %v; want %v (error %v)", tc.a, tc.b, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestOrderCompare(t *testing.T) {
	ordered := []kb.Term{
		{},
		kb.Blank("b"),
		kb.IRI("http://a"),
		kb.IRI("http://b"),
		lit("1", "integer"),
		lit("1.5", "decimal"),
		lit("2", "double"),
	}
	for i := range ordered {
		for j := range ordered {
			c := orderCompare(ordered[i], ordered[j])
			if (i < j && c >= 0) || (i > j && c <= 0) || (i == j && c != 0) {
				t.Errorf("orderCompare(%s, %s) = %d", ordered[i], ordered[j], c)
			}
		}
	}
}

func TestBuiltins(t *testing.T) {
	env := NewFuncEnv(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "http://base/")
	tests := []struct {
		name string
		args []kb.Term
		want kb.Term
	}{
		{"STRLEN", []kb.Term{kb.LangLiteral("chat", "fr")}, lit("4", "integer")},
		{"SUBSTR", []kb.Term{kb.String("foobar"), lit("4", "integer")}, kb.String("bar")},
		{"SUBSTR", []kb.Term{kb.LangLiteral("foobar", "en"), lit("1", "integer"), lit("3", "integer")}, kb.LangLiteral("foo", "en")},
		{"UCASE", []kb.Term{kb.String("abc")}, kb.String("ABC")},
		{"STRBEFORE", []kb.Term{kb.LangLiteral("abc", "en"), kb.String("c")}, kb.LangLiteral("ab", "en")},
		{"STRAFTER", []kb.Term{kb.String("abc"), kb.String("z")}, kb.String("")},
		{"CONCAT", []kb.Term{kb.LangLiteral("a", "en"), kb.LangLiteral("b", "en")}, kb.LangLiteral("ab", "en")},
		{"CONCAT", []kb.Term{kb.LangLiteral("a", "en"), kb.String("b")}, kb.String("ab")},
		{"ENCODE_FOR_URI", []kb.Term{kb.String("Los Angeles")}, kb.String("Los%20Angeles")},
		{"REPLACE", []kb.Term{kb.String("abcd"), kb.String("(b)(c)"), kb.String("$2$1")}, kb.String("acbd")},
		{"REGEX", []kb.Term{kb.String("ABC"), kb.String("^a"), kb.String("i")}, trueLit},
		{"MD5", []kb.Term{kb.String("abc")}, kb.String("900150983cd24fb0d6963f7d28e17f72")},
		{"ROUND", []kb.Term{lit("-2.5", "decimal")}, lit("-2", "decimal")},
		{"CEIL", []kb.Term{lit("1.2", "double")}, lit("2", "double")},
		{"FLOOR", []kb.Term{lit("-1.6", "decimal")}, lit("-2", "decimal")},
		{"ABS", []kb.Term{lit("-1.0E7", "double")}, lit("1.0E7", "double")},
		{"SECONDS", []kb.Term{lit("2011-01-10T14:45:13Z", "dateTime")}, lit("13", "decimal")},
		{"ABS", []kb.Term{lit("-3", "int")}, lit("3", "int")},
		{"YEAR", []kb.Term{lit("2011-01-10T14:45:13.815-05:00", "dateTime")}, lit("2011", "integer")},
		{"HOURS", []kb.Term{lit("2011-01-10T14:45:13.815-05:00", "dateTime")}, lit("14", "integer")},
		{"SECONDS", []kb.Term{lit("2011-01-10T14:45:13.815-05:00", "dateTime")}, lit("13.815", "decimal")},
		{"TIMEZONE", []kb.Term{lit("2011-01-10T14:45:13.815-05:00", "dateTime")}, lit("-PT5H", "dayTimeDuration")},
		{"TZ", []kb.Term{lit("2011-01-10T14:45:13Z", "dateTime")}, kb.String("Z")},
		{"TZ", []kb.Term{lit("2011-01-10T14:45:13-14:00", "dateTime")}, kb.String("-14:00")},
		{"TZ", []kb.Term{lit("2011-01-10T14:45:13+13:59", "dateTime")}, kb.String("+13:59")},
		{"NOW", nil, lit("2026-01-02T03:04:05.000Z", "dateTime")},
		{"IRI", []kb.Term{kb.String("x")}, kb.IRI("http://base/x")},
		{"LANGMATCHES", []kb.Term{kb.String("en-GB"), kb.String("en")}, trueLit},
		{"STRDT", []kb.Term{kb.String("1"), kb.IRI(ontology.XSDInteger)}, lit("1", "integer")},
		{ontology.XSDInteger, []kb.Term{kb.String(" 010 ")}, lit("10", "integer")},
		{ontology.XSDDecimal, []kb.Term{lit("1", "boolean")}, lit("1", "decimal")},
		{ontology.XSDDouble, []kb.Term{kb.String("1")}, lit("1", "double")},
		{ontology.XSDFloat, []kb.Term{kb.String("-10.2E3")}, lit("-10200", "float")},
		{ontology.XSDDecimal, []kb.Term{lit("1.5E0", "double")}, lit("1.5", "decimal")},
		{ontology.XSDString, []kb.Term{lit("1.0E7", "double")}, kb.String("1.0E7")},
		{ontology.XSDString, []kb.Term{lit("1.0", "decimal")}, kb.String("1")},
		{ontology.XSDBoolean, []kb.Term{kb.String("0")}, falseLit},
	}
	for _, tc := range tests {
		got, err := callBuiltin(env, tc.name, tc.args)
		if err != nil || got != tc.want {
			t.Errorf("%s%v = %s, %v; want %s", tc.name, tc.args, got, err, tc.want)
		}
	}
	for _, bad := range []struct {
		name string
		args []kb.Term
	}{
		{"STRLEN", []kb.Term{kb.IRI("http://x")}},
		{"CONTAINS", []kb.Term{kb.String("abc"), kb.LangLiteral("b", "en")}},
		{"REGEX", []kb.Term{kb.String("a"), kb.String("("), kb.String("")}},
		{ontology.XSDInteger, []kb.Term{kb.String("1.5")}},
		{ontology.XSDByte, []kb.Term{lit("300", "integer")}},
		{"TIMEZONE", []kb.Term{lit("2011-01-10T14:45:13", "dateTime")}},
		{"REGEX", []kb.Term{kb.String("a"), kb.String("a"), kb.String("g")}},
		// XSD timezones lie within ±14:00, minutes below 60.
		{"TZ", []kb.Term{lit("2011-01-10T14:45:13+99:99", "dateTime")}},
		{"TZ", []kb.Term{lit("2011-01-10T14:45:13-14:01", "dateTime")}},
		{"TZ", []kb.Term{lit("2011-01-10T14:45:13+01:60", "dateTime")}},
		{"TIMEZONE", []kb.Term{lit("2011-01-10T14:45:13+15:00", "dateTime")}},
	} {
		if _, err := callBuiltin(env, bad.name, bad.args); !isExpressionError(err) {
			t.Errorf("%s%v: err = %v, want an expression error", bad.name, bad.args, err)
		}
	}
}

func TestBNodeStrIsStablePerSolution(t *testing.T) {
	env := NewFuncEnv(time.Now(), "")
	r1 := []kb.ID{1, 2}
	env.newSolution(r1)
	a, _ := callBuiltin(env, "BNODE", []kb.Term{kb.String("x")})
	b, _ := callBuiltin(env, "BNODE", []kb.Term{kb.String("x")})
	env.newSolution(r1)
	c, _ := callBuiltin(env, "BNODE", []kb.Term{kb.String("x")})
	env.newSolution([]kb.ID{1, 2})
	d, _ := callBuiltin(env, "BNODE", []kb.Term{kb.String("x")})
	if a != b || a != c || a == d {
		t.Errorf("BNODE(\"x\"): %s %s %s %s; want the same node within one solution only", a, b, c, d)
	}
}

func TestDivideInt64MatchesBigRat(t *testing.T) {
	pairs := [][2]int64{{1, 3}, {2, 3}, {-1, 3}, {1, -3}, {10, 4}, {-10, 4}, {1234567, 7}, {5, 1}, {0, 7},
		{999999999999999999 / 100, 7}, {1, 999999}, {2, 7}, {123456789012, 1000003}, {7, 8}, {-7, 8}, {99999, 100000}}
	for a := int64(-30); a <= 30; a += 7 {
		for b := int64(-13); b <= 13; b += 3 {
			pairs = append(pairs, [2]int64{a, b})
		}
	}
	for _, p := range pairs {
		if p[1] == 0 {
			continue
		}
		got, ok := divideInt64(p[0], p[1])
		want := function.Numeric{Kind: function.NumDecimal, R: big.NewRat(p[0], p[1])}.Term().Value
		if !ok || got != want {
			t.Errorf("%d/%d = %q (%v), want %q", p[0], p[1], got, ok, want)
		}
	}
}
