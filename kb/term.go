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
)

func (k TermKind) String() string {
	switch k {
	case KindIRI:
		return "IRI"
	case KindBlank:
		return "blank node"
	case KindLiteral:
		return "literal"
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
type Term struct {
	Kind     TermKind
	Value    string // the IRI, the blank node label, or the literal's lexical form
	Datatype string // literals only
	Lang     string // language-tagged literals only
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
