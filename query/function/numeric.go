package function

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

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

// IsIntegerType reports whether dt is xsd:integer or a type derived from it.
func IsIntegerType(dt string) bool { _, ok := integerTypes[dt]; return ok }

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
	case IsIntegerType(dt):
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

// Term returns the literal for the number n. Its lexical form is the
// XPath F&O 3.1 §19.1.2 cast-to-xs:string form of the value, which
// the W3C SPARQL suites expect of computed numbers (6+3.0 → "9"^^xsd:decimal,
// "6"^^xsd:double): an integral xsd:decimal has no decimal point, and a
// float or double in [1e-6, 1e6) is written in plain decimal notation with
// the fewest digits that read back to the same value; other magnitudes use
// the XSD canonical scientific form ("1.0E6"). One mapping for every
// computed number, so a value always prints the same way.
func (n Numeric) Term() kb.Term {
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

// Double returns the xsd:double literal for f, written as Numeric.Term
// writes a double.
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

// NumericLexical reports whether s is in the lexical space of the numeric
// datatype dt: a decimal, an integer (for xsd:integer and the types derived
// from it, whose ranges it does not check: ParseNumeric does), or a float
// or double.
func NumericLexical(s, dt string) bool {
	switch {
	case dt == ontology.XSDDecimal:
		return decimalLexical(s)
	case dt == ontology.XSDDouble || dt == ontology.XSDFloat:
		_, ok := parseFloatLexical(s)
		return ok
	case IsIntegerType(dt):
		return integerLexical(s)
	}
	return false
}
