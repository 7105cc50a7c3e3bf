package algebra

import "github.com/perfkb/perfkb/kb"

// PathExpr is a property path expression (SPARQL 1.1 §9, algebra §18.2.2.4).
// It is sealed: the implementations are the Path* types of this package.
//
// The parser translates the simplest paths into triple patterns as §18.2.2.4
// prescribes (a link becomes a triple, ^link a reversed triple, a sequence a
// chain of triples joined by fresh non-distinguished variables); every other
// path ends up in a Path operator.
type PathExpr interface {
	pathExpr()
	// String prints the path in SSE, e.g. (path+ <p>), (seq <p> <q>).
	String() string
}

// PathLink is a single predicate IRI: link(iri).
type PathLink struct {
	IRI kb.Term
}

// PathInverse is ^path: inv(path).
type PathInverse struct {
	Path PathExpr
}

// PathSeq is path1 / path2: seq(path1, path2).
type PathSeq struct {
	Left, Right PathExpr
}

// PathAlt is path1 | path2: alt(path1, path2).
type PathAlt struct {
	Left, Right PathExpr
}

// PathZeroOrMore is path*: ZeroOrMorePath(path).
type PathZeroOrMore struct {
	Path PathExpr
}

// PathOneOrMore is path+: OneOrMorePath(path).
type PathOneOrMore struct {
	Path PathExpr
}

// PathZeroOrOne is path?: ZeroOrOnePath(path).
type PathZeroOrOne struct {
	Path PathExpr
}

// PathNegated is a negated property set !(iri1|…|^iriN): NPS. Forward holds
// the IRIs excluded in the forward direction, Inverse those excluded in the
// reverse direction (written ^iri). Per §18.2.2.4:
//
//	!(a|b)   → NPS({a,b}): forward edges not labelled a or b
//	!(^a|^b) → inv(NPS({a,b})): reverse edges only
//	!(a|^b)  → alt(NPS({a}), inv(NPS({b})))
//	!()      → any forward edge
//
// So the forward direction is matched when Forward is non-empty or both
// lists are empty, the reverse direction when Inverse is non-empty.
type PathNegated struct {
	Forward []kb.Term
	Inverse []kb.Term
}

func (*PathLink) pathExpr()       {}
func (*PathInverse) pathExpr()    {}
func (*PathSeq) pathExpr()        {}
func (*PathAlt) pathExpr()        {}
func (*PathZeroOrMore) pathExpr() {}
func (*PathOneOrMore) pathExpr()  {}
func (*PathZeroOrOne) pathExpr()  {}
func (*PathNegated) pathExpr()    {}
