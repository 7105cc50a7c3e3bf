package eval

import (
	"strings"

	"github.com/perfkb/perfkb/ontology"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// The SPARQL 1.2 built-in calls (SPARQL 1.2 Query Language §17.4) join the
// implementation table here, beside their declarations in
// query/function/builtin12.go.
func init() {
	builtinImpls[algebra.BuiltinTriple] = pure(fnTriple)
	builtinImpls[algebra.BuiltinSubject] = pure(func(a []kb.Term) (kb.Term, error) { return triplePart(a[0], 0) })
	builtinImpls[algebra.BuiltinPredicate] = pure(func(a []kb.Term) (kb.Term, error) { return triplePart(a[0], 1) })
	builtinImpls[algebra.BuiltinObject] = pure(func(a []kb.Term) (kb.Term, error) { return triplePart(a[0], 2) })
	builtinImpls[algebra.BuiltinIsTriple] = pure(func(a []kb.Term) (kb.Term, error) { return boolTerm(a[0].IsTriple()), nil })
	builtinImpls[algebra.BuiltinLangDir] = pure(fnLangDir)
	builtinImpls[algebra.BuiltinHasLang] = pure(fnHasLang)
	builtinImpls[algebra.BuiltinHasLangDir] = pure(fnHasLangDir)
	builtinImpls[algebra.BuiltinStrLangDir] = pure(fnStrLangDir)
}

// fnTriple makes the triple term of its arguments, which must form an RDF
// 1.2 triple: an IRI or blank node subject, an IRI predicate.
func fnTriple(a []kb.Term) (kb.Term, error) {
	if !(a[0].IsIRI() || a[0].IsBlank()) || !a[1].IsIRI() || a[2].IsZero() {
		return kb.Term{}, typeErr("TRIPLE(%s, %s, %s) is not an RDF triple", a[0], a[1], a[2])
	}
	return kb.TripleTerm(a[0], a[1], a[2]), nil
}

// triplePart returns the subject (0), predicate (1) or object (2) of a
// triple term.
func triplePart(t kb.Term, i int) (kb.Term, error) {
	tr, ok := t.Triple()
	if !ok {
		return kb.Term{}, typeErr("%s is not a triple term", t)
	}
	return [...]kb.Term{tr.S, tr.P, tr.O}[i], nil
}

func fnLangDir(a []kb.Term) (kb.Term, error) {
	if a[0].Kind != kb.KindLiteral {
		return kb.Term{}, typeErr("LANGDIR of %s", a[0])
	}
	return kb.String(a[0].Direction()), nil
}

// fnHasLang is true for a literal with a language tag; false for any
// other term, IRIs included.
func fnHasLang(a []kb.Term) (kb.Term, error) {
	return boolTerm(a[0].Kind == kb.KindLiteral && a[0].Lang != ""), nil
}

// fnHasLangDir is true for a literal with a base direction; false for
// any other term.
func fnHasLangDir(a []kb.Term) (kb.Term, error) {
	return boolTerm(a[0].Kind == kb.KindLiteral && a[0].Direction() != ""), nil
}

// fnStrLangDir makes a literal with a language tag and a base direction
// from a simple literal, a language tag and "ltr" or "rtl".
func fnStrLangDir(a []kb.Term) (kb.Term, error) {
	if !isStringLit(a[0]) || !isStringLit(a[1]) || a[1].Value == "" || !isStringLit(a[2]) || (a[2].Value != "ltr" && a[2].Value != "rtl") {
		return kb.Term{}, typeErr("STRLANGDIR(%s, %s, %s)", a[0], a[1], a[2])
	}
	return kb.DirLangLiteral(a[0].Value, a[1].Value, a[2].Value), nil
}

// orderTriples orders two triple terms for ORDER BY (SPARQL 1.2 §15.1):
// by subject, then predicate, then object.
func orderTriples(a, b kb.Term) int {
	at, aok := a.Triple()
	bt, bok := b.Triple()
	if !aok || !bok {
		return strings.Compare(a.Value, b.Value)
	}
	if c := orderCompare(at.S, bt.S); c != 0 {
		return c
	}
	if c := orderCompare(at.P, bt.P); c != 0 {
		return c
	}
	return orderCompare(at.O, bt.O)
}

// equalTriples is the = operator on two triple terms (SPARQL 1.2 §17.4.1.7
// RDFterm-equal): equal when their subjects, predicates and objects are,
// an error when one pair cannot be compared and no pair differs.
func equalTriples(a, b kb.Term) (bool, error) {
	at, aok := a.Triple()
	bt, bok := b.Triple()
	if !aok || !bok {
		return a == b, nil
	}
	var firstErr error
	for _, pair := range [...][2]kb.Term{{at.S, bt.S}, {at.P, bt.P}, {at.O, bt.O}} {
		eq, err := equal(pair[0], pair[1])
		switch {
		case err != nil && firstErr == nil:
			firstErr = err
		case err == nil && !eq:
			return false, nil
		}
	}
	return firstErr == nil, firstErr
}

// isLangString reports whether t is a language-tagged string, with
// (rdf:dirLangString, RDF 1.2) or without a base direction.
func isLangString(t kb.Term) bool {
	return t.Kind == kb.KindLiteral && (t.Datatype == ontology.RDFLangString || t.Datatype == ontology.RDFDirLangString)
}
