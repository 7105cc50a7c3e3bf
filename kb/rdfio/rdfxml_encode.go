package rdfio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// RDF/XML output. The document declares its namespaces once, on rdf:RDF,
// and writes one node element per run of statements with the same
// subject: a typed node element (<perfonto:Experiment rdf:about=…>) when
// the run has an rdf:type whose class has a declared prefix, else
// rdf:Description. To know the namespaces before the root element is
// written, the encoder holds the first rdfxmlHeadWindow statements (or all
// of them when there are fewer); it streams after that, and a predicate in
// a namespace first met later is declared on its own property element.

const (
	// rdfxmlHeadWindow is how many statements are held to collect the
	// namespaces declared on rdf:RDF.
	rdfxmlHeadWindow = 4096
	// rdfxmlRunLimit bounds the statements held for one subject (to find
	// its type); a longer run is written as several node elements.
	rdfxmlRunLimit = 1024
)

// rdfxmlEncoder writes RDF/XML.
type rdfxmlEncoder struct {
	w        *bufio.Writer
	prefixes []Prefix          // known prefix names (EncoderOptions)
	nsPrefix map[string]string // namespace -> prefix declared on rdf:RDF
	head     []kb.TermQuad     // statements held before rdf:RDF is written
	started  bool
	closed   bool
	run      []kb.TermQuad // the current subject's statements
	sb       strings.Builder
}

// NewRDFXMLEncoder writes RDF/XML (graphs are dropped). A predicate whose
// IRI cannot be split into a namespace and an XML name, a predicate RDF/XML
// reserves (rdf:li, rdf:about …), and a term with a character XML 1.0
// cannot hold are errors.
func NewRDFXMLEncoder(w io.Writer, opts EncoderOptions) Encoder {
	p := opts.Prefixes
	if p == nil {
		p = CommonPrefixes
	}
	return &rdfxmlEncoder{w: bufferOf(w), prefixes: p}
}

func (e *rdfxmlEncoder) Encode(q kb.TermQuad) error {
	if err := rdfxmlCheck(q); err != nil {
		return err
	}
	q.G = kb.Term{}
	if !e.started {
		e.head = append(e.head, q)
		if len(e.head) < rdfxmlHeadWindow {
			return nil
		}
		return e.start()
	}
	return e.add(q)
}

// rdfxmlCheck reports a statement RDF/XML cannot write.
func rdfxmlCheck(q kb.TermQuad) error {
	_, local, ok := splitPredicate(q.P.Value)
	switch {
	case q.P.Kind != kb.KindIRI || !ok:
		return fmt.Errorf("RDF/XML cannot write the predicate %v: its IRI does not end in an XML name", q.P)
	case strings.HasPrefix(q.P.Value, ontology.RDFNamespace) && (q.P.Value == ontology.RDFNamespace+local) && (forbiddenPropertyName(local) || local == "li"):
		return fmt.Errorf("RDF/XML cannot write the predicate %v: rdf:%s is reserved by the syntax", q.P, local)
	}
	if err := rdf11Only("RDF/XML", q); err != nil {
		return err
	}
	for _, t := range [...]kb.Term{q.S, q.P, q.O} {
		for _, s := range [...]string{t.Value, t.Datatype, t.Lang} {
			if r, ok := xmlChars(s); !ok {
				return fmt.Errorf("RDF/XML cannot write %v: XML 1.0 does not allow the character %U", t, r)
			}
		}
	}
	return nil
}

// xmlChars reports whether every character of s is an XML 1.0 Char, and
// the first one that is not.
func xmlChars(s string) (rune, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r == utf8.RuneError && size == 1, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return r, false
		}
	}
	return 0, true
}

// start declares the namespaces the held statements use on rdf:RDF and
// writes them.
func (e *rdfxmlEncoder) start() error {
	e.started = true
	e.nsPrefix = map[string]string{ontology.RDFNamespace: "rdf"}
	names := map[string]bool{"rdf": true}
	known := map[string]string{}
	for _, p := range e.prefixes {
		if _, dup := known[p.Namespace]; !dup && isNCName(p.Prefix) && !strings.HasPrefix(strings.ToLower(p.Prefix), "xml") {
			known[p.Namespace] = p.Prefix
		}
	}
	var order []string
	generated := 0
	declare := func(ns string) {
		if _, ok := e.nsPrefix[ns]; ok {
			return
		}
		name, ok := known[ns]
		if !ok || names[name] {
			for {
				generated++
				if name = "ns" + strconv.Itoa(generated); !names[name] {
					break
				}
			}
		}
		e.nsPrefix[ns] = name
		names[name] = true
		order = append(order, ns)
	}
	for _, q := range e.head {
		ns, _, _ := splitPredicate(q.P.Value)
		declare(ns)
		if q.P.Value == ontology.RDFType && q.O.Kind == kb.KindIRI {
			if ns, _, ok := splitPredicate(q.O.Value); ok {
				declare(ns)
			}
		}
	}
	b := &e.sb
	b.Reset()
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rdf:RDF xmlns:rdf=\"" + ontology.RDFNamespace + "\"")
	for _, ns := range order {
		b.WriteString("\n    xmlns:")
		b.WriteString(e.nsPrefix[ns])
		b.WriteString(`="`)
		escapeXMLAttr(b, ns)
		b.WriteByte('"')
	}
	b.WriteString(">\n")
	if _, err := e.w.WriteString(b.String()); err != nil {
		return err
	}
	head := e.head
	e.head = nil
	for _, q := range head {
		if err := e.add(q); err != nil {
			return err
		}
	}
	return nil
}

// add appends q to the current subject run, writing the run first when
// q starts another one or the run is full.
func (e *rdfxmlEncoder) add(q kb.TermQuad) error {
	if len(e.run) > 0 && (q.S != e.run[0].S || len(e.run) >= rdfxmlRunLimit) {
		if err := e.flushRun(); err != nil {
			return err
		}
	}
	e.run = append(e.run, q)
	return nil
}

// flushRun writes the held subject run as one node element.
func (e *rdfxmlEncoder) flushRun() error {
	if len(e.run) == 0 {
		return nil
	}
	b := &e.sb
	b.Reset()
	// The first rdf:type whose class has a declared prefix and is not
	// an RDF syntax name becomes the element name.
	node, typed := "rdf:Description", -1
	for i, q := range e.run {
		if q.P.Value != ontology.RDFType || q.O.Kind != kb.KindIRI {
			continue
		}
		ns, local, ok := splitPredicate(q.O.Value)
		if p, declared := e.nsPrefix[ns]; ok && declared && !(ns == ontology.RDFNamespace && (forbiddenNodeName(local) || local == "Description")) {
			node, typed = p+":"+local, i
			break
		}
	}
	s := e.run[0].S
	b.WriteString("  <")
	b.WriteString(node)
	if s.Kind == kb.KindBlank {
		b.WriteString(` rdf:nodeID="`)
		b.WriteString(xmlNodeID(s.Value))
	} else {
		b.WriteString(` rdf:about="`)
		escapeXMLAttr(b, s.Value)
	}
	b.WriteString("\">\n")
	for i, q := range e.run {
		if i != typed {
			e.property(q)
		}
	}
	b.WriteString("  </")
	b.WriteString(node)
	b.WriteString(">\n")
	e.run = e.run[:0]
	_, err := e.w.WriteString(b.String())
	return err
}

// property writes one property element of q into e.sb.
func (e *rdfxmlEncoder) property(q kb.TermQuad) {
	b := &e.sb
	ns, local, _ := splitPredicate(q.P.Value)
	qname := local
	prefix, declared := e.nsPrefix[ns]
	b.WriteString("    <")
	if declared {
		qname = prefix + ":" + local
		b.WriteString(qname)
	} else {
		// A namespace first met after rdf:RDF was written: declared
		// as the default namespace of this element alone.
		b.WriteString(local)
		b.WriteString(` xmlns="`)
		escapeXMLAttr(b, ns)
		b.WriteByte('"')
	}
	switch q.O.Kind {
	case kb.KindIRI:
		b.WriteString(` rdf:resource="`)
		escapeXMLAttr(b, q.O.Value)
		b.WriteString("\"/>\n")
		return
	case kb.KindBlank:
		b.WriteString(` rdf:nodeID="`)
		b.WriteString(xmlNodeID(q.O.Value))
		b.WriteString("\"/>\n")
		return
	}
	switch {
	case q.O.Lang != "":
		b.WriteString(` xml:lang="`)
		escapeXMLAttr(b, q.O.Lang)
		b.WriteByte('"')
	case q.O.Datatype != "" && q.O.Datatype != ontology.XSDString:
		b.WriteString(` rdf:datatype="`)
		escapeXMLAttr(b, q.O.Datatype)
		b.WriteByte('"')
	}
	b.WriteByte('>')
	escapeXMLText(b, q.O.Value)
	b.WriteString("</")
	b.WriteString(qname)
	b.WriteString(">\n")
}

func (e *rdfxmlEncoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if !e.started {
		if err := e.start(); err != nil {
			return err
		}
	}
	if err := e.flushRun(); err != nil {
		return err
	}
	if _, err := e.w.WriteString("</rdf:RDF>\n"); err != nil {
		return err
	}
	return e.w.Flush()
}

// rdf11Only refuses the RDF 1.2 terms (triple terms, literals with a base
// direction) that the RDF/XML and JSON-LD encoders cannot write: writing
// them as something else would change the data.
func rdf11Only(format string, q kb.TermQuad) error {
	for _, t := range [...]kb.Term{q.S, q.O} {
		switch {
		case t.IsTriple():
			return fmt.Errorf("%s cannot write the triple term %v (RDF 1.2): use N-Triples, N-Quads, Turtle or TriG", format, t)
		case t.Datatype == ontology.RDFDirLangString:
			return fmt.Errorf("%s cannot write %v, a literal with a base direction (RDF 1.2): use N-Triples, N-Quads, Turtle or TriG", format, t)
		}
	}
	return nil
}
