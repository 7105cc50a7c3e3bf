package function

import "github.com/perfkb/perfkb/query/algebra"

// sparql12Defs are the built-in calls SPARQL 1.2 adds (SPARQL 1.2 Query
// Language §17.4): triple terms and base directions.
var sparql12Defs = []Def{
	{Name: string(algebra.BuiltinTriple), Min: 3, Max: 3, Doc: "the triple term of a subject, predicate and object"},
	{Name: string(algebra.BuiltinSubject), Min: 1, Max: 1, Doc: "the subject of a triple term"},
	{Name: string(algebra.BuiltinPredicate), Min: 1, Max: 1, Doc: "the predicate of a triple term"},
	{Name: string(algebra.BuiltinObject), Min: 1, Max: 1, Doc: "the object of a triple term"},
	{Name: string(algebra.BuiltinIsTriple), Min: 1, Max: 1, Doc: "whether a term is a triple term"},
	{Name: string(algebra.BuiltinLangDir), Min: 1, Max: 1, Doc: "the base direction of a literal (ltr or rtl), empty when it has none"},
	{Name: string(algebra.BuiltinHasLang), Min: 1, Max: 1, Doc: "whether a literal has a language tag"},
	{Name: string(algebra.BuiltinHasLangDir), Min: 1, Max: 1, Doc: "whether a literal has a base direction"},
	{Name: string(algebra.BuiltinStrLangDir), Min: 3, Max: 3, Doc: "a literal with a language tag and a base direction"},
}

// The SPARQL 1.2 calls join the built-in table before Builtin first builds
// its registry (a sync.OnceValue, so after every init).
func init() { builtinDefs = append(builtinDefs, sparql12Defs...) }
