package convert

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// doubleLexical is the xsd:double lexical space; isDoubleLexical checks
// the common forms without it (it runs once per metric value).
var doubleLexical = regexp.MustCompile(`^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$`)

// isIntegerLexical reports whether s is [+-]?[0-9]+.
func isIntegerLexical(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return s != "" && digits(s) == len(s)
}

func digits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// isDoubleLexical reports whether s is a valid xsd:double lexical form.
func isDoubleLexical(s string) bool {
	t := s
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	i := digits(t)
	mantissa := i
	if i < len(t) && t[i] == '.' {
		f := digits(t[i+1:])
		mantissa += f
		i += 1 + f
	}
	if i == len(t) {
		return mantissa > 0
	}
	if mantissa == 0 || (t[i] != 'e' && t[i] != 'E') {
		return doubleLexical.MatchString(s) // INF, NaN
	}
	e := t[i+1:]
	if e != "" && (e[0] == '+' || e[0] == '-') {
		e = e[1:]
	}
	return e != "" && digits(e) == len(e)
}

// MetricDatatype returns the XSD datatype of hasMetricValue for a metric
// name: the catalog's value datatype (xsd:double or xsd:long), xsd:double
// for names the catalog does not know.
func MetricDatatype(name string) string {
	if m, ok := ontology.LookupMetric(name); ok && m.ValueDatatype != "" {
		return m.ValueDatatype
	}
	return ontology.XSDDouble
}

// MetricLiteral returns the literal of a metric value whose lexical form
// comes from a source (database text, XML), for the value datatype dt
// (xsd:long or xsd:double, see MetricDatatype). The source's lexical form
// is kept when it is valid for dt ("4.75"^^xsd:double stays 4.75).
//
//   - xsd:long: an integer lexical is kept; an integral number in another
//     form ("12.0", "1e3") is written as an integer; a non-integral one is
//     written as xsd:double and warning says so.
//   - xsd:double: a valid xsd:double lexical is kept; PostgreSQL's
//     "Infinity"/"-Infinity" become INF/-INF.
//
// A value that is not a number is an error (the caller adds the position).
func MetricLiteral(dt, lexical string) (lit kb.Term, warning string, err error) {
	s := strings.TrimSpace(lexical)
	switch dt {
	case ontology.XSDLong, ontology.XSDInteger:
		if isIntegerLexical(s) {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil || dt == ontology.XSDInteger {
				return kb.Literal(s, dt), "", nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return kb.Term{}, "", fmt.Errorf("%q is not a number (want an integer for %s)", lexical, shortXSD(dt))
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return kb.Literal(strconv.FormatInt(int64(f), 10), dt), "", nil
		}
		d, _, _ := MetricLiteral(ontology.XSDDouble, s)
		return d, fmt.Sprintf("value %s of an integer (%s) metric is not integral; written as xsd:double", lexical, shortXSD(dt)), nil
	default:
		switch s {
		case "Infinity", "+Infinity", "inf", "+inf":
			return kb.Literal("INF", ontology.XSDDouble), "", nil
		case "-Infinity", "-inf":
			return kb.Literal("-INF", ontology.XSDDouble), "", nil
		case "nan":
			return kb.Literal("NaN", ontology.XSDDouble), "", nil
		}
		if isDoubleLexical(s) {
			return kb.Literal(s, ontology.XSDDouble), "", nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return kb.Term{}, "", fmt.Errorf("%q is not a number (want an xsd:double)", lexical)
		}
		return kb.Double(f), "", nil
	}
}

func shortXSD(dt string) string { return "xsd:" + strings.TrimPrefix(dt, ontology.XSDNamespace) }

// String returns a plain xsd:string literal (so that a query's "gsr410"
// matches it).
func String(s string) kb.Term { return kb.String(s) }

// DateTime returns an xsd:dateTime literal without a time zone (SCALEA and
// most tools record local wall-clock times), with fractional seconds only
// when there are some.
func DateTime(t time.Time) kb.Term {
	return kb.Literal(t.Format("2006-01-02T15:04:05.999999999"), ontology.XSDDateTime)
}
