package algebra

// The SPARQL 1.2 built-in calls (SPARQL 1.2 Query Language §17.4): triple
// terms and literals with a base direction.
const (
	BuiltinTriple     Builtin = "TRIPLE"     // the triple term of a subject, predicate and object
	BuiltinSubject    Builtin = "SUBJECT"    // the subject of a triple term
	BuiltinPredicate  Builtin = "PREDICATE"  // the predicate of a triple term
	BuiltinObject     Builtin = "OBJECT"     // the object of a triple term
	BuiltinIsTriple   Builtin = "ISTRIPLE"   // whether a term is a triple term
	BuiltinLangDir    Builtin = "LANGDIR"    // the base direction of a literal, "" when it has none
	BuiltinHasLang    Builtin = "HASLANG"    // whether a literal has a language tag
	BuiltinHasLangDir Builtin = "HASLANGDIR" // whether a literal has a base direction
	BuiltinStrLangDir Builtin = "STRLANGDIR" // a literal with a language tag and a base direction
)
