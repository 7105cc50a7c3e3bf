package kb

import (
	"strings"

	"github.com/perfkb/perfkb/ontology"
)

// The IRIs of perfkb's own graphs and rule-internal namespace.
const (
	// DefaultGraphIRI names the graph of triples loaded without one.
	DefaultGraphIRI = "urn:x-arq:DefaultGraph"
	// InferredGraphIRI names the graph the reasoner writes derived triples to.
	InferredGraphIRI = "urn:x-perfkb:inferred"
	// OntologyGraphIRI names the graph that holds PERFONTO in a store.
	OntologyGraphIRI = "urn:x-perfkb:ontology"
	// DerivationsGraphIRI names the graph where the reasoner records, for
	// every triple it derives, the rule and premises that produced it.
	DerivationsGraphIRI = "urn:x-perfkb:derivations"
	// RulesInternalGraphIRI names the graph of the helper triples rules
	// derive for their own use (predicates in RulesInternalNamespace).
	RulesInternalGraphIRI = "urn:x-perfkb:rules-internal"
	// RulesInternalNamespace is the namespace of rule-internal helper
	// predicates.
	RulesInternalNamespace = "urn:x-perfkb:rules#"
)

// TermKind says which sort of RDF term a Term is.
type TermKind uint8

// The RDF term kinds. The zero value is not a valid term.
const (
	KindIRI TermKind = iota + 1
	KindBlank
	KindLiteral
	// KindTriple is an RDF 1.2 triple term, <<( s p o )>>.
	KindTriple
)

func (k TermKind) String() string {
	switch k {
	case KindIRI:
		return "IRI"
	case KindBlank:
		return "blank node"
	case KindLiteral:
		return "literal"
	case KindTriple:
		return "triple term"
	}
	return "invalid term"
}

// Term is an RDF term. It is a comparable value, so it can key a map.
//
// For literals, Datatype is always set: a simple literal has xsd:string and a
// language-tagged literal has rdf:langString (RDF 1.1). Use the constructors,
// which normalise this.
//
// Language tags are lower case, everywhere. RDF 1.1 Concepts (§3.3) puts
// language tags' value space in lower case and lets their lexical form be
// converted to it, BCP 47 makes tags case-insensitive, and SPARQL's
// langMatches compares them so; converting once, where a term is made,
// lets Go's == and the store's dictionary be RDF term equality ("chat"@FR
// and "chat"@fr are one term). So LangLiteral lower-cases, and so does every
// decoder built on it: each RDF syntax in kb/rdfio, rdfio.ParseTerm, and the
// SPARQL results readers for JSON, XML and TSV. What perfkb writes (RDF,
// SPARQL results, LANG()) is therefore the lower-case tag.
//
// RDF 1.2 adds two things, kept inside these four fields so that a Term
// stays four words and comparable:
//   - A literal with a base direction (rdf:dirLangString) carries it in
//     Lang after "--", as N-Triples writes it: "en--ltr". A language tag
//     never contains "--" (BCP 47 subtags are separated by one '-'), so
//     Language and Direction split it back.
//   - A triple term (KindTriple) holds its subject, predicate and object in
//     Value, in N-Triples syntax as AppendTerm writes them, separated by
//     one space: the canonical form, so that equal triple terms are equal
//     Terms. TripleTerm makes one, Triple takes it apart.
type Term struct {
	Kind     TermKind
	Value    string // the IRI, the blank node label, the literal's lexical form, or a triple term's terms
	Datatype string // literals only
	Lang     string // language-tagged literals only; "tag--dir" with a base direction
}

// IRI returns an IRI term.
func IRI(iri string) Term { return Term{Kind: KindIRI, Value: iri} }

// Blank returns a blank node with the given label.
func Blank(label string) Term { return Term{Kind: KindBlank, Value: label} }

// Literal returns a literal with the given lexical form and datatype; an
// empty datatype means xsd:string.
func Literal(lexical, datatype string) Term {
	if datatype == "" {
		datatype = ontology.XSDString
	}
	return Term{Kind: KindLiteral, Value: lexical, Datatype: datatype}
}

// String returns a plain xsd:string literal.
func String(s string) Term { return Term{Kind: KindLiteral, Value: s, Datatype: ontology.XSDString} }

// LangLiteral returns a language-tagged string.
func LangLiteral(s, lang string) Term {
	return Term{Kind: KindLiteral, Value: s, Datatype: ontology.RDFLangString, Lang: strings.ToLower(lang)}
}

// DirLangLiteral returns a language-tagged string with a base direction
// (RDF 1.2), dir being "ltr" or "rtl".
func DirLangLiteral(s, lang, dir string) Term {
	return Term{Kind: KindLiteral, Value: s, Datatype: ontology.RDFDirLangString, Lang: strings.ToLower(lang) + "--" + strings.ToLower(dir)}
}

// Language returns a literal's language tag without its base direction.
func (t Term) Language() string {
	if i := strings.Index(t.Lang, "--"); i >= 0 {
		return t.Lang[:i]
	}
	return t.Lang
}

// Direction returns a literal's base direction ("ltr", "rtl"), or "".
func (t Term) Direction() string {
	if i := strings.Index(t.Lang, "--"); i >= 0 {
		return t.Lang[i+2:]
	}
	return ""
}

// TripleTerm returns the RDF 1.2 triple term of s, p and o.
func TripleTerm(s, p, o Term) Term {
	b := make(Bytes, 0, len(s.Value)+len(p.Value)+len(o.Value)+16)
	b = AppendTermBytes(b, s)
	b = append(b, ' ')
	b = AppendTermBytes(b, p)
	b = append(b, ' ')
	b = AppendTermBytes(b, o)
	return Term{Kind: KindTriple, Value: string(b)}
}

// IsTriple reports whether t is a triple term.
func (t Term) IsTriple() bool { return t.Kind == KindTriple }

// Triple returns the subject, predicate and object of a triple term; ok
// is false for any other term (or a Value not in canonical form).
func (t Term) Triple() (tr Triple, ok bool) {
	if t.Kind != KindTriple {
		return Triple{}, false
	}
	d := canonDecoder{s: t.Value}
	var err error
	if tr.S, err = d.term(); err == nil && d.space() {
		if tr.P, err = d.term(); err == nil && d.space() {
			tr.O, err = d.term()
		}
	}
	if err != nil || d.i != len(d.s) || tr.O.IsZero() {
		return Triple{}, false
	}
	return tr, true
}

// DefaultGraph is the graph of triples loaded without one.
var DefaultGraph = IRI(DefaultGraphIRI)

// InferredGraph is the graph of triples the reasoner derives.
var InferredGraph = IRI(InferredGraphIRI)

// OntologyGraph is the graph that holds PERFONTO.
var OntologyGraph = IRI(OntologyGraphIRI)

// HiddenGraphs are the graphs of perfkb's own bookkeeping (derivation
// records, rule-internal helper triples). Queries see them only when they
// name them (FROM, GRAPH <…>): the union default graph leaves them out,
// so a plain query over a region summary never returns derivation records
// or helper triples.
var HiddenGraphs = []Term{IRI(DerivationsGraphIRI), IRI(RulesInternalGraphIRI)}

// IsZero reports whether t is the zero Term (no term).
func (t Term) IsZero() bool { return t.Kind == 0 }

// IsIRI, IsBlank and IsLiteral report the term's kind.
func (t Term) IsIRI() bool     { return t.Kind == KindIRI }
func (t Term) IsBlank() bool   { return t.Kind == KindBlank }
func (t Term) IsLiteral() bool { return t.Kind == KindLiteral }

// String renders the term in N-Triples syntax.
func (t Term) String() string {
	var b strings.Builder
	t.AppendNTriples(&b)
	return b.String()
}

// AppendNTriples writes the term in N-Triples syntax, with the one
// N-Triples term encoder (AppendTerm).
func (t Term) AppendNTriples(b *strings.Builder) { AppendTerm(b, t) }

// Triple is a triple of terms.
type Triple struct{ S, P, O Term }

// TermQuad is a quad of terms; G is the graph, DefaultGraph or the zero
// Term for triples of the default graph. It is what the rdfio decoders
// yield (G zero for the default graph) and its encoders write.
type TermQuad struct{ S, P, O, G Term }

// String renders the quad as an N-Quads line without the final newline.
func (q TermQuad) String() string {
	var b strings.Builder
	q.S.AppendNTriples(&b)
	b.WriteByte(' ')
	q.P.AppendNTriples(&b)
	b.WriteByte(' ')
	q.O.AppendNTriples(&b)
	if !q.G.IsZero() && q.G != DefaultGraph {
		b.WriteByte(' ')
		q.G.AppendNTriples(&b)
	}
	b.WriteString(" .")
	return b.String()
}
