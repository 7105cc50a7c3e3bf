package eval

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/function"
)

// dateTimeValue is a decoded xsd:dateTime, xsd:date or xsd:time.
type dateTimeValue struct {
	t      time.Time // in UTC when hasTZ, otherwise as written (UTC location)
	hasTZ  bool
	offset int // minutes east of UTC when hasTZ
	tzText string
	frac   string // fractional seconds digits as written
}

var dateTimeRE = regexp.MustCompile(`^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?$`)
var timeRE = regexp.MustCompile(`^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$`)

func parseDateTime(s string) (dateTimeValue, bool) {
	s = strings.TrimSpace(s)
	var y, mo, d, h, mi, sec int
	var frac, tz string
	if m := dateTimeRE.FindStringSubmatch(s); m != nil {
		y, _ = strconv.Atoi(m[1])
		mo, _ = strconv.Atoi(m[2])
		d, _ = strconv.Atoi(m[3])
		if m[4] != "" {
			h, _ = strconv.Atoi(m[4])
			mi, _ = strconv.Atoi(m[5])
			sec, _ = strconv.Atoi(m[6])
		}
		frac, tz = m[7], m[8]
	} else if m := timeRE.FindStringSubmatch(s); m != nil {
		y, mo, d = 1972, 12, 31
		h, _ = strconv.Atoi(m[1])
		mi, _ = strconv.Atoi(m[2])
		sec, _ = strconv.Atoi(m[3])
		frac, tz = m[4], m[5]
	} else {
		return dateTimeValue{}, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || sec > 60 {
		return dateTimeValue{}, false
	}
	ns := 0
	if frac != "" {
		f := frac
		if len(f) > 9 {
			f = f[:9]
		}
		ns, _ = strconv.Atoi(f + strings.Repeat("0", 9-len(f)))
	}
	v := dateTimeValue{frac: frac, tzText: tz}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC)
	if tz != "" {
		v.hasTZ = true
		if tz != "Z" {
			hh, _ := strconv.Atoi(tz[1:3])
			mm, _ := strconv.Atoi(tz[4:6])
			// XSD: a timezone lies within ±14:00.
			if mm > 59 || hh*60+mm > 14*60 {
				return dateTimeValue{}, false
			}
			v.offset = hh*60 + mm
			if tz[0] == '-' {
				v.offset = -v.offset
			}
		}
		t = t.Add(-time.Duration(v.offset) * time.Minute)
	}
	v.t = t
	return v, true
}

// errIndeterminate: a comparison of date/times with and without timezone
// that cannot be decided.
var errIndeterminate = typeErr("indeterminate dateTime comparison")

func compareDateTime(x, y dateTimeValue) (int, error) {
	if x.hasTZ == y.hasTZ {
		return x.t.Compare(y.t), nil
	}
	// One without a timezone: it may be anywhere within ±14h.
	const slack = 14 * time.Hour
	a, b := x.t, y.t
	if !x.hasTZ {
		if a.Add(slack).Before(b) {
			return -1, nil
		}
		if a.Add(-slack).After(b) {
			return 1, nil
		}
	} else {
		if b.Add(slack).Before(a) {
			return 1, nil
		}
		if b.Add(-slack).After(a) {
			return -1, nil
		}
	}
	return 0, errIndeterminate
}

// localFields returns the date/time fields as written (in the literal's own
// timezone).
func (v dateTimeValue) local() time.Time {
	return v.t.Add(time.Duration(v.offset) * time.Minute)
}

func dateTimeArg(t kb.Term) (dateTimeValue, error) {
	if t.Kind != kb.KindLiteral || (t.Datatype != ontology.XSDDateTime && t.Datatype != ontology.XSDDate && t.Datatype != ontology.XSDTime) {
		return dateTimeValue{}, typeErr("not a dateTime: %s", t)
	}
	v, ok := parseDateTime(t.Value)
	if !ok {
		return dateTimeValue{}, typeErr("invalid dateTime: %s", t)
	}
	return v, nil
}

func fnYear(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	return integerTerm(int64(v.local().Year())), nil
}

func fnMonth(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	return integerTerm(int64(v.local().Month())), nil
}

func fnDay(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	return integerTerm(int64(v.local().Day())), nil
}

func fnHours(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	return integerTerm(int64(v.local().Hour())), nil
}

func fnMinutes(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	return integerTerm(int64(v.local().Minute())), nil
}

func fnSeconds(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	r := new(big.Rat).SetInt64(int64(v.local().Second()))
	if v.frac != "" {
		f, _ := new(big.Rat).SetString("0." + v.frac)
		r.Add(r, f)
	}
	return function.Numeric{Kind: function.NumDecimal, R: r}.Term(), nil
}

func fnTimezone(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	if !v.hasTZ {
		return kb.Term{}, typeErr("no timezone")
	}
	return kb.Literal(formatDayTimeDuration(v.offset), ontology.XSDDayTimeDuration), nil
}

func formatDayTimeDuration(minutes int) string {
	if minutes == 0 {
		return "PT0S"
	}
	var b strings.Builder
	if minutes < 0 {
		b.WriteByte('-')
		minutes = -minutes
	}
	b.WriteString("PT")
	if h := minutes / 60; h > 0 {
		b.WriteString(strconv.Itoa(h) + "H")
	}
	if m := minutes % 60; m > 0 {
		b.WriteString(strconv.Itoa(m) + "M")
	}
	return b.String()
}

func fnTZ(args []kb.Term) (kb.Term, error) {
	v, err := dateTimeArg(args[0])
	if err != nil {
		return kb.Term{}, err
	}
	return kb.String(v.tzText), nil
}

// formatNow renders a time as a canonical xsd:dateTime.
func formatNow(t time.Time) kb.Term {
	return kb.Literal(t.UTC().Format("2006-01-02T15:04:05.000Z"), ontology.XSDDateTime)
}
