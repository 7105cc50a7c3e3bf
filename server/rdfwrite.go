package server

import (
	"bufio"
	"fmt"
	"strings"
	"unicode"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// PerfontoNS is the PERFONTO namespace, used for prefixes in Turtle output
// and the query page.
const PerfontoNS = ontology.Namespace

// wellKnownPrefixes are declared at the top of Turtle output.
var wellKnownPrefixes = []prefix{
	{"perfonto", PerfontoNS},
	{"rdf", ontology.RDFNamespace},
	{"rdfs", ontology.RDFSNamespace},
	{"owl", ontology.OWLNamespace},
	{"xsd", ontology.XSDNamespace},
}

// tripleWriter writes RDF incrementally.
type tripleWriter interface {
	begin() error
	// quad writes one triple; graph is used by quad formats only.
	quad(t kb.Triple, graph kb.Term) error
	end() error
}

// prefix is a Turtle prefix declaration.
type prefix struct{ prefix, ns string }

func newTripleWriter(f Format, w *bufio.Writer, extra ...prefix) tripleWriter {
	switch f {
	case FormatTurtle:
		return &turtleWriter{w: w, prefixes: append(append([]prefix(nil), wellKnownPrefixes...), extra...)}
	case FormatNQuads:
		return &nquadsWriter{w: w}
	case FormatRDFXML:
		return &rdfxmlWriter{w: w}
	case FormatJSONLD:
		return &jsonldWriter{w: w}
	}
	return &ntriplesWriter{w: w}
}

type ntriplesWriter struct {
	w  *bufio.Writer
	sb strings.Builder
}

func (n *ntriplesWriter) begin() error { return nil }
func (n *ntriplesWriter) end() error   { return nil }
func (n *ntriplesWriter) quad(t kb.Triple, _ kb.Term) error {
	n.sb.Reset()
	t.S.AppendNTriples(&n.sb)
	n.sb.WriteByte(' ')
	t.P.AppendNTriples(&n.sb)
	n.sb.WriteByte(' ')
	t.O.AppendNTriples(&n.sb)
	n.sb.WriteString(" .\n")
	_, err := n.w.WriteString(n.sb.String())
	return err
}

type nquadsWriter struct{ w *bufio.Writer }

func (n *nquadsWriter) begin() error { return nil }
func (n *nquadsWriter) end() error   { return nil }
func (n *nquadsWriter) quad(t kb.Triple, g kb.Term) error {
	_, err := n.w.WriteString(kb.TermQuad{S: t.S, P: t.P, O: t.O, G: g}.String() + "\n")
	return err
}

// turtleWriter writes one statement per line, abbreviating IRIs with the
// well-known prefixes and repeating subjects with ';'.
type turtleWriter struct {
	w        *bufio.Writer
	prefixes []prefix
	subject  kb.Term
	open     bool
	sb       strings.Builder
}

func (t *turtleWriter) begin() error {
	for _, p := range t.prefixes {
		fmt.Fprintf(t.w, "@prefix %s: <%s> .\n", p.prefix, p.ns)
	}
	_, err := t.w.WriteString("\n")
	return err
}

func (t *turtleWriter) quad(tr kb.Triple, _ kb.Term) error {
	t.sb.Reset()
	if t.open && tr.S == t.subject {
		t.sb.WriteString(" ;\n    ")
	} else {
		if t.open {
			t.sb.WriteString(" .\n")
		}
		t.term(tr.S)
		t.sb.WriteByte(' ')
	}
	if tr.P.Value == ontology.RDFType {
		t.sb.WriteByte('a')
	} else {
		t.term(tr.P)
	}
	t.sb.WriteByte(' ')
	t.term(tr.O)
	t.subject, t.open = tr.S, true
	_, err := t.w.WriteString(t.sb.String())
	return err
}

func (t *turtleWriter) end() error {
	if t.open {
		_, err := t.w.WriteString(" .\n")
		return err
	}
	return nil
}

func (t *turtleWriter) term(term kb.Term) {
	switch term.Kind {
	case kb.KindIRI:
		if q, ok := t.compact(term.Value); ok {
			t.sb.WriteString(q)
			return
		}
	case kb.KindLiteral:
		if term.Lang == "" && term.Datatype != kb.XSDString {
			if q, ok := t.compact(term.Datatype); ok {
				t.sb.WriteString(kb.String(term.Value).String())
				t.sb.WriteString("^^")
				t.sb.WriteString(q)
				return
			}
		}
	}
	term.AppendNTriples(&t.sb)
}

// compact abbreviates iri with a declared prefix when the local part is a
// safe Turtle local name.
func (t *turtleWriter) compact(iri string) (string, bool) {
	for _, p := range t.prefixes {
		if local, ok := strings.CutPrefix(iri, p.ns); ok && isSimpleLocalName(local) {
			return p.prefix + ":" + local, true
		}
	}
	return "", false
}

func isSimpleLocalName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (unicode.IsDigit(r) || r == '-'):
		default:
			return false
		}
	}
	return true
}

// rdfxmlWriter writes one rdf:Description per triple. RDF/XML needs every
// predicate namespace declared, and some readers (knakk/rdf among them)
// only honour declarations on the root element, so this writer holds the
// triples until end and is the one format that does not stream.
type rdfxmlWriter struct {
	w       *bufio.Writer
	triples []kb.Triple
}

func (r *rdfxmlWriter) begin() error { return nil }

func (r *rdfxmlWriter) quad(t kb.Triple, _ kb.Term) error {
	if _, _, ok := splitIRI(t.P.Value); !ok {
		return fmt.Errorf("RDF/XML cannot write predicate <%s>: it does not end in an XML name", t.P.Value)
	}
	r.triples = append(r.triples, t)
	return nil
}

func (r *rdfxmlWriter) end() error {
	w := r.w
	prefixOf := map[string]string{ontology.RDFNamespace: "rdf"}
	var order []string
	for _, t := range r.triples {
		ns, _, _ := splitIRI(t.P.Value)
		if _, ok := prefixOf[ns]; !ok {
			prefixOf[ns] = "ns" + fmt.Sprint(len(order))
			order = append(order, ns)
		}
	}
	w.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rdf:RDF xmlns:rdf=\"" + ontology.RDFNamespace + "\"")
	for _, ns := range order {
		w.WriteString("\n    xmlns:" + prefixOf[ns] + "=\"")
		xmlEscape(w, ns)
		w.WriteString("\"")
	}
	w.WriteString(">\n")
	for _, t := range r.triples {
		ns, local, _ := splitIRI(t.P.Value)
		qname := prefixOf[ns] + ":" + local
		w.WriteString("  <rdf:Description ")
		if t.S.IsBlank() {
			w.WriteString(`rdf:nodeID="`)
		} else {
			w.WriteString(`rdf:about="`)
		}
		xmlEscape(w, t.S.Value)
		w.WriteString("\">\n    <" + qname)
		switch t.O.Kind {
		case kb.KindIRI:
			w.WriteString(` rdf:resource="`)
			xmlEscape(w, t.O.Value)
			w.WriteString("\"/>\n")
		case kb.KindBlank:
			w.WriteString(` rdf:nodeID="`)
			xmlEscape(w, t.O.Value)
			w.WriteString("\"/>\n")
		default:
			switch {
			case t.O.Lang != "":
				w.WriteString(` xml:lang="`)
				xmlEscape(w, t.O.Lang)
				w.WriteString(`"`)
			case t.O.Datatype != kb.XSDString:
				w.WriteString(` rdf:datatype="`)
				xmlEscape(w, t.O.Datatype)
				w.WriteString(`"`)
			}
			w.WriteString(">")
			xmlEscape(w, t.O.Value)
			w.WriteString("</" + qname + ">\n")
		}
		w.WriteString("  </rdf:Description>\n")
	}
	r.triples = nil
	_, err := w.WriteString("</rdf:RDF>\n")
	return err
}

// splitIRI splits an IRI into a namespace and the longest suffix that is
// an XML NCName.
func splitIRI(iri string) (ns, local string, ok bool) {
	i := len(iri)
	for i > 0 {
		r := rune(iri[i-1])
		if r >= 0x80 || r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			i--
			continue
		}
		break
	}
	// The local name must start with a letter or underscore.
	for i < len(iri) && !(iri[i] == '_' || unicode.IsLetter(rune(iri[i])) || iri[i] >= 0x80) {
		i++
	}
	if i >= len(iri) || i == 0 {
		return "", "", false
	}
	return iri[:i], iri[i:], true
}

// jsonldWriter streams expanded JSON-LD: one node object per triple (a
// node may appear several times, which expanded form allows).
type jsonldWriter struct {
	w     *bufio.Writer
	first bool
	buf   []byte
}

func (j *jsonldWriter) begin() error {
	j.first = true
	_, err := j.w.WriteString("[")
	return err
}

func (j *jsonldWriter) quad(t kb.Triple, _ kb.Term) error {
	b := j.buf[:0]
	if !j.first {
		b = append(b, ',')
	}
	j.first = false
	b = append(b, "\n{\"@id\":"...)
	b = appendJSONString(b, jsonldID(t.S))
	b = append(b, ',')
	if t.P.Value == ontology.RDFType && !t.O.IsLiteral() {
		b = append(b, "\"@type\":["...)
		b = appendJSONString(b, jsonldID(t.O))
		b = append(b, "]}"...)
	} else {
		b = appendJSONString(b, t.P.Value)
		b = append(b, ":[{"...)
		switch t.O.Kind {
		case kb.KindIRI, kb.KindBlank:
			b = append(b, "\"@id\":"...)
			b = appendJSONString(b, jsonldID(t.O))
		default:
			b = append(b, "\"@value\":"...)
			b = appendJSONString(b, t.O.Value)
			switch {
			case t.O.Lang != "":
				b = append(b, ",\"@language\":"...)
				b = appendJSONString(b, t.O.Lang)
			case t.O.Datatype != kb.XSDString:
				b = append(b, ",\"@type\":"...)
				b = appendJSONString(b, t.O.Datatype)
			}
		}
		b = append(b, "}]}"...)
	}
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonldWriter) end() error {
	_, err := j.w.WriteString("\n]\n")
	return err
}

func jsonldID(t kb.Term) string {
	if t.IsBlank() {
		return "_:" + t.Value
	}
	return t.Value
}
