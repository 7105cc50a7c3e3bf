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
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
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

// impl implements a built-in call over its evaluated arguments; their
// number is within the arity query/function declares. It must not keep
// args (the compiled call reuses the slice for the next row).
type impl func(env *FuncEnv, args []kb.Term) (kb.Term, error)

func pure(fn func(args []kb.Term) (kb.Term, error)) impl {
	return func(_ *FuncEnv, a []kb.Term) (kb.Term, error) { return fn(a) }
}

// builtinImpls implements the built-in calls that function.Builtin
// declares (names and arities are there, stated once). The special forms
// BOUND, IF and COALESCE, which do not evaluate all their arguments first,
// are compiled by compileBuiltin instead. TestImplementationsDeclared fails
// when this table and the declarations disagree.
var builtinImpls = map[algebra.Builtin]impl{
	algebra.BuiltinStr:          pure(fnStr),
	algebra.BuiltinLang:         pure(fnLang),
	algebra.BuiltinLangMatches:  pure(fnLangMatches),
	algebra.BuiltinDatatype:     pure(fnDatatype),
	algebra.BuiltinIRI:          fnIRI,
	algebra.BuiltinBNode:        fnBNode,
	algebra.BuiltinRand:         pure(func([]kb.Term) (kb.Term, error) { return function.Double(mrand.Float64()), nil }),
	algebra.BuiltinAbs:          pure(fnAbs),
	algebra.BuiltinCeil:         pure(fnCeil),
	algebra.BuiltinFloor:        pure(fnFloor),
	algebra.BuiltinRound:        pure(fnRound),
	algebra.BuiltinConcat:       pure(fnConcat),
	algebra.BuiltinStrLen:       pure(fnStrlen),
	algebra.BuiltinUCase:        pure(func(a []kb.Term) (kb.Term, error) { return mapString(a[0], strings.ToUpper) }),
	algebra.BuiltinLCase:        pure(func(a []kb.Term) (kb.Term, error) { return mapString(a[0], strings.ToLower) }),
	algebra.BuiltinEncodeForURI: pure(fnEncodeForURI),
	algebra.BuiltinContains:     pure(func(a []kb.Term) (kb.Term, error) { return strTest(a, strings.Contains) }),
	algebra.BuiltinStrStarts:    pure(func(a []kb.Term) (kb.Term, error) { return strTest(a, strings.HasPrefix) }),
	algebra.BuiltinStrEnds:      pure(func(a []kb.Term) (kb.Term, error) { return strTest(a, strings.HasSuffix) }),
	algebra.BuiltinStrBefore:    pure(fnStrBefore),
	algebra.BuiltinStrAfter:     pure(fnStrAfter),
	algebra.BuiltinYear:         pure(fnYear),
	algebra.BuiltinMonth:        pure(fnMonth),
	algebra.BuiltinDay:          pure(fnDay),
	algebra.BuiltinHours:        pure(fnHours),
	algebra.BuiltinMinutes:      pure(fnMinutes),
	algebra.BuiltinSeconds:      pure(fnSeconds),
	algebra.BuiltinTimezone:     pure(fnTimezone),
	algebra.BuiltinTZ:           pure(fnTZ),
	algebra.BuiltinNow:          func(e *FuncEnv, _ []kb.Term) (kb.Term, error) { return formatNow(e.Now), nil },
	algebra.BuiltinUUID:         pure(func([]kb.Term) (kb.Term, error) { return kb.IRI("urn:uuid:" + newUUID()), nil }),
	algebra.BuiltinStrUUID:      pure(func([]kb.Term) (kb.Term, error) { return kb.String(newUUID()), nil }),
	algebra.BuiltinMD5:          pure(func(a []kb.Term) (kb.Term, error) { return hashString(a[0], md5.New()) }),
	algebra.BuiltinSHA1:         pure(func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha1.New()) }),
	algebra.BuiltinSHA256:       pure(func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha256.New()) }),
	algebra.BuiltinSHA384:       pure(func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha512.New384()) }),
	algebra.BuiltinSHA512:       pure(func(a []kb.Term) (kb.Term, error) { return hashString(a[0], sha512.New()) }),
	algebra.BuiltinStrLang:      pure(fnStrLang),
	algebra.BuiltinStrDT:        pure(fnStrDT),
	algebra.BuiltinSameTerm:     pure(func(a []kb.Term) (kb.Term, error) { return boolTerm(a[0] == a[1]), nil }),
	algebra.BuiltinIsIRI:        pure(func(a []kb.Term) (kb.Term, error) { return boolTerm(a[0].Kind == kb.KindIRI), nil }),
	algebra.BuiltinIsBlank:      pure(func(a []kb.Term) (kb.Term, error) { return boolTerm(a[0].Kind == kb.KindBlank), nil }),
	algebra.BuiltinIsLiteral:    pure(func(a []kb.Term) (kb.Term, error) { return boolTerm(a[0].Kind == kb.KindLiteral), nil }),
	algebra.BuiltinIsNumeric: pure(func(a []kb.Term) (kb.Term, error) {
		_, ok := function.ParseNumeric(a[0])
		return boolTerm(ok), nil
	}),
	algebra.BuiltinRegex:   fnRegex,
	algebra.BuiltinSubstr:  pure(fnSubstr),
	algebra.BuiltinReplace: fnReplace,
}

// CallBuiltin evaluates the SPARQL built-in function name on evaluated
// arguments, with the arity checks of function.Builtin: for tools that
// need SPARQL's semantics of one function outside a query (SHACL's
// sh:pattern is REGEX).
func CallBuiltin(env *FuncEnv, name string, args []kb.Term) (kb.Term, error) {
	return callBuiltin(env, name, args)
}

// callBuiltin calls the built-in named by its keyword (any case, aliases
// included) or the cast named by its IRI on evaluated arguments, checking
// the arity function.Builtin declares. It is for tests and tools; queries
// resolve their calls once, when compiled.
func callBuiltin(env *FuncEnv, name string, args []kb.Term) (kb.Term, error) {
	funcs := function.Builtin()
	def, ok := funcs.Keyword(name)
	if !ok {
		def, ok = funcs.IRI(name)
	}
	if !ok {
		return kb.Term{}, typeErr("unknown function %s", name)
	}
	if err := def.CheckArity(len(args)); err != nil {
		return kb.Term{}, typeErr("%v", err)
	}
	fn, err := implOf(def)
	if err != nil {
		return kb.Term{}, err
	}
	return fn(env, args)
}

// implOf returns the implementation of a declared function that is not a
// special form: the evaluator's for built-ins and casts, Def.Call for
// extension functions.
func implOf(def *function.Def) (impl, error) {
	if def.Call != nil {
		call := def.Call
		return func(_ *FuncEnv, a []kb.Term) (kb.Term, error) { return call(a) }, nil
	}
	if def.IsIRI() {
		if c, ok := castImpls[def.Name]; ok {
			return func(_ *FuncEnv, a []kb.Term) (kb.Term, error) { return c(a[0]) }, nil
		}
	} else if fn, ok := builtinImpls[algebra.Builtin(def.Name)]; ok {
		return fn, nil
	}
	return nil, fmt.Errorf("eval: function %s is declared but has no implementation", def.Name)
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
	return kb.String(a[0].Language()), nil
}

func fnLangMatches(a []kb.Term) (kb.Term, error) {
	if !isStringLit(a[0]) || !isStringLit(a[1]) {
		return kb.Term{}, typeErr("LANGMATCHES needs simple literals")
	}
	tag, rng := strings.ToLower(a[0].Value), strings.ToLower(a[1].Value)
	if rng == "*" {
		return boolTerm(tag != ""), nil
	}
	return boolTerm(tag == rng || strings.HasPrefix(tag, rng+"-")), nil
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
		iri := kb.ResolveRelative(env.Base, a[0].Value)
		if err := kb.CheckIRI(iri); err != nil {
			return kb.Term{}, typeErr("IRI(%s): %v", a[0], err)
		}
		return kb.IRI(iri), nil
	}
	return kb.Term{}, typeErr("IRI of %s", a[0])
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

func numericArg(t kb.Term) (function.Numeric, error) {
	n, ok := function.ParseNumeric(t)
	if !ok {
		return function.Numeric{}, typeErr("not numeric: %s", t)
	}
	return n, nil
}

func numericUnary(t kb.Term, ff func(float64) float64, rf func(*big.Rat) *big.Rat) (kb.Term, error) {
	n, err := numericArg(t)
	if err != nil {
		return kb.Term{}, err
	}
	if n.Kind >= function.NumFloat {
		n.F = ff(n.F)
	} else {
		n.R = rf(n.R)
	}
	out := n.Term()
	// Keep derived integer types (e.g. xsd:int) as written.
	if n.Kind == function.NumInteger {
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

// stringArg accepts simple literals, xsd:string and language-tagged strings
// (with or without a base direction).
func stringArg(t kb.Term) (kb.Term, error) {
	if t.Kind == kb.KindLiteral && (t.Datatype == ontology.XSDString || isLangString(t)) {
		return t, nil
	}
	return kb.Term{}, typeErr("not a string literal: %s", t)
}

// compatible checks argument compatibility (§17.4.3.1.1).
func argCompatible(a, b kb.Term) bool {
	if isStringLit(b) {
		return true
	}
	return isLangString(a) && a.Datatype == b.Datatype && a.Lang == b.Lang
}

// sameKind returns a string literal of value s with a's language tag (and
// base direction).
func sameKind(a kb.Term, s string) kb.Term {
	if isLangString(a) {
		return kb.Term{Kind: kb.KindLiteral, Value: s, Datatype: a.Datatype, Lang: a.Lang}
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
		if s.Lang != lang || !isLangString(s) || s.Datatype != a[0].Datatype {
			sameLang = false
		}
		b.WriteString(s.Value)
	}
	if len(a) > 0 && sameLang && lang != "" {
		return sameKind(a[0], b.String()), nil
	}
	return kb.String(b.String()), nil
}

func fnStrlen(a []kb.Term) (kb.Term, error) {
	s, err := stringArg(a[0])
	if err != nil {
		return kb.Term{}, err
	}
	return integerTerm(int64(utf8.RuneCountInString(s.Value))), nil
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
	return boolTerm(f(x.Value, y.Value)), nil
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
	re, err := xpathRegexp(pattern, flags)
	if err != nil {
		return nil, err
	}
	e.regexps[key] = re
	return re, nil
}

// xpathRegexp compiles an XPath regular expression with XPath flags
// (§17.4.3.14; q as in XPath 3.1 and the W3C suite's
// regex-no-metacharacters tests) as a Go one; any other flag is an error.
func xpathRegexp(pattern, flags string) (*regexp.Regexp, error) {
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
	return re, nil
}

// compileRegex compiles REGEX(text, pattern[, flags]) and REPLACE(text,
// pattern, replacement[, flags]) whose pattern and flags are constant
// simple literals, as they almost always are, to a closure holding the
// compiled expression: no cache lookup (and no key built) per row. ok is
// false for other calls, which go through fnRegex and fnReplace.
func (ex *executor) compileRegex(name algebra.Builtin, args []algebra.Expr, cargs []cexpr) (c cexpr, ok bool, err error) {
	constString := func(e algebra.Expr) (string, bool) {
		k, isConst := e.(*algebra.ConstExpr)
		if !isConst || !isStringLit(k.Term) {
			return "", false
		}
		return k.Term.Value, true
	}
	var pattern, flags string
	switch name {
	case algebra.BuiltinRegex:
		pattern, ok = constString(args[1])
		if ok && len(args) == 3 {
			flags, ok = constString(args[2])
		}
	case algebra.BuiltinReplace:
		pattern, ok = constString(args[1])
		if ok && len(args) == 4 {
			flags, ok = constString(args[3])
		}
	}
	if !ok {
		return nil, false, nil
	}
	text := cargs[0]
	re, reErr := xpathRegexp(pattern, flags)
	if name == algebra.BuiltinRegex {
		return func(ex *executor, r row) (kb.Term, error) {
			t, err := text(ex, r)
			if err != nil {
				return t, err
			}
			s, err := stringArg(t)
			if err != nil {
				return kb.Term{}, err
			}
			if reErr != nil {
				return kb.Term{}, reErr
			}
			return boolTerm(re.MatchString(s.Value)), nil
		}, true, nil
	}
	if reErr == nil && re.MatchString("") {
		reErr = typeErr("REPLACE pattern matches the empty string")
	}
	replacement := cargs[2]
	constRepl, replIsConst := constString(args[2])
	goRepl := goReplacement(constRepl, flags) // translated once when constant
	return func(ex *executor, r row) (kb.Term, error) {
		t, err := text(ex, r)
		if err != nil {
			return t, err
		}
		repl, err := replacement(ex, r)
		if err != nil {
			return repl, err
		}
		s, err := stringArg(t)
		if err != nil {
			return kb.Term{}, err
		}
		if !isStringLit(repl) {
			return kb.Term{}, typeErr("REPLACE pattern and replacement must be simple literals")
		}
		if reErr != nil {
			return kb.Term{}, reErr
		}
		gr := goRepl
		if !replIsConst {
			gr = goReplacement(repl.Value, flags)
		}
		return sameKind(s, re.ReplaceAllString(s.Value, gr)), nil
	}, true, nil
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
	return boolTerm(re.MatchString(text.Value)), nil
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
	return sameKind(text, re.ReplaceAllString(text.Value, goReplacement(a[2].Value, flags))), nil
}

// goReplacement translates an XPath replacement string (\\, \$ and $N) to
// Go's regexp.Expand syntax.
func goReplacement(repl, flags string) string {
	if strings.ContainsRune(flags, 'q') {
		return strings.ReplaceAll(repl, "$", "$$")
	}
	return xpathReplacement.ReplaceAllStringFunc(repl, func(m string) string {
		switch m {
		case `\\`:
			return `\`
		case `\$`:
			return "$$"
		}
		return "${" + m[1:] + "}"
	})
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
