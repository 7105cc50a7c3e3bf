package eval

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
)

// FuncEnv is the per-query state builtin functions need: the query's NOW,
// its base IRI, blank node allocation and a regular-expression cache.
type FuncEnv struct {
	Now      time.Time
	Base     string
	bnodes   map[string]kb.Term // BNODE(str) within the current solution
	solution *kb.ID             // first slot of the current solution row
	counter  uint64
	prefix   string
	regexps  map[string]*regexp.Regexp
}

// NewFuncEnv returns an environment with NOW fixed to now.
func NewFuncEnv(now time.Time, base string) *FuncEnv {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &FuncEnv{Now: now, Base: base, prefix: "b" + hex.EncodeToString(b[:]) + "_", regexps: map[string]*regexp.Regexp{}}
}

// NewRow starts a new solution: BNODE("x") gives a fresh node again.
func (e *FuncEnv) NewRow() { e.bnodes, e.solution = nil, nil }

// newSolution starts a new solution unless r is the one already current
// (several BINDs over one solution share BNODE(str) labels).
func (e *FuncEnv) newSolution(r []kb.ID) {
	if len(r) > 0 && e.solution == &r[0] {
		return
	}
	e.bnodes, e.solution = nil, nil
	if len(r) > 0 {
		e.solution = &r[0]
	}
}

// FreshBlank returns a new blank node unique to this query.
func (e *FuncEnv) FreshBlank() kb.Term {
	e.counter++
	return kb.Blank(e.prefix + strconv.FormatUint(e.counter, 10))
}

// Builtin is a SPARQL builtin function over evaluated arguments.
type Builtin struct {
	MinArgs, MaxArgs int // MaxArgs < 0: variadic
	Fn               func(env *FuncEnv, args []kb.Term) (kb.Term, error)
}

func pure(minArgs, maxArgs int, fn func(args []kb.Term) (kb.Term, error)) Builtin {
	return Builtin{minArgs, maxArgs, func(_ *FuncEnv, a []kb.Term) (kb.Term, error) { return fn(a) }}
}

// Builtins maps upper-case SPARQL builtin names to their implementation.
// Functional forms that need unevaluated arguments (BOUND, IF, COALESCE,
// EXISTS, IN, logical operators) are handled by the evaluator.
var Builtins = map[string]Builtin{
	"STR":            pure(1, 1, fnStr),
	"LANG":           pure(1, 1, fnLang),
	"LANGMATCHES":    pure(2, 2, fnLangMatches),
	"DATATYPE":       pure(1, 1, fnDatatype),
	"IRI":            {1, 1, fnIRI},
	"URI":            {1, 1, fnIRI},
	"BNODE":          {0, 1, fnBNode},
	"RAND":           pure(0, 0, func([]kb.Term) (kb.Term, error) { return Double(mrand.Float64()), nil }),
	"ABS":            pure(1, 1, fnAbs),
	"CEIL":           pure(1, 1, fnCeil),
	"FLOOR":          pure(1, 1, fnFloor),
	"ROUND":          pure(1, 1, fnRound),
	"CONCAT":         pure(0, -1, fnConcat),
	"STRLEN":         pure(1, 1, fnStrlen),
	"UCASE":          pure(1, 1, func(a []kb.Term) (kb.Term, error) { return mapString(a[0], strings.ToUpper) }),
	"LCASE":          pure(1, 1, func(a []kb.Term) (kb.Term, error) { return mapString(a[0], strings.ToLower) }),
	"ENCODE_FOR_URI": pure(1, 1, fnEncodeForURI),
	"CONTAINS":       pure(2, 2, func(a []kb.Term) (kb.Term, error) { return strTest(a, strings.Contains) }),
	"STRSTARTS":      pure(2, 2, func(a []kb.Term) (kb.Term, error) { return strTest(a, strings.HasPrefix) }),
	"STRENDS":        pure(2, 2, func(a []kb.Term) (kb.Term, error) { return strTest(a, strings.HasSuffix) }),
	"STRBEFORE":      pure(2, 2, fnStrBefore),
	"STRAFTER":       pure(2, 2, fnStrAfter),
	"YEAR":           pure(1, 1, fnYear),
	"MONTH":          pure(1, 1, fnMonth),
	"DAY":            pure(1, 1, fnDay),
	"HOURS":          pure(1, 1, fnHours),
	"MINUTES":        pure(1, 1, fnMinutes),
	"SECONDS":        pure(1, 1, fnSeconds),
	"TIMEZONE":       pure(1, 1, fnTimezone),
	"TZ":             pure(1, 1, fnTZ),
	"NOW":            {0, 0, func(e *FuncEnv, _ []kb.Term) (kb.Term, error) { return formatNow(e.Now), nil }},
	"UUID":           pure(0, 0, func([]kb.Term) (kb.Term, error) { return kb.IRI("urn:uuid:" + newUUID()), nil }),
	"STRUUID":        pure(0, 0, func([]kb.Term) (kb.Term, error) { return kb.String(newUUID()), nil }),
	"MD5":            pure(1, 1, func(a []kb.Term) (kb.Term, error) { return hashString(a[0], md5.New()) }),
	"SHA1":           pure(1, 1, func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha1.New()) }),
	"SHA256":         pure(1, 1, func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha256.New()) }),
	"SHA384":         pure(1, 1, func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha512.New384()) }),
	"SHA512":         pure(1, 1, func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha512.New()) }),
	"STRLANG":        pure(2, 2, fnStrLang),
	"STRDT":          pure(2, 2, fnStrDT),
	"SAMETERM":       pure(2, 2, func(a []kb.Term) (kb.Term, error) { return Bool(a[0] == a[1]), nil }),
	"ISIRI":          pure(1, 1, func(a []kb.Term) (kb.Term, error) { return Bool(a[0].Kind == kb.KindIRI), nil }),
	"ISURI":          pure(1, 1, func(a []kb.Term) (kb.Term, error) { return Bool(a[0].Kind == kb.KindIRI), nil }),
	"ISBLANK":        pure(1, 1, func(a []kb.Term) (kb.Term, error) { return Bool(a[0].Kind == kb.KindBlank), nil }),
	"ISLITERAL":      pure(1, 1, func(a []kb.Term) (kb.Term, error) { return Bool(a[0].Kind == kb.KindLiteral), nil }),
	"ISNUMERIC": pure(1, 1, func(a []kb.Term) (kb.Term, error) {
		_, ok := ParseNumeric(a[0])
		return Bool(ok), nil
	}),
	"REGEX":   {2, 3, fnRegex},
	"SUBSTR":  pure(2, 3, fnSubstr),
	"REPLACE": {3, 4, fnReplace},
}

// CallBuiltin calls the builtin name (upper-case) on evaluated arguments.
func CallBuiltin(env *FuncEnv, name string, args []kb.Term) (kb.Term, error) {
	b, ok := Builtins[name]
	if !ok {
		if fn, ok := Casts[name]; ok {
			if len(args) != 1 {
				return kb.Term{}, typeErr("cast %s takes one argument", name)
			}
			return fn(args[0])
		}
		return kb.Term{}, typeErr("unknown function %s", name)
	}
	if len(args) < b.MinArgs || (b.MaxArgs >= 0 && len(args) > b.MaxArgs) {
		return kb.Term{}, typeErr("%s: wrong number of arguments (%d)", name, len(args))
	}
	return b.Fn(env, args)
}

func fnStr(a []kb.Term) (kb.Term, error) {
	switch a[0].Kind {
	case kb.KindIRI, kb.KindLiteral:
		return kb.String(a[0].Value), nil
	}
	return kb.Term{}, typeErr("STR of %s", a[0])
}

func fnLang(a []kb.Term) (kb.Term, error) {
	if a[0].Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("LANG of %s", a[0])
	}
	return kb.String(a[0].Lang), nil
}

func fnLangMatches(a []kb.Term) (kb.Term, error) {
	if !isStringLit(a[0]) || !isStringLit(a[1]) {
		return kb.Term{}, typeErr("LANGMATCHES needs simple literals")
	}
	tag, rng := strings.ToLower(a[0].Value), strings.ToLower(a[1].Value)
	if rng == "*" {
		return Bool(tag != ""), nil
	}
	return Bool(tag == rng || strings.HasPrefix(tag, rng+"-")), nil
}

func fnDatatype(a []kb.Term) (kb.Term, error) {
	if a[0].Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("DATATYPE of %s", a[0])
	}
	return kb.IRI(a[0].Datatype), nil
}

func fnIRI(env *FuncEnv, a []kb.Term) (kb.Term, error) {
	switch {
	case a[0].Kind == kb.KindIRI:
		return a[0], nil
	case isStringLit(a[0]):
		return kb.IRI(ResolveIRI(env.Base, a[0].Value)), nil
	}
	return kb.Term{}, typeErr("IRI of %s", a[0])
}

// ResolveIRI resolves ref against base (RFC 3986); with no base or an
// unparsable one it returns ref unchanged.
func ResolveIRI(base, ref string) string {
	if base == "" {
		return ref
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

func fnBNode(env *FuncEnv, a []kb.Term) (kb.Term, error) {
	if len(a) == 0 {
		return env.FreshBlank(), nil
	}
	if !isStringLit(a[0]) {
		return kb.Term{}, typeErr("BNODE needs a simple literal")
	}
	if env.bnodes == nil {
		env.bnodes = map[string]kb.Term{}
	}
	if b, ok := env.bnodes[a[0].Value]; ok {
		return b, nil
	}
	b := env.FreshBlank()
	env.bnodes[a[0].Value] = b
	return b, nil
}

func numericArg(t kb.Term) (Numeric, error) {
	n, ok := ParseNumeric(t)
	if !ok {
		return Numeric{}, typeErr("not numeric: %s", t)
	}
	return n, nil
}

func numericUnary(t kb.Term, ff func(float64) float64, rf func(*big.Rat) *big.Rat) (kb.Term, error) {
	n, err := numericArg(t)
	if err != nil {
		return kb.Term{}, err
	}
	if n.Kind >= NumFloat {
		n.F = ff(n.F)
	} else {
		n.R = rf(n.R)
	}
	out := NumericTerm(n)
	// Keep derived integer types (e.g. xsd:int) as written.
	if n.Kind == NumInteger {
		out.Datatype = t.Datatype
	}
	return out, nil
}

func ratFloor(r *big.Rat) *big.Rat {
	q := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for positive denominators
	return new(big.Rat).SetInt(q)
}

func fnAbs(a []kb.Term) (kb.Term, error) {
	return numericUnary(a[0], math.Abs, func(r *big.Rat) *big.Rat { return new(big.Rat).Abs(r) })
}

func fnCeil(a []kb.Term) (kb.Term, error) {
	return numericUnary(a[0], math.Ceil, func(r *big.Rat) *big.Rat {
		f := ratFloor(r)
		if f.Cmp(r) != 0 {
			f.Add(f, big.NewRat(1, 1))
		}
		return f
	})
}

func fnFloor(a []kb.Term) (kb.Term, error) {
	return numericUnary(a[0], math.Floor, ratFloor)
}

func fnRound(a []kb.Term) (kb.Term, error) {
	return numericUnary(a[0], func(f float64) float64 {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return f
		}
		return math.Floor(f + 0.5)
	}, func(r *big.Rat) *big.Rat {
		return ratFloor(new(big.Rat).Add(r, big.NewRat(1, 2)))
	})
}

// stringArg accepts simple literals, xsd:string and language-tagged strings.
func stringArg(t kb.Term) (kb.Term, error) {
	if t.Kind == kb.KindLiteral && (t.Datatype == XSDString || t.Datatype == RDFLangString) {
		return t, nil
	}
	return kb.Term{}, typeErr("not a string literal: %s", t)
}

// compatible checks argument compatibility (§17.4.3.1.1).
func argCompatible(a, b kb.Term) bool {
	if isStringLit(b) {
		return true
	}
	return a.Datatype == RDFLangString && b.Datatype == RDFLangString && a.Lang == b.Lang
}

// sameKind returns a string literal of value s with a's language tag.
func sameKind(a kb.Term, s string) kb.Term {
	if a.Datatype == RDFLangString {
		return kb.LangLiteral(s, a.Lang)
	}
	return kb.String(s)
}

func mapString(t kb.Term, f func(string) string) (kb.Term, error) {
	s, err := stringArg(t)
	if err != nil {
		return kb.Term{}, err
	}
	return sameKind(s, f(s.Value)), nil
}

func fnConcat(a []kb.Term) (kb.Term, error) {
	var b strings.Builder
	lang, sameLang := "", true
	for i, t := range a {
		s, err := stringArg(t)
		if err != nil {
			return kb.Term{}, err
		}
		if i == 0 {
			lang = s.Lang
		}
		if s.Lang != lang || s.Datatype != RDFLangString {
			sameLang = false
		}
		b.WriteString(s.Value)
	}
	if len(a) > 0 && sameLang && lang != "" {
		return kb.LangLiteral(b.String(), lang), nil
	}
	return kb.String(b.String()), nil
}

func fnStrlen(a []kb.Term) (kb.Term, error) {
	s, err := stringArg(a[0])
	if err != nil {
		return kb.Term{}, err
	}
	return Integer(int64(utf8.RuneCountInString(s.Value))), nil
}

func fnEncodeForURI(a []kb.Term) (kb.Term, error) {
	s, err := stringArg(a[0])
	if err != nil {
		return kb.Term{}, err
	}
	var b strings.Builder
	for _, c := range []byte(s.Value) {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return kb.String(b.String()), nil
}

func twoStrings(a []kb.Term) (kb.Term, kb.Term, error) {
	x, err := stringArg(a[0])
	if err != nil {
		return x, x, err
	}
	y, err := stringArg(a[1])
	if err != nil {
		return x, y, err
	}
	if !argCompatible(x, y) {
		return x, y, typeErr("incompatible string arguments %s, %s", x, y)
	}
	return x, y, nil
}

func strTest(a []kb.Term, f func(string, string) bool) (kb.Term, error) {
	x, y, err := twoStrings(a)
	if err != nil {
		return kb.Term{}, err
	}
	return Bool(f(x.Value, y.Value)), nil
}

func fnStrBefore(a []kb.Term) (kb.Term, error) {
	x, y, err := twoStrings(a)
	if err != nil {
		return kb.Term{}, err
	}
	i := strings.Index(x.Value, y.Value)
	if i < 0 {
		return kb.String(""), nil
	}
	if y.Value == "" {
		return sameKind(x, ""), nil
	}
	return sameKind(x, x.Value[:i]), nil
}

func fnStrAfter(a []kb.Term) (kb.Term, error) {
	x, y, err := twoStrings(a)
	if err != nil {
		return kb.Term{}, err
	}
	i := strings.Index(x.Value, y.Value)
	if i < 0 {
		return kb.String(""), nil
	}
	return sameKind(x, x.Value[i+len(y.Value):]), nil
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func hashString(t kb.Term, h hash.Hash) (kb.Term, error) {
	if !isStringLit(t) {
		return kb.Term{}, typeErr("hash of %s", t)
	}
	h.Write([]byte(t.Value))
	return kb.String(hex.EncodeToString(h.Sum(nil))), nil
}

func fnStrLang(a []kb.Term) (kb.Term, error) {
	if !isStringLit(a[0]) || !isStringLit(a[1]) || a[1].Value == "" {
		return kb.Term{}, typeErr("STRLANG(%s, %s)", a[0], a[1])
	}
	return kb.LangLiteral(a[0].Value, a[1].Value), nil
}

func fnStrDT(a []kb.Term) (kb.Term, error) {
	if !isStringLit(a[0]) || a[1].Kind != kb.KindIRI {
		return kb.Term{}, typeErr("STRDT(%s, %s)", a[0], a[1])
	}
	return kb.Literal(a[0].Value, a[1].Value), nil
}

// compileRegex translates XPath flags and compiles, with a cache.
func (e *FuncEnv) compileRegex(pattern, flags string) (*regexp.Regexp, error) {
	key := flags + "\x00" + pattern
	if re, ok := e.regexps[key]; ok {
		return re, nil
	}
	goFlags := ""
	for _, f := range flags {
		switch f {
		case 'i', 's', 'm':
			goFlags += string(f)
		case 'x':
			pattern = strings.Map(func(r rune) rune {
				if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
					return -1
				}
				return r
			}, pattern)
		case 'q':
			pattern = regexp.QuoteMeta(pattern)
		default:
			return nil, typeErr("invalid regex flag %q", f)
		}
	}
	if goFlags != "" {
		pattern = "(?" + goFlags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, typeErr("invalid regex %q: %v", pattern, err)
	}
	e.regexps[key] = re
	return re, nil
}

func fnRegex(env *FuncEnv, a []kb.Term) (kb.Term, error) {
	text, err := stringArg(a[0])
	if err != nil {
		return kb.Term{}, err
	}
	if !isStringLit(a[1]) {
		return kb.Term{}, typeErr("regex pattern must be a simple literal")
	}
	flags := ""
	if len(a) == 3 {
		if !isStringLit(a[2]) {
			return kb.Term{}, typeErr("regex flags must be a simple literal")
		}
		flags = a[2].Value
	}
	re, err := env.compileRegex(a[1].Value, flags)
	if err != nil {
		return kb.Term{}, err
	}
	return Bool(re.MatchString(text.Value)), nil
}

var xpathReplacement = regexp.MustCompile(`\\\\|\\\$|\$(\d)`)

func fnReplace(env *FuncEnv, a []kb.Term) (kb.Term, error) {
	text, err := stringArg(a[0])
	if err != nil {
		return kb.Term{}, err
	}
	if !isStringLit(a[1]) || !isStringLit(a[2]) {
		return kb.Term{}, typeErr("REPLACE pattern and replacement must be simple literals")
	}
	flags := ""
	if len(a) == 4 {
		if !isStringLit(a[3]) {
			return kb.Term{}, typeErr("REPLACE flags must be a simple literal")
		}
		flags = a[3].Value
	}
	re, err := env.compileRegex(a[1].Value, flags)
	if err != nil {
		return kb.Term{}, err
	}
	if re.MatchString("") {
		return kb.Term{}, typeErr("REPLACE pattern matches the empty string")
	}
	repl := a[2].Value
	if strings.ContainsRune(flags, 'q') {
		repl = strings.ReplaceAll(repl, "$", "$$")
	} else {
		repl = xpathReplacement.ReplaceAllStringFunc(repl, func(m string) string {
			switch m {
			case `\\`:
				return `\`
			case `\$`:
				return "$$"
			}
			return "${" + m[1:] + "}"
		})
	}
	return sameKind(text, re.ReplaceAllString(text.Value, repl)), nil
}

func fnSubstr(a []kb.Term) (kb.Term, error) {
	s, err := stringArg(a[0])
	if err != nil {
		return kb.Term{}, err
	}
	start, err := numericArg(a[1])
	if err != nil {
		return kb.Term{}, err
	}
	runes := []rune(s.Value)
	// XPath: characters at positions p with round(start) <= p < round(start)+round(len).
	st := roundHalfUp(start.Float64())
	end := math.Inf(1)
	if len(a) == 3 {
		l, err := numericArg(a[2])
		if err != nil {
			return kb.Term{}, err
		}
		end = st + roundHalfUp(l.Float64())
	}
	if math.IsNaN(st) || math.IsNaN(end) {
		return sameKind(s, ""), nil
	}
	var b strings.Builder
	for i, r := range runes {
		p := float64(i + 1)
		if p >= st && p < end {
			b.WriteRune(r)
		}
	}
	return sameKind(s, b.String()), nil
}

func roundHalfUp(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	return math.Floor(f + 0.5)
}
