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
	trueLit  = kb.Literal("true", ontology.XSDBoolean)
	falseLit = kb.Literal("false", ontology.XSDBoolean)
)

// boolTerm returns the xsd:boolean literal for b.
func boolTerm(b bool) kb.Term {
	if b {
		return trueLit
	}
	return falseLit
}

// isNumericType reports whether dt is a numeric XSD datatype.
func isNumericType(dt string) bool {
	return dt == ontology.XSDDecimal || dt == ontology.XSDFloat || dt == ontology.XSDDouble || function.IsIntegerType(dt)
}

// promote converts n to the kind k of the wider operand (XPath type
// promotion).
func promote(n function.Numeric, k function.NumKind) function.Numeric {
	if n.Kind >= k {
		return n
	}
	switch k {
	case function.NumDecimal:
		return function.Numeric{Kind: function.NumDecimal, R: n.R}
	case function.NumFloat:
		f := n.Float64()
		return function.Numeric{Kind: function.NumFloat, F: float64(float32(f))}
	default:
		return function.Numeric{Kind: function.NumDouble, F: n.Float64()}
	}
}

// integerTerm returns the xsd:integer literal for i.
func integerTerm(i int64) kb.Term { return kb.Literal(strconv.FormatInt(i, 10), ontology.XSDInteger) }

// arith applies a binary arithmetic operator (+ - * /) with numeric type
// promotion (XPath op:numeric-*).
func arith(op byte, a, b kb.Term) (kb.Term, error) {
	if op == '/' {
		// Integer division without big.Rat, the metric-ratio case.
		if i, _, k, ok := fastNumber(a); ok && k == function.NumInteger {
			if j, _, k, ok := fastNumber(b); ok && k == function.NumInteger {
				if s, ok := divideInt64(i, j); ok {
					return kb.Literal(s, ontology.XSDDecimal), nil
				}
			}
		}
	}
	x, ok1 := function.ParseNumeric(a)
	y, ok2 := function.ParseNumeric(b)
	if !ok1 || !ok2 {
		return kb.Term{}, typeErr("arithmetic on non-numeric %s %c %s", a, op, b)
	}
	if op == '/' && x.Kind == function.NumInteger && y.Kind == function.NumInteger && x.R.Num().IsInt64() && y.R.Num().IsInt64() {
		if s, ok := divideInt64(x.R.Num().Int64(), y.R.Num().Int64()); ok {
			return kb.Literal(s, ontology.XSDDecimal), nil
		}
	}
	n, err := arithNumeric(op, x, y)
	if err != nil {
		return kb.Term{}, err
	}
	return n.Term(), nil
}

// divideInt64 is the canonical xsd:decimal of a/b computed by long
// division, giving the same digits as function.Numeric.Term without big.Rat; ok
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
		// Rounded to a whole number: no decimal point (as function.Numeric.Term writes it).
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
func arithNumeric(op byte, x, y function.Numeric) (function.Numeric, error) {
	k := max(x.Kind, y.Kind)
	if op == '/' && k == function.NumInteger {
		k = function.NumDecimal
	}
	x, y = promote(x, k), promote(y, k)
	if k >= function.NumFloat {
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
		if k == function.NumFloat {
			f = float64(float32(f))
		}
		return function.Numeric{Kind: k, F: f}, nil
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
			return function.Numeric{}, typeErr("division by zero")
		}
		r.Quo(x.R, y.R)
	}
	return function.Numeric{Kind: k, R: r}, nil
}

// negate returns -a.
func negate(a kb.Term) (kb.Term, error) {
	x, ok := function.ParseNumeric(a)
	if !ok {
		return kb.Term{}, typeErr("unary minus on non-numeric %s", a)
	}
	if x.Kind >= function.NumFloat {
		x.F = -x.F
	} else {
		x.R = new(big.Rat).Neg(x.R)
	}
	return x.Term(), nil
}

// unaryPlus returns +a (a type check).
func unaryPlus(a kb.Term) (kb.Term, error) {
	if _, ok := function.ParseNumeric(a); !ok {
		return kb.Term{}, typeErr("unary plus on non-numeric %s", a)
	}
	return a, nil
}

// effectiveBool computes the effective boolean value of a term (§17.2.2),
// as SPARQL 1.2 states it: a language-tagged string and an xsd:boolean
// with an invalid lexical form have none.
func effectiveBool(t kb.Term) (bool, error) {
	if t.Kind != kb.KindLiteral {
		return false, typeErr("no effective boolean value for %s", t)
	}
	switch {
	case t.Datatype == ontology.XSDBoolean:
		switch t.Value {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return false, typeErr("no effective boolean value for the invalid %s", t)
	case t.Datatype == ontology.XSDString:
		return t.Value != "", nil
	case isNumericType(t.Datatype):
		n, ok := function.ParseNumeric(t)
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
		if x, ok := function.ParseNumeric(a); ok {
			if y, ok := function.ParseNumeric(b); ok {
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
// for forms function.ParseNumeric would have to trim.
func decimalParts(t kb.Term) (neg bool, ip, fp string, ok bool) {
	s := t.Value
	switch t.Datatype {
	case ontology.XSDDecimal:
		if !function.NumericLexical(s, ontology.XSDDecimal) {
			return false, "", "", false
		}
	case ontology.XSDInteger:
		if !function.NumericLexical(s, ontology.XSDInteger) {
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

func compareNumeric(x, y function.Numeric) (int, error) {
	k := max(x.Kind, y.Kind)
	x, y = promote(x, k), promote(y, k)
	if k >= function.NumFloat {
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

// equal implements the SPARQL = operator: value equality for known
// datatypes, RDF term equality otherwise, with a type error for two
// different literals whose values cannot be compared (RDFterm-equal).
func equal(a, b kb.Term) (bool, error) {
	if a.Kind == kb.KindTriple && b.Kind == kb.KindTriple {
		return equalTriples(a, b)
	}
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
		_, ok := function.ParseNumeric(t)
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

// kindRank orders term kinds for ORDER BY: unbound, blank, IRI, literal,
// triple term (SPARQL 1.2 §15.1).
var kindRank = [...]int{0: 0, kb.KindBlank: 1, kb.KindIRI: 2, kb.KindLiteral: 3, kb.KindTriple: 4}

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
	case kb.KindTriple:
		return orderTriples(a, b)
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
