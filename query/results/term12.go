package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// maxTripleDepth bounds the nesting of triple terms a result file may
// hold, so a hostile document cannot exhaust the stack.
const maxTripleDepth = 64

// jsonTerm is one RDF term of SPARQL Query Results JSON. A triple term
// (SPARQL 1.2) has type "triple" and an object value with "subject",
// "predicate" and "object"; a literal with a base direction has "its:dir".
type jsonTerm struct {
	Type     string          `json:"type"`
	Value    json.RawMessage `json:"value"`
	Lang     string          `json:"xml:lang"`
	Dir      string          `json:"its:dir"`
	Datatype string          `json:"datatype"`
}

func (v *jsonTerm) term(depth int) (kb.Term, error) {
	if v.Type == "triple" {
		if depth >= maxTripleDepth {
			return kb.Term{}, fmt.Errorf("results: triple terms nested deeper than %d", maxTripleDepth)
		}
		var parts struct {
			Subject, Predicate, Object *jsonTerm
		}
		if err := json.Unmarshal(v.Value, &parts); err != nil {
			return kb.Term{}, fmt.Errorf("results: reading JSON triple term: %w", err)
		}
		if parts.Subject == nil || parts.Predicate == nil || parts.Object == nil {
			return kb.Term{}, fmt.Errorf("results: JSON triple term without subject, predicate or object")
		}
		s, err := parts.Subject.term(depth + 1)
		if err != nil {
			return kb.Term{}, err
		}
		p, err := parts.Predicate.term(depth + 1)
		if err != nil {
			return kb.Term{}, err
		}
		o, err := parts.Object.term(depth + 1)
		if err != nil {
			return kb.Term{}, err
		}
		return kb.TripleTerm(s, p, o), nil
	}
	var value string
	if err := json.Unmarshal(v.Value, &value); err != nil {
		return kb.Term{}, fmt.Errorf("results: JSON %s term: value is not a string", v.Type)
	}
	switch v.Type {
	case "uri":
		return kb.IRI(value), nil
	case "bnode":
		return kb.Blank(value), nil
	case "literal", "typed-literal":
		return literal(value, v.Datatype, v.Lang, v.Dir)
	}
	return kb.Term{}, fmt.Errorf("results: unknown JSON term type %q", v.Type)
}

// xmlTerm is one RDF term of the SPARQL Query Results XML Format; a triple
// term (SPARQL 1.2) is <triple> with <subject>, <predicate> and <object>,
// and a literal's base direction is its its:dir attribute.
type xmlTerm struct {
	URI     *string `xml:"uri"`
	BNode   *string `xml:"bnode"`
	Literal *struct {
		Value    string `xml:",chardata"`
		Lang     string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		Dir      string `xml:"http://www.w3.org/2005/11/its dir,attr"`
		Datatype string `xml:"datatype,attr"`
	} `xml:"literal"`
	Triple *struct {
		Subject   xmlTerm `xml:"subject"`
		Predicate xmlTerm `xml:"predicate"`
		Object    xmlTerm `xml:"object"`
	} `xml:"triple"`
}

// term returns the term; the zero term when the element holds none.
func (x *xmlTerm) term(depth int) (kb.Term, error) {
	switch {
	case x.URI != nil:
		return kb.IRI(strings.TrimSpace(*x.URI)), nil
	case x.BNode != nil:
		return kb.Blank(strings.TrimSpace(*x.BNode)), nil
	case x.Literal != nil:
		return literal(x.Literal.Value, x.Literal.Datatype, x.Literal.Lang, x.Literal.Dir)
	case x.Triple != nil:
		if depth >= maxTripleDepth {
			return kb.Term{}, fmt.Errorf("results: triple terms nested deeper than %d", maxTripleDepth)
		}
		var parts [3]kb.Term
		for i, e := range []*xmlTerm{&x.Triple.Subject, &x.Triple.Predicate, &x.Triple.Object} {
			t, err := e.term(depth + 1)
			if err != nil {
				return kb.Term{}, err
			}
			if t.IsZero() {
				return kb.Term{}, fmt.Errorf("results: XML triple term without its %s", [...]string{"subject", "predicate", "object"}[i])
			}
			parts[i] = t
		}
		return kb.TripleTerm(parts[0], parts[1], parts[2]), nil
	}
	return kb.Term{}, nil
}

// itsNS is the W3C Internationalization Tag Set namespace, whose dir
// attribute gives a literal's base direction in XML results.
const itsNS = "http://www.w3.org/2005/11/its"

// appendJSONTriple appends a triple term as a SPARQL 1.2 JSON term:
// {"type":"triple","value":{"subject":…,"predicate":…,"object":…}}.
func appendJSONTriple(b []byte, t kb.Term) []byte {
	tr, ok := t.Triple()
	if !ok {
		// Not in canonical form: kb.TripleTerm never makes one; write
		// the text rather than lose the value.
		b = append(b, `{"type":"literal","value":`...)
		return rdfio.AppendJSONString(b, t.Value)
	}
	b = append(b, `{"type":"triple","value":{"subject":`...)
	b = AppendJSONTerm(b, tr.S)
	b = append(b, `,"predicate":`...)
	b = AppendJSONTerm(b, tr.P)
	b = append(b, `,"object":`...)
	b = AppendJSONTerm(b, tr.O)
	return append(b, '}')
}

// writeXMLTriple writes a triple term as SPARQL 1.2 XML:
// <triple><subject>…</subject><predicate>…</predicate><object>…</object></triple>.
func writeXMLTriple(w *bufio.Writer, t kb.Term) {
	tr, ok := t.Triple()
	if !ok {
		w.WriteString("<literal>")
		xmlEscape(w, t.Value)
		w.WriteString("</literal>")
		return
	}
	w.WriteString("<triple><subject>")
	writeXMLTerm(w, tr.S)
	w.WriteString("</subject><predicate>")
	writeXMLTerm(w, tr.P)
	w.WriteString("</predicate><object>")
	writeXMLTerm(w, tr.O)
	w.WriteString("</object></triple>")
}
