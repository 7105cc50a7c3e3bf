package eval

import (
	"math"
	"math/big"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/function"
)

// castImpls implements the XSD constructor functions (§17.5) that
// function.Builtin declares by IRI.
var castImpls = func() map[string]func(kb.Term) (kb.Term, error) {
	m := map[string]func(kb.Term) (kb.Term, error){
		ontology.XSDString:   castString,
		ontology.XSDBoolean:  castBoolean,
		ontology.XSDDecimal:  castDecimal,
		ontology.XSDFloat:    func(t kb.Term) (kb.Term, error) { return castFloating(t, function.NumFloat) },
		ontology.XSDDouble:   func(t kb.Term) (kb.Term, error) { return castFloating(t, function.NumDouble) },
		ontology.XSDDateTime: castDateTime,
	}
	for _, d := range function.Builtin().Defs() {
		if dt := d.Name; function.IsIntegerType(dt) {
			m[dt] = func(t kb.Term) (kb.Term, error) { return castInteger(t, dt) }
		}
	}
	return m
}()

func castString(t kb.Term) (kb.Term, error) {
	switch {
	case t.Kind == kb.KindIRI:
		return kb.String(t.Value), nil
	case t.Kind == kb.KindLiteral && t.Datatype != ontology.RDFLangString:
		if n, ok := function.ParseNumeric(t); ok {
			if n.Kind == function.NumInteger {
				return kb.String(n.R.Num().String()), nil
			}
			// The string form of a number is the form computed numbers
			// get (function.Numeric.Term), whatever lexical form the input had.
			return kb.String(n.Term().Value), nil
		}
		if b, ok := boolValue(t); ok {
			return kb.String(boolTerm(b).Value), nil
		}
		return kb.String(t.Value), nil
	}
	return kb.Term{}, typeErr("cannot cast %s to xsd:string", t)
}

func castBoolean(t kb.Term) (kb.Term, error) {
	if t.Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("cannot cast %s to xsd:boolean", t)
	}
	if b, ok := boolValue(t); ok {
		return boolTerm(b), nil
	}
	if isStringLit(t) {
		switch strings.TrimSpace(t.Value) {
		case "true", "1":
			return trueLit, nil
		case "false", "0":
			return falseLit, nil
		}
		return kb.Term{}, typeErr("cannot cast %q to xsd:boolean", t.Value)
	}
	if n, ok := function.ParseNumeric(t); ok {
		return boolTerm(!n.IsZero() && !n.IsNaN()), nil
	}
	return kb.Term{}, typeErr("cannot cast %s to xsd:boolean", t)
}

// numberFrom decodes the numeric value a cast starts from.
func numberFrom(t kb.Term) (function.Numeric, bool) {
	if n, ok := function.ParseNumeric(t); ok {
		return n, true
	}
	if b, ok := boolValue(t); ok {
		v := int64(0)
		if b {
			v = 1
		}
		return function.Numeric{Kind: function.NumInteger, R: big.NewRat(v, 1)}, true
	}
	return function.Numeric{}, false
}

func castInteger(t kb.Term, dt string) (kb.Term, error) {
	if t.Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("cannot cast %s to %s", t, dt)
	}
	var i *big.Int
	if isStringLit(t) {
		s := strings.TrimSpace(t.Value)
		if !function.NumericLexical(s, ontology.XSDInteger) {
			return kb.Term{}, typeErr("cannot cast %q to %s", t.Value, dt)
		}
		i, _ = new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
	} else {
		n, ok := numberFrom(t)
		if !ok {
			return kb.Term{}, typeErr("cannot cast %s to %s", t, dt)
		}
		if n.Kind >= function.NumFloat {
			if math.IsNaN(n.F) || math.IsInf(n.F, 0) {
				return kb.Term{}, typeErr("cannot cast %s to %s", t, dt)
			}
			i, _ = new(big.Float).SetFloat64(math.Trunc(n.F)).Int(nil)
		} else {
			i = new(big.Int).Quo(n.R.Num(), n.R.Denom()) // truncates toward zero
		}
	}
	lit := kb.Literal(i.String(), dt)
	if _, ok := function.ParseNumeric(lit); !ok {
		return kb.Term{}, typeErr("%s out of range for %s", i, dt)
	}
	return lit, nil
}

func castDecimal(t kb.Term) (kb.Term, error) {
	if t.Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("cannot cast %s to xsd:decimal", t)
	}
	if isStringLit(t) {
		s := strings.TrimSpace(t.Value)
		if !function.NumericLexical(s, ontology.XSDDecimal) {
			return kb.Term{}, typeErr("cannot cast %q to xsd:decimal", t.Value)
		}
		r, _ := new(big.Rat).SetString(s)
		return function.Numeric{Kind: function.NumDecimal, R: r}.Term(), nil
	}
	n, ok := numberFrom(t)
	if !ok {
		return kb.Term{}, typeErr("cannot cast %s to xsd:decimal", t)
	}
	if n.Kind >= function.NumFloat {
		if math.IsNaN(n.F) || math.IsInf(n.F, 0) {
			return kb.Term{}, typeErr("cannot cast %s to xsd:decimal", t)
		}
		r, _ := new(big.Rat).SetString(function.Numeric{Kind: function.NumDouble, F: n.F}.Term().Value)
		if r == nil {
			r = new(big.Rat).SetFloat64(n.F)
		}
		return function.Numeric{Kind: function.NumDecimal, R: r}.Term(), nil
	}
	return function.Numeric{Kind: function.NumDecimal, R: n.R}.Term(), nil
}

func castFloating(t kb.Term, k function.NumKind) (kb.Term, error) {
	if t.Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("cannot cast %s to a floating type", t)
	}
	if isStringLit(t) {
		n, ok := function.ParseNumeric(kb.Literal(t.Value, ontology.XSDDouble))
		if !ok {
			return kb.Term{}, typeErr("cannot cast %q to a floating type", t.Value)
		}
		f := n.F
		if k == function.NumFloat {
			f = float64(float32(f))
		}
		return function.Numeric{Kind: k, F: f}.Term(), nil
	}
	n, ok := numberFrom(t)
	if !ok {
		return kb.Term{}, typeErr("cannot cast %s to a floating type", t)
	}
	f := n.Float64()
	if k == function.NumFloat {
		f = float64(float32(f))
	}
	return function.Numeric{Kind: k, F: f}.Term(), nil
}

func castDateTime(t kb.Term) (kb.Term, error) {
	if t.Kind != kb.KindLiteral || !(isStringLit(t) || t.Datatype == ontology.XSDDateTime) {
		return kb.Term{}, typeErr("cannot cast %s to xsd:dateTime", t)
	}
	s := strings.TrimSpace(t.Value)
	if !dateTimeRE.MatchString(s) || !strings.Contains(s, "T") {
		return kb.Term{}, typeErr("cannot cast %q to xsd:dateTime", t.Value)
	}
	if _, ok := parseDateTime(s); !ok {
		return kb.Term{}, typeErr("cannot cast %q to xsd:dateTime", t.Value)
	}
	return kb.Literal(s, ontology.XSDDateTime), nil
}
