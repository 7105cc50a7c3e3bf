package eval

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/function"
)

// ErrType is the SPARQL expression error: a type error, an unbound variable,
// or any other failure that makes an expression have no value (§17.3). It is
// distinct from evaluation failures such as a canceled query: FILTER treats
// it as false, BIND leaves the variable unbound. It is
// function.ErrExpression, so extension functions report it too.
var ErrType = function.ErrExpression

// typeErr returns an error wrapping ErrType with a reason.
func typeErr(format string, args ...any) error {
	return &typeError{format: format, args: args}
}

// typeError is an ErrType whose message is formatted only when asked for.
// Most are never read: FILTER takes one as false and BIND leaves the
// variable unbound, once per row, and formatting them was a tenth of what
// a busy server allocated.
type typeError struct {
	format string
	args   []any
}

func (e *typeError) Error() string { return ErrType.Error() + ": " + fmt.Sprintf(e.format, e.args...) }
func (e *typeError) Unwrap() error { return ErrType }

// isExpressionError reports whether err is an expression (type) error.
func isExpressionError(err error) bool { return errors.Is(err, ErrType) }

// Boolean literals.
var (
	True  = kb.Literal("true", ontology.XSDBoolean)
	False = kb.Literal("false", ontology.XSDBoolean)
)

// boolTerm returns the xsd:boolean literal for b.
func boolTerm(b bool) kb.Term {
	if b {
		return True
	}
	return False
}

// integerTypes lists xsd:integer and its derived types with their bounds
// (nil = unbounded).
var integerTypes = func() map[string][2]*big.Int {
	m := map[string][2]*big.Int{}
	bi := func(s string) *big.Int {
		if s == "" {
			return nil
		}
		v, _ := new(big.Int).SetString(s, 10)
		return v
	}
	set := func(name, lo, hi string) { m[ontology.XSDNamespace+name] = [2]*big.Int{bi(lo), bi(hi)} }
	set("integer", "", "")
	set("nonPositiveInteger", "", "0")
	set("negativeInteger", "", "-1")
	set("long", "-9223372036854775808", "9223372036854775807")
	set("int", "-2147483648", "2147483647")
	set("short", "-32768", "32767")
	set("byte", "-128", "127")
	set("nonNegativeInteger", "0", "")
	set("unsignedLong", "0", "18446744073709551615")
	set("unsignedInt", "0", "4294967295")
	set("unsignedShort", "0", "65535")
	set("unsignedByte", "0", "255")
	set("positiveInteger", "1", "")
	return m
}()

// isIntegerType reports whether dt is xsd:integer or a type derived from it.
func isIntegerType(dt string) bool { _, ok := integerTypes[dt]; return ok }

// isNumericType reports whether dt is a numeric XSD datatype.
func isNumericType(dt string) bool {
	return dt == ontology.XSDDecimal || dt == ontology.XSDFloat || dt == ontology.XSDDouble || isIntegerType(dt)
}

// NumKind orders the numeric types for promotion: integer < decimal < float < double.
type NumKind uint8

// The numeric kinds.
const (
	NumInteger NumKind = iota
	NumDecimal
	NumFloat
	NumDouble
)

// Numeric is a decoded numeric value. Integers and decimals are exact
// (big.Rat); floats and doubles use F.
type Numeric struct {
	Kind NumKind
	R    *big.Rat // integer and decimal
	F    float64  // float and double
}

// Float64 returns the value as a float64.
func (n Numeric) Float64() float64 {
	if n.Kind >= NumFloat {
		return n.F
	}
	f, _ := n.R.Float64()
	return f
}

// IsZero reports whether the value is zero.
func (n Numeric) IsZero() bool {
	if n.Kind >= NumFloat {
		return n.F == 0
	}
	return n.R.Sign() == 0
}

// IsNaN reports whether the value is NaN.
func (n Numeric) IsNaN() bool { return n.Kind >= NumFloat && math.IsNaN(n.F) }

func (n Numeric) promote(k NumKind) Numeric {
	if n.Kind >= k {
		return n
	}
	switch k {
	case NumDecimal:
		return Numeric{Kind: NumDecimal, R: n.R}
	case NumFloat:
		f := n.Float64()
		return Numeric{Kind: NumFloat, F: float64(float32(f))}
	default:
		return Numeric{Kind: NumDouble, F: n.Float64()}
	}
}

var decimalLexical = func(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits, dot := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

func integerLexical(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	if i == len(s) {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func parseFloatLexical(s string) (float64, bool) {
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	if s == "" {
		return 0, false
	}
	// Reject forms Go accepts but XSD does not (hex, inf, underscores).
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// ParseNumeric decodes a numeric literal. ok is false for non-numeric terms
// and for numeric literals with an invalid lexical form.
func ParseNumeric(t kb.Term) (Numeric, bool) {
	if t.Kind != kb.KindLiteral {
		return Numeric{}, false
	}
	s := strings.TrimSpace(t.Value)
	switch dt := t.Datatype; {
	case dt == ontology.XSDDouble || dt == ontology.XSDFloat:
		f, ok := parseFloatLexical(s)
		if !ok {
			return Numeric{}, false
		}
		if dt == ontology.XSDFloat {
			return Numeric{Kind: NumFloat, F: float64(float32(f))}, true
		}
		return Numeric{Kind: NumDouble, F: f}, true
	case dt == ontology.XSDDecimal:
		if !decimalLexical(s) {
			return Numeric{}, false
		}
		if r, ok := smallDecimal(s); ok {
			return Numeric{Kind: NumDecimal, R: r}, true
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return Numeric{}, false
		}
		return Numeric{Kind: NumDecimal, R: r}, true
	case isIntegerType(dt):
		if !integerLexical(s) {
			return Numeric{}, false
		}
		if len(s) <= 18 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err == nil && (dt == ontology.XSDInteger || inRange(big.NewInt(v), dt)) {
				return Numeric{Kind: NumInteger, R: new(big.Rat).SetInt64(v)}, true
			}
		}
		i, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if !ok {
			return Numeric{}, false
		}
		b := integerTypes[dt]
		if b[0] != nil && i.Cmp(b[0]) < 0 || b[1] != nil && i.Cmp(b[1]) > 0 {
			return Numeric{}, false
		}
		return Numeric{Kind: NumInteger, R: new(big.Rat).SetInt(i)}, true
	}
	return Numeric{}, false
}

func inRange(i *big.Int, dt string) bool {
	b := integerTypes[dt]
	return !(b[0] != nil && i.Cmp(b[0]) < 0 || b[1] != nil && i.Cmp(b[1]) > 0)
}

var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// smallDecimal parses a decimal lexical form (already validated) with at
// most 18 digits without going through big.Rat.SetString.
func smallDecimal(s string) (*big.Rat, bool) {
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if len(intPart)+len(frac) > 18 {
		return nil, false
	}
	var m int64
	for _, c := range intPart + frac {
		m = m*10 + int64(c-'0')
	}
	if neg {
		m = -m
	}
	return new(big.Rat).SetFrac64(m, pow10[len(frac)]), true
}

// numericTerm returns the literal for a computed number n. Its lexical form
// is the XPath F&O 3.1 §19.1.2 cast-to-xs:string form of the value, which
// the W3C SPARQL suites expect of computed numbers (6+3.0 → "9"^^xsd:decimal,
// "6"^^xsd:double): an integral xsd:decimal has no decimal point, and a
// float or double in [1e-6, 1e6) is written in plain decimal notation with
// the fewest digits that read back to the same value; other magnitudes use
// the XSD canonical scientific form ("1.0E6"). One mapping for every
// computed number, so a value always prints the same way.
func numericTerm(n Numeric) kb.Term {
	switch n.Kind {
	case NumInteger:
		return kb.Literal(n.R.Num().String(), ontology.XSDInteger)
	case NumDecimal:
		return kb.Literal(canonicalDecimal(n.R), ontology.XSDDecimal)
	case NumFloat:
		return kb.Literal(floatString(n.F, 32), ontology.XSDFloat)
	default:
		return kb.Literal(floatString(n.F, 64), ontology.XSDDouble)
	}
}

// integerTerm returns the xsd:integer literal for i.
func integerTerm(i int64) kb.Term { return kb.Literal(strconv.FormatInt(i, 10), ontology.XSDInteger) }

// Double returns the xsd:double literal for f, written as numericTerm does.
func Double(f float64) kb.Term { return kb.Literal(floatString(f, 64), ontology.XSDDouble) }

// canonicalDecimal is the XPath string form of a decimal: the integer
// digits alone when r is whole ("3", not "3.0"), else the fewest fraction
// digits.
func canonicalDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// Exact when the denominator has only factors 2 and 5 (up to 18
	// significant digits); otherwise rounded to 18 significant digits, the
	// precision XSD requires of every processor.
	intDigits := len(new(big.Int).Quo(r.Num(), r.Denom()).String())
	if r.Sign() < 0 {
		intDigits--
	}
	frac := max(1, 18-intDigits)
	if intDigits == 1 && r.Num().CmpAbs(r.Denom()) < 0 {
		frac = 18 // 0.xxx: the leading zero is not significant
	}
	s := r.FloatString(frac)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		// Rounded to a whole number: no decimal point, as for r.IsInt.
		s = strings.TrimSuffix(s, ".")
		if s == "-0" {
			s = "0"
		}
	}
	return s
}

// floatString is the XPath F&O cast of a float (bits 32) or double (bits
// 64) to xs:string: plain decimal notation for magnitudes in [1e-6, 1e6)
// ("6", "0.2", "1050"), the XSD canonical scientific form otherwise
// ("1.0E6", "2.5E-7"), "0"/"-0" for the zeros, and INF, -INF, NaN.
func floatString(f float64, bits int) string {
	a := math.Abs(f)
	switch {
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	case a >= 1e-6 && a < 1e6:
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return canonicalDouble(f, bits)
}

// canonicalDouble is the XSD canonical scientific form: one digit before
// the point, at least one after, and an exponent ("1.0E6", "-2.5E-7").
func canonicalDouble(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// arith applies a binary arithmetic operator (+ - * /) with numeric type
// promotion (XPath op:numeric-*).
func arith(op byte, a, b kb.Term) (kb.Term, error) {
	if op == '/' {
		// Integer division without big.Rat, the metric-ratio case.
		if i, _, k, ok := fastNumber(a); ok && k == NumInteger {
			if j, _, k, ok := fastNumber(b); ok && k == NumInteger {
				if s, ok := divideInt64(i, j); ok {
					return kb.Literal(s, ontology.XSDDecimal), nil
				}
			}
		}
	}
	x, ok1 := ParseNumeric(a)
	y, ok2 := ParseNumeric(b)
	if !ok1 || !ok2 {
		return kb.Term{}, typeErr("arithmetic on non-numeric %s %c %s", a, op, b)
	}
	if op == '/' && x.Kind == NumInteger && y.Kind == NumInteger && x.R.Num().IsInt64() && y.R.Num().IsInt64() {
		if s, ok := divideInt64(x.R.Num().Int64(), y.R.Num().Int64()); ok {
			return kb.Literal(s, ontology.XSDDecimal), nil
		}
	}
	n, err := arithNumeric(op, x, y)
	if err != nil {
		return kb.Term{}, err
	}
	return numericTerm(n), nil
}

// divideInt64 is the canonical xsd:decimal of a/b computed by long
// division, giving the same digits as canonicalDecimal without big.Rat; ok
// is false when the operands are out of its range (or b is 0).
func divideInt64(a, b int64) (string, bool) {
	const limit = 1e17
	if b == 0 || a <= -limit || a >= limit || b <= -limit || b >= limit {
		return "", false
	}
	neg := (a < 0) != (b < 0)
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	q, r := a/b, a%b
	if r == 0 {
		if neg && q != 0 {
			return "-" + strconv.FormatInt(q, 10), true
		}
		return strconv.FormatInt(q, 10), true
	}
	intStr := strconv.FormatInt(q, 10)
	frac := 18
	if q != 0 {
		frac = max(1, 18-len(intStr))
	}
	digits := make([]byte, frac)
	for i := range digits {
		r *= 10
		digits[i] = byte('0' + r/b)
		r %= b
	}
	if 2*r >= b { // round half away from zero, as big.Rat.FloatString
		i := len(digits) - 1
		for ; i >= 0 && digits[i] == '9'; i-- {
			digits[i] = '0'
		}
		if i >= 0 {
			digits[i]++
		} else {
			q++
			intStr = strconv.FormatInt(q, 10)
		}
	}
	fracStr := strings.TrimRight(string(digits), "0")
	if fracStr == "" {
		// Rounded to a whole number: no decimal point (canonicalDecimal).
		if neg && q != 0 {
			return "-" + intStr, true
		}
		return intStr, true
	}
	if neg {
		return "-" + intStr + "." + fracStr, true
	}
	return intStr + "." + fracStr, true
}

// arithNumeric applies + - * / to decoded values with type promotion.
func arithNumeric(op byte, x, y Numeric) (Numeric, error) {
	k := max(x.Kind, y.Kind)
	if op == '/' && k == NumInteger {
		k = NumDecimal
	}
	x, y = x.promote(k), y.promote(k)
	if k >= NumFloat {
		var f float64
		switch op {
		case '+':
			f = x.F + y.F
		case '-':
			f = x.F - y.F
		case '*':
			f = x.F * y.F
		case '/':
			f = x.F / y.F
		}
		if k == NumFloat {
			f = float64(float32(f))
		}
		return Numeric{Kind: k, F: f}, nil
	}
	r := new(big.Rat)
	switch op {
	case '+':
		r.Add(x.R, y.R)
	case '-':
		r.Sub(x.R, y.R)
	case '*':
		r.Mul(x.R, y.R)
	case '/':
		if y.R.Sign() == 0 {
			return Numeric{}, typeErr("division by zero")
		}
		r.Quo(x.R, y.R)
	}
	return Numeric{Kind: k, R: r}, nil
}

// negate returns -a.
func negate(a kb.Term) (kb.Term, error) {
	x, ok := ParseNumeric(a)
	if !ok {
		return kb.Term{}, typeErr("unary minus on non-numeric %s", a)
	}
	if x.Kind >= NumFloat {
		x.F = -x.F
	} else {
		x.R = new(big.Rat).Neg(x.R)
	}
	return numericTerm(x), nil
}

// unaryPlus returns +a (a type check).
func unaryPlus(a kb.Term) (kb.Term, error) {
	if _, ok := ParseNumeric(a); !ok {
		return kb.Term{}, typeErr("unary plus on non-numeric %s", a)
	}
	return a, nil
}

// effectiveBool computes the effective boolean value of a term (§17.2.2).
func effectiveBool(t kb.Term) (bool, error) {
	if t.Kind != kb.KindLiteral {
		return false, typeErr("no effective boolean value for %s", t)
	}
	switch {
	case t.Datatype == ontology.XSDBoolean:
		switch t.Value {
		case "true", "1":
			return true, nil
		}
		return false, nil
	case t.Datatype == ontology.XSDString || t.Datatype == ontology.RDFLangString:
		return t.Value != "", nil
	case isNumericType(t.Datatype):
		n, ok := ParseNumeric(t)
		if !ok {
			return false, nil
		}
		return !n.IsZero() && !n.IsNaN(), nil
	}
	return false, typeErr("no effective boolean value for %s", t)
}

// boolValue decodes an xsd:boolean literal.
func boolValue(t kb.Term) (bool, bool) {
	if t.Kind != kb.KindLiteral || t.Datatype != ontology.XSDBoolean {
		return false, false
	}
	switch strings.TrimSpace(t.Value) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// isStringLit reports whether t is a simple literal or xsd:string.
func isStringLit(t kb.Term) bool { return t.Kind == kb.KindLiteral && t.Datatype == ontology.XSDString }

// isKnownType reports whether the operators understand values of datatype dt.
func isKnownType(dt string) bool {
	return dt == ontology.XSDString || dt == ontology.RDFLangString || dt == ontology.XSDBoolean || dt == ontology.XSDDateTime ||
		dt == ontology.XSDDate || dt == ontology.XSDTime || isNumericType(dt)
}

// Compare compares two terms with the SPARQL operator semantics. It returns
// -1, 0 or 1, or an expression error when the values are not comparable. When
// forOrder is false only =/!= semantics are needed for non-ordered types.
func Compare(a, b kb.Term) (int, error) {
	if a.Kind == kb.KindLiteral && b.Kind == kb.KindLiteral {
		if c, ok := fastCompareDecimal(a, b); ok {
			return c, nil
		}
		if x, ok := ParseNumeric(a); ok {
			if y, ok := ParseNumeric(b); ok {
				return compareNumeric(x, y)
			}
		}
		switch {
		case isStringLit(a) && isStringLit(b):
			return strings.Compare(a.Value, b.Value), nil
		case a.Datatype == ontology.XSDBoolean && b.Datatype == ontology.XSDBoolean:
			x, ok1 := boolValue(a)
			y, ok2 := boolValue(b)
			if ok1 && ok2 {
				return boolCmp(x, y), nil
			}
		case a.Datatype == ontology.XSDDateTime && b.Datatype == ontology.XSDDateTime,
			a.Datatype == ontology.XSDDate && b.Datatype == ontology.XSDDate,
			a.Datatype == ontology.XSDTime && b.Datatype == ontology.XSDTime:
			x, ok1 := parseDateTime(a.Value)
			y, ok2 := parseDateTime(b.Value)
			if ok1 && ok2 {
				return compareDateTime(x, y)
			}
		}
	}
	return 0, typeErr("cannot compare %s and %s", a, b)
}

// fastCompareDecimal compares two xsd:decimal or xsd:integer literals
// exactly on their lexical forms, without big.Rat (the FILTER and ORDER BY
// of metric ratios). ok is false for any other pair.
func fastCompareDecimal(a, b kb.Term) (int, bool) {
	na, ia, fa, ok := decimalParts(a)
	if !ok {
		return 0, false
	}
	nb, ib, fb, ok := decimalParts(b)
	if !ok {
		return 0, false
	}
	za, zb := ia == "" && fa == "", ib == "" && fb == ""
	switch {
	case za && zb:
		return 0, true
	case za:
		if nb {
			return 1, true
		}
		return -1, true
	case zb:
		if na {
			return -1, true
		}
		return 1, true
	case na != nb:
		if na {
			return -1, true
		}
		return 1, true
	}
	c := 0
	switch {
	case len(ia) != len(ib):
		c = 1
		if len(ia) < len(ib) {
			c = -1
		}
	default:
		if c = strings.Compare(ia, ib); c == 0 {
			c = strings.Compare(fa, fb)
		}
	}
	if na {
		c = -c
	}
	return c, true
}

// decimalParts splits the lexical form of an xsd:decimal or xsd:integer
// literal into its sign, its integer digits without leading zeros and its
// fraction digits without trailing zeros; ok is false for other terms and
// for forms ParseNumeric would have to trim.
func decimalParts(t kb.Term) (neg bool, ip, fp string, ok bool) {
	s := t.Value
	switch t.Datatype {
	case ontology.XSDDecimal:
		if !decimalLexical(s) {
			return false, "", "", false
		}
	case ontology.XSDInteger:
		if !integerLexical(s) {
			return false, "", "", false
		}
	default:
		return false, "", "", false
	}
	if s[0] == '+' || s[0] == '-' {
		neg, s = s[0] == '-', s[1:]
	}
	ip = s
	if i := strings.IndexByte(s, '.'); i >= 0 {
		ip, fp = s[:i], s[i+1:]
	}
	ip = strings.TrimLeft(ip, "0")
	fp = strings.TrimRight(fp, "0")
	return neg, ip, fp, true
}

func boolCmp(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

var errNaN = typeErr("NaN is unordered")

func compareNumeric(x, y Numeric) (int, error) {
	k := max(x.Kind, y.Kind)
	x, y = x.promote(k), y.promote(k)
	if k >= NumFloat {
		switch {
		case math.IsNaN(x.F) || math.IsNaN(y.F):
			return 0, errNaN
		case x.F < y.F:
			return -1, nil
		case x.F > y.F:
			return 1, nil
		}
		return 0, nil
	}
	return x.R.Cmp(y.R), nil
}

// Equal implements the SPARQL = operator: value equality for known
// datatypes, RDF term equality otherwise, with a type error for two
// different literals whose values cannot be compared (RDFterm-equal).
func Equal(a, b kb.Term) (bool, error) {
	if a.Kind != kb.KindLiteral || b.Kind != kb.KindLiteral {
		// RDFterm-equal: an IRI, blank node or triple term equals only
		// itself (Compare has no order for them, and building its error
		// per row dominated FILTER(?s = ?o)).
		return a == b, nil
	}
	c, err := Compare(a, b)
	if err == nil {
		return c == 0, nil
	}
	if errors.Is(err, errNaN) {
		return false, nil
	}
	if a == b {
		return true, nil
	}
	if errors.Is(err, errIndeterminate) {
		return false, err
	}
	if a.Kind == kb.KindLiteral && b.Kind == kb.KindLiteral {
		if a.Datatype == ontology.RDFLangString || b.Datatype == ontology.RDFLangString {
			return false, nil
		}
		// Two literals of known, different-valued types (e.g. a string and a
		// number) are simply unequal; otherwise we cannot tell.
		if isKnownType(a.Datatype) && isKnownType(b.Datatype) {
			// Ill-typed lexical forms of a known type: cannot decide.
			if validLexical(a) && validLexical(b) {
				return false, nil
			}
		}
		return false, typeErr("cannot decide equality of %s and %s", a, b)
	}
	return false, nil
}

// validLexical reports whether a literal of a known datatype has a valid
// lexical form.
func validLexical(t kb.Term) bool {
	switch {
	case isNumericType(t.Datatype):
		_, ok := ParseNumeric(t)
		return ok
	case t.Datatype == ontology.XSDBoolean:
		_, ok := boolValue(t)
		return ok
	case t.Datatype == ontology.XSDDateTime || t.Datatype == ontology.XSDDate || t.Datatype == ontology.XSDTime:
		_, ok := parseDateTime(t.Value)
		return ok
	}
	return true
}

// kindRank orders term kinds for ORDER BY: unbound, blank, IRI, literal.
var kindRank = [...]int{0: 0, kb.KindBlank: 1, kb.KindIRI: 2, kb.KindLiteral: 3}

// orderCompare orders two terms for ORDER BY (§15.1): unbound (zero Term)
// < blank nodes < IRIs < literals; literals by value where the < operator
// applies, otherwise by lexical form, datatype and language. It is a total
// order usable for sorting.
func orderCompare(a, b kb.Term) int {
	if a.Kind != b.Kind {
		return kindRank[a.Kind] - kindRank[b.Kind]
	}
	switch a.Kind {
	case 0:
		return 0
	case kb.KindBlank, kb.KindIRI:
		return strings.Compare(a.Value, b.Value)
	}
	if c, err := Compare(a, b); err == nil && c != 0 {
		return c
	}
	// Simple literals before typed ones, then by lexical form.
	as, bs := isStringLit(a), isStringLit(b)
	if as != bs {
		if as {
			return -1
		}
		return 1
	}
	an, bn := isNumericType(a.Datatype), isNumericType(b.Datatype)
	if an != bn {
		if an {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.Value, b.Value); c != 0 {
		return c
	}
	if c := strings.Compare(a.Datatype, b.Datatype); c != 0 {
		return c
	}
	return strings.Compare(a.Lang, b.Lang)
}
