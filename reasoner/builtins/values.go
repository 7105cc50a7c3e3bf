package builtins

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// XSD is the XML Schema datatype namespace.
const XSD = ontology.XSDNamespace

// FunctorDatatype marks literals that encode a Jena functor value
// name(args) written in a rule head.
const FunctorDatatype = "urn:x-perfkb:functor"

var integerTypes = map[string]bool{}
var floatTypes = map[string]bool{ontology.XSDDecimal: true, ontology.XSDFloat: true, ontology.XSDDouble: true}

func init() {
	for _, t := range []string{"integer", "int", "long", "short", "byte", "nonNegativeInteger",
		"positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedLong", "unsignedInt",
		"unsignedShort", "unsignedByte"} {
		integerTypes[XSD+t] = true
	}
}

// Number is a numeric literal's value: an integer when IsInt, else a float.
type Number struct {
	IsInt bool
	Int   int64
	Float float64
}

// AsFloat returns the value as a float64.
func (n Number) AsFloat() float64 {
	if n.IsInt {
		return float64(n.Int)
	}
	return n.Float
}

// NumberOf returns the numeric value of a literal with an XSD numeric
// datatype; ok is false for anything else (including ill-formed lexicals).
func NumberOf(t kb.Term) (Number, bool) {
	if !t.IsLiteral() {
		return Number{}, false
	}
	lex := strings.TrimSpace(t.Value)
	switch {
	case integerTypes[t.Datatype]:
		v, err := strconv.ParseInt(strings.TrimPrefix(lex, "+"), 10, 64)
		if err != nil {
			// beyond int64: keep it as a float
			bf, ok := new(big.Float).SetString(lex)
			if !ok {
				return Number{}, false
			}
			f, _ := bf.Float64()
			return Number{Float: f}, true
		}
		return Number{IsInt: true, Int: v}, true
	case floatTypes[t.Datatype]:
		switch lex {
		case "INF", "+INF":
			return Number{Float: math.Inf(1)}, true
		case "-INF":
			return Number{Float: math.Inf(-1)}, true
		}
		bits := 64
		if t.Datatype == ontology.XSDFloat {
			bits = 32 // an xsd:float has a float's precision, as in Jena
		}
		v, err := strconv.ParseFloat(lex, bits)
		if err != nil {
			return Number{}, false
		}
		return Number{Float: v}, true
	}
	return Number{}, false
}

// compareNumbers returns -1, 0 or 1; integers compare exactly.
func compareNumbers(a, b Number) int {
	if a.IsInt && b.IsInt {
		switch {
		case a.Int < b.Int:
			return -1
		case a.Int > b.Int:
			return 1
		}
		return 0
	}
	x, y := a.AsFloat(), b.AsFloat()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return 2 // NaN: unordered
}

func dateTimeOf(t kb.Term) (time.Time, bool) {
	if !t.IsLiteral() || (t.Datatype != ontology.XSDDateTime && t.Datatype != ontology.XSDDate && t.Datatype != ontology.XSDDateTimeStamp) {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02Z07:00", "2006-01-02"} {
		if v, err := time.Parse(layout, t.Value); err == nil {
			return v, true
		}
	}
	return time.Time{}, false
}

// Compare orders two terms when they are comparable: numbers by value
// across numeric types, dateTimes by instant. ok is false otherwise.
func Compare(a, b kb.Term) (cmp int, ok bool) {
	if x, okx := NumberOf(a); okx {
		if y, oky := NumberOf(b); oky {
			c := compareNumbers(x, y)
			return c, c != 2
		}
		return 0, false
	}
	if x, okx := dateTimeOf(a); okx {
		if y, oky := dateTimeOf(b); oky {
			return x.Compare(y), true
		}
	}
	return 0, false
}

// SameValue reports semantic equality: numbers and dateTimes by value,
// everything else as identical terms.
func SameValue(a, b kb.Term) bool {
	if a == b {
		return true
	}
	if c, ok := Compare(a, b); ok {
		return c == 0
	}
	return false
}

// IntLiteral returns an integer literal typed as Jena types arithmetic
// results: xsd:int when it fits in 32 bits, else xsd:long.
func IntLiteral(v int64) kb.Term {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		return kb.Literal(strconv.FormatInt(v, 10), ontology.XSDInt)
	}
	return kb.Literal(strconv.FormatInt(v, 10), ontology.XSDLong)
}

// DoubleLiteral returns an xsd:double literal whose lexical form is the
// one Java's Double.toString (and so Jena) writes: plain decimal with at
// least one fraction digit for 1e-3 <= |v| < 1e7, else d.dddE[-]n.
func DoubleLiteral(v float64) kb.Term {
	return kb.Literal(JavaDouble(v), ontology.XSDDouble)
}

// JavaDouble formats v as Java's Double.toString does.
func JavaDouble(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "INF"
	case math.IsInf(v, -1):
		return "-INF"
	case math.IsNaN(v):
		return "NaN"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(v)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'E', -1, 64) // 1.2345678E+07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// Lexical is the text of a term as strConcat and print use it: an IRI's
// IRI, a literal's lexical form, a blank node's label.
func Lexical(t kb.Term) string { return t.Value }
