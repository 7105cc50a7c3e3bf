package rdfio

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// RDF/XML syntax names, and the XML namespace.
const (
	xmlNS         = "http://www.w3.org/XML/1998/namespace"
	rdfXMLLiteral = ontology.RDFXMLLiteral
	// itsNS is the W3C Internationalization Tag Set namespace, whose
	// its:dir gives literals a base direction in RDF/XML 1.2.
	itsNS = "http://www.w3.org/2005/11/its"
)

// RDFXMLDecoder reads RDF/XML (RDF 1.1 XML Syntax) as a stream: it holds
// the statements of one top-level node element at a time. It reads XML
// tokens with encoding/xml's RawToken and resolves namespaces itself, so
// that parseType="Literal" content keeps its prefixes. DTD entities are
// never expanded (encoding/xml knows only the five predefined ones), so
// neither external entities nor entity bombs are possible.
type RDFXMLDecoder struct {
	dec  *xml.Decoder
	in   *bomSkipper
	src  string
	base string

	out    []kb.TermQuad
	outPos int
	err    error
	// badIRI is the first statement's IRI that CheckIRI refused.
	badIRI error

	started, inRDF, done bool
	ns                   []map[string]string // namespace scopes, innermost last
	baseStack, langStack []string            // per open element
	dirStack             []string            // its:dir per open element
	// versioned says, per open element, whether an rdf:version is in
	// scope: RDF/XML 1.2 reads its:dir and parseType="Triple" only then.
	versioned []bool
	names     []xml.Name      // open elements as written, to match end tags
	ids       map[string]bool // rdf:ID IRIs seen (each may be used once)
	anon      int
	depth     int
	// tokLine and tokCol are where the token being handled starts, so
	// that an error about an element points at its '<', not past its '>'.
	tokLine, tokCol int
}

// NewRDFXMLDecoder returns a decoder reading RDF/XML from r.
func NewRDFXMLDecoder(r io.Reader, opts Options) *RDFXMLDecoder {
	in := &bomSkipper{r: r}
	dec := xml.NewDecoder(in)
	dec.Strict = true
	return &RDFXMLDecoder{dec: dec, in: in, src: opts.Source, base: opts.Base, ids: map[string]bool{}}
}

// bomSkipper drops a leading UTF-8 byte order mark, which encoding/xml
// rejects, and remembers a read error, so that the decoder can tell a
// failing reader from malformed XML.
type bomSkipper struct {
	r    io.Reader
	done bool
	err  error
}

func (b *bomSkipper) Read(p []byte) (int, error) {
	n, err := b.read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

func (b *bomSkipper) read(p []byte) (int, error) {
	if b.done {
		return b.r.Read(p)
	}
	b.done = true
	var head [3]byte
	n, err := io.ReadFull(b.r, head[:])
	if n == 3 && head == [3]byte{0xEF, 0xBB, 0xBF} {
		return b.r.Read(p)
	}
	k := copy(p, head[:n])
	if k < n { // p is tiny: keep the rest for later
		b.r = io.MultiReader(strings.NewReader(string(head[k:n])), b.r)
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		if k == 0 {
			return 0, io.EOF
		}
		err = nil
	}
	return k, err
}

// Next returns the next statement.
func (d *RDFXMLDecoder) Next() (kb.TermQuad, error) {
	for d.outPos == len(d.out) {
		if d.err != nil {
			return kb.TermQuad{}, d.err
		}
		d.out, d.outPos = d.out[:0], 0
		if err := d.step(); err != nil {
			d.err = err
		}
		if d.badIRI != nil {
			d.out, d.err = d.out[:0], d.badIRI
		}
	}
	q := d.out[d.outPos]
	d.outPos++
	return q, nil
}

// pos is where the XML decoder is (it can report column 0 right after a
// line break).
func (d *RDFXMLDecoder) pos() (int, int) {
	line, col := d.dec.InputPos()
	return max(line, 1), max(col, 1)
}

func (d *RDFXMLDecoder) errorf(format string, args ...any) error {
	line, col := max(d.tokLine, 1), max(d.tokCol, 1)
	return syntaxError(d.src, line, col, fmt.Sprintf(format, args...))
}

// xmlError converts an encoding/xml error: anything but a failure of
// the underlying reader is malformed input (encoding/xml reports some of
// those, such as an unsupported version or encoding, as plain errors).
func (d *RDFXMLDecoder) xmlError(err error) error {
	line, col := d.pos()
	if d.in.err != nil {
		return fmt.Errorf("%s:%d:%d: read: %w", sourceName(d.src), line, col, d.in.err)
	}
	if err == io.EOF {
		return d.errorf("unexpected end of input")
	}
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, "XML syntax error: "), "xml: ")
	return syntaxError(d.src, line, col, "XML syntax error: "+msg)
}

// element is a start tag with its names resolved.
type element struct {
	space, local string // namespace IRI and local name
	prefix       string // as written
	attrs        []attr
	raw          xml.StartElement
}

type attr struct {
	space, local, prefix, value string
}

func (e *element) iri() string { return e.space + e.local }

// token returns the next token that matters: start and end tags (resolved
// and checked) and character data; comments, processing instructions and
// directives are dropped.
func (d *RDFXMLDecoder) token() (xml.Token, *element, error) {
	for {
		d.tokLine, d.tokCol = d.dec.InputPos()
		tok, err := d.dec.RawToken()
		if err != nil {
			return nil, nil, d.xmlError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			e, err := d.open(t)
			return t, e, err
		case xml.EndElement:
			if len(d.names) == 0 {
				return nil, nil, d.errorf("unexpected end tag </%s>", qname(t.Name))
			}
			if open := d.names[len(d.names)-1]; open != t.Name {
				return nil, nil, d.errorf("element <%s> closed by </%s>", qname(open), qname(t.Name))
			}
			d.names = d.names[:len(d.names)-1]
			d.ns = d.ns[:len(d.ns)-1]
			d.baseStack = d.baseStack[:len(d.baseStack)-1]
			d.langStack = d.langStack[:len(d.langStack)-1]
			d.dirStack = d.dirStack[:len(d.dirStack)-1]
			d.versioned = d.versioned[:len(d.versioned)-1]
			return t, nil, nil
		case xml.CharData:
			return xml.CharData(string(t)), nil, nil
		}
	}
}

// open enters an element's scope: namespaces, xml:base and xml:lang.
func (d *RDFXMLDecoder) open(t xml.StartElement) (*element, error) {
	scope := map[string]string{}
	base, lang, dir, versioned := d.base, "", "", false
	if n := len(d.baseStack); n > 0 {
		base, lang, dir, versioned = d.baseStack[n-1], d.langStack[n-1], d.dirStack[n-1], d.versioned[n-1]
	}
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "xmlns":
			scope[a.Name.Local] = a.Value
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			scope[""] = a.Value
		}
	}
	d.ns = append(d.ns, scope)
	d.names = append(d.names, t.Name)
	e := &element{prefix: t.Name.Space, local: t.Name.Local, raw: t}
	var ok bool
	if e.space, ok = d.lookup(t.Name.Space); !ok {
		return nil, d.errorf("undeclared namespace prefix %q on <%s:%s>", t.Name.Space, t.Name.Space, t.Name.Local)
	}
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		at := attr{prefix: a.Name.Space, local: a.Name.Local, value: a.Value}
		if a.Name.Space != "" {
			if at.space, ok = d.lookup(a.Name.Space); !ok {
				return nil, d.errorf("undeclared namespace prefix %q on attribute %s:%s", a.Name.Space, a.Name.Space, a.Name.Local)
			}
		}
		if at.space == xmlNS {
			switch at.local {
			case "base":
				base = kb.ResolveIRI(base, a.Value)
				if i := strings.IndexByte(base, '#'); i >= 0 {
					base = base[:i]
				}
			case "lang":
				lang = a.Value
			}
		}
		if at.space == ontology.RDFNamespace && at.local == "version" {
			versioned = true
		}
		if at.space == itsNS && at.local == "dir" {
			if a.Value != "ltr" && a.Value != "rtl" {
				return nil, d.errorf("its:dir=%q: the base direction is ltr or rtl", a.Value)
			}
			dir = a.Value
		}
		e.attrs = append(e.attrs, at)
	}
	d.baseStack = append(d.baseStack, base)
	d.langStack = append(d.langStack, lang)
	d.dirStack = append(d.dirStack, dir)
	d.versioned = append(d.versioned, versioned)
	return e, nil
}

// qname renders a raw name as written.
func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// lookup resolves a prefix ("" is the default namespace, "xml" is fixed).
func (d *RDFXMLDecoder) lookup(prefix string) (string, bool) {
	if prefix == "xml" {
		return xmlNS, true
	}
	for i := len(d.ns) - 1; i >= 0; i-- {
		if v, ok := d.ns[i][prefix]; ok {
			return v, true
		}
	}
	return "", prefix == ""
}

func (d *RDFXMLDecoder) curBase() string { return d.baseStack[len(d.baseStack)-1] }

// curLang returns the language in scope, with the base direction in scope
// after "--" (kb.Term's Lang form) when there are both.
func (d *RDFXMLDecoder) curLang() string {
	n := len(d.langStack) - 1
	lang := d.langStack[n]
	if dir := d.dirStack[n]; lang != "" && dir != "" && d.versioned[n] {
		return lang + "--" + dir
	}
	return lang
}

// ignoredAttr reports the attributes that carry no statement: xml:*,
// its:* (its:dir is read by open) and rdf:version (RDF/XML 1.2).
func ignoredAttr(a attr) bool {
	return a.space == xmlNS || isXMLReserved(a) || a.space == itsNS || a.space == ontology.RDFNamespace && a.local == "version"
}

func (d *RDFXMLDecoder) emit(s, p, o kb.Term) {
	if d.badIRI == nil {
		for _, t := range [...]kb.Term{s, p, o} {
			if err := kb.CheckTermIRIs(t.Kind, t.Value, t.Datatype); err != nil {
				d.badIRI = d.errorf("%v", err)
				break
			}
		}
	}
	d.out = append(d.out, kb.TermQuad{S: s, P: p, O: o})
}

func (d *RDFXMLDecoder) newAnon() kb.Term {
	d.anon++
	return kb.Term{Kind: kb.KindBlank, Value: anonPrefix + strconv.Itoa(d.anon)}
}

// step parses up to the next top-level node element.
func (d *RDFXMLDecoder) step() error {
	if d.done {
		return io.EOF
	}
	for {
		tok, e, err := d.token()
		if err != nil {
			if !d.started && d.dec.InputOffset() == 0 {
				return d.errorf("empty input: want an RDF/XML document")
			}
			if d.done {
				return io.EOF
			}
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !d.started {
				d.started = true
				if e.space == ontology.RDFNamespace && e.local == "RDF" {
					if err := d.checkRDFAttrs(e); err != nil {
						return err
					}
					d.inRDF = true
					continue
				}
				// rdf:RDF is optional: any node element may be the
				// document element (a typed node in any namespace).
				if _, err := d.nodeElement(e); err != nil {
					return err
				}
				return d.finish()
			}
			if _, err := d.nodeElement(e); err != nil {
				return err
			}
			return nil
		case xml.EndElement:
			// the end of rdf:RDF
			return d.finish()
		case xml.CharData:
			if !isXMLSpace(string(t)) {
				if !d.started {
					return d.errorf("text before the document element: not RDF/XML")
				}
				return d.errorf("text %q between node elements", abbreviate(string(t)))
			}
		}
	}
}

// finish checks that nothing but white space and comments follows.
func (d *RDFXMLDecoder) finish() error {
	d.done = true
	for {
		d.tokLine, d.tokCol = d.dec.InputPos()
		tok, err := d.dec.RawToken()
		if err == io.EOF {
			return io.EOF
		}
		if err != nil {
			return d.xmlError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return d.errorf("content after the document element")
		case xml.CharData:
			if !isXMLSpace(string(t)) {
				return d.errorf("text after the document element")
			}
		}
	}
}

func (d *RDFXMLDecoder) checkRDFAttrs(e *element) error {
	for _, a := range e.attrs {
		if !ignoredAttr(a) {
			return d.errorf("attribute %s is not allowed on rdf:RDF", a.local)
		}
	}
	return nil
}

func isXMLReserved(a attr) bool {
	return a.space == "" && len(a.local) >= 3 && strings.EqualFold(a.local[:3], "xml")
}

func isXMLSpace(s string) bool {
	return strings.TrimLeft(s, " \t\r\n") == ""
}

func abbreviate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 30 {
		return s[:30] + "…"
	}
	return s
}

// Names that cannot be node elements, property elements or property
// attributes (RDF 1.1 XML Syntax, 6.2.2–6.2.5).
var (
	coreSyntaxTerms = map[string]bool{"RDF": true, "ID": true, "about": true, "parseType": true, "resource": true, "nodeID": true, "datatype": true}
	oldTerms        = map[string]bool{"aboutEach": true, "aboutEachPrefix": true, "bagID": true}
)

func forbiddenNodeName(local string) bool {
	return coreSyntaxTerms[local] || oldTerms[local] || local == "li"
}

func forbiddenPropertyName(local string) bool {
	return coreSyntaxTerms[local] || oldTerms[local] || local == "Description"
}

func forbiddenPropertyAttr(local string) bool {
	return forbiddenPropertyName(local) || local == "li"
}

// nodeElement parses a node element whose start tag is e (already read)
// up to its end tag, and returns its subject.
func (d *RDFXMLDecoder) nodeElement(e *element) (kb.Term, error) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxNesting {
		return kb.Term{}, d.errorf("elements nested more than %d deep", maxNesting)
	}
	if e.space == ontology.RDFNamespace && forbiddenNodeName(e.local) {
		return kb.Term{}, d.errorf("rdf:%s cannot be a node element", e.local)
	}
	if e.space == "" {
		return kb.Term{}, d.errorf("node element <%s> has no namespace (RDF/XML needs qualified element names)", e.local)
	}
	var subj kb.Term
	var props []attr
	var typeAttr string
	base := d.curBase()
	for _, a := range e.attrs {
		switch {
		case ignoredAttr(a):
		case a.space == ontology.RDFNamespace && a.local == "ID":
			iri, err := d.idIRI(a.value)
			if err != nil {
				return kb.Term{}, err
			}
			if !subj.IsZero() {
				return kb.Term{}, d.errorf("a node element may have only one of rdf:ID, rdf:about and rdf:nodeID")
			}
			subj = kb.Term{Kind: kb.KindIRI, Value: iri}
		case a.space == ontology.RDFNamespace && a.local == "about":
			if !subj.IsZero() {
				return kb.Term{}, d.errorf("a node element may have only one of rdf:ID, rdf:about and rdf:nodeID")
			}
			subj = kb.Term{Kind: kb.KindIRI, Value: kb.ResolveIRI(base, a.value)}
		case a.space == ontology.RDFNamespace && a.local == "nodeID":
			if !subj.IsZero() {
				return kb.Term{}, d.errorf("a node element may have only one of rdf:ID, rdf:about and rdf:nodeID")
			}
			b, err := d.nodeID(a.value)
			if err != nil {
				return kb.Term{}, err
			}
			subj = b
		case a.space == ontology.RDFNamespace && a.local == "type":
			typeAttr = a.value
		case a.space == "":
			return kb.Term{}, d.errorf("attribute %q has no namespace (RDF/XML needs qualified attributes)", a.local)
		case a.space == ontology.RDFNamespace && forbiddenPropertyAttr(a.local):
			return kb.Term{}, d.errorf("rdf:%s is not allowed as an attribute here", a.local)
		default:
			props = append(props, a)
		}
	}
	if subj.IsZero() {
		subj = d.newAnon()
	}
	if !(e.space == ontology.RDFNamespace && e.local == "Description") {
		d.emit(subj, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFType}, kb.Term{Kind: kb.KindIRI, Value: e.iri()})
	}
	if typeAttr != "" {
		d.emit(subj, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFType}, kb.Term{Kind: kb.KindIRI, Value: kb.ResolveIRI(base, typeAttr)})
	}
	lang := d.curLang()
	for _, a := range props {
		d.emit(subj, kb.Term{Kind: kb.KindIRI, Value: a.space + a.local}, d.plainLiteral(a.value, lang))
	}
	li := 0
	for {
		tok, child, err := d.token()
		if err != nil {
			return kb.Term{}, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return subj, nil
		case xml.CharData:
			if !isXMLSpace(string(t)) {
				return kb.Term{}, d.errorf("text %q inside a node element (want property elements)", abbreviate(string(t)))
			}
		case xml.StartElement:
			if err := d.propertyElement(child, subj, &li); err != nil {
				return kb.Term{}, err
			}
		}
	}
}

func (d *RDFXMLDecoder) plainLiteral(s, lang string) kb.Term {
	if l, dir, ok := strings.Cut(lang, "--"); ok {
		return kb.DirLangLiteral(s, l, dir)
	}
	if lang != "" {
		return kb.LangLiteral(s, lang)
	}
	return kb.Term{Kind: kb.KindLiteral, Value: s, Datatype: ontology.XSDString}
}

// idIRI turns an rdf:ID into its IRI, which must be unique in the document.
func (d *RDFXMLDecoder) idIRI(id string) (string, error) {
	if !isNCName(id) {
		return "", d.errorf("rdf:ID %q is not an XML name (NCName)", id)
	}
	iri := kb.ResolveIRI(d.curBase(), "#"+id)
	if d.ids[iri] {
		return "", d.errorf("rdf:ID %q is used twice (it names <%s>)", id, iri)
	}
	d.ids[iri] = true
	return iri, nil
}

// nodeID turns an rdf:nodeID into a blank node, named as Turtle names
// explicit labels so that generated nodes never meet it.
func (d *RDFXMLDecoder) nodeID(id string) (kb.Term, error) {
	if !isNCName(id) {
		return kb.Term{}, d.errorf("rdf:nodeID %q is not an XML name (NCName)", id)
	}
	if strings.HasPrefix(id, anonPrefix) {
		id = anonPrefix + id
	}
	return kb.Term{Kind: kb.KindBlank, Value: id}, nil
}

// isNCName reports whether s is an XML NCName.
func isNCName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (r == '-' || r == '.' || r == 0xB7 || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Lm)):
		default:
			return false
		}
	}
	return true
}

// propertyElement parses a property element of subj whose start tag is e.
func (d *RDFXMLDecoder) propertyElement(e *element, subj kb.Term, li *int) error {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxNesting {
		return d.errorf("elements nested more than %d deep", maxNesting)
	}
	pred := e.iri()
	if e.space == ontology.RDFNamespace {
		if forbiddenPropertyName(e.local) {
			return d.errorf("rdf:%s cannot be a property element", e.local)
		}
		if e.local == "li" {
			*li++
			pred = ontology.RDFNamespace + "_" + strconv.Itoa(*li)
		}
	}
	if e.space == "" {
		return d.errorf("property element <%s> has no namespace", e.local)
	}
	p := kb.Term{Kind: kb.KindIRI, Value: pred}
	var reify, parseType, resource, datatype string
	var nodeID, annotation kb.Term
	var hasResource bool
	var props []attr
	base, lang := d.curBase(), d.curLang()
	for _, a := range e.attrs {
		switch {
		case ignoredAttr(a):
		case a.space == ontology.RDFNamespace && a.local == "annotation":
			annotation = kb.Term{Kind: kb.KindIRI, Value: kb.ResolveIRI(base, a.value)}
		case a.space == ontology.RDFNamespace && a.local == "annotationNodeID":
			b, err := d.nodeID(a.value)
			if err != nil {
				return err
			}
			annotation = b
		case a.space == ontology.RDFNamespace && a.local == "ID":
			iri, err := d.idIRI(a.value)
			if err != nil {
				return err
			}
			reify = iri
		case a.space == ontology.RDFNamespace && a.local == "parseType":
			parseType = a.value
		case a.space == ontology.RDFNamespace && a.local == "resource":
			resource, hasResource = kb.ResolveIRI(base, a.value), true
		case a.space == ontology.RDFNamespace && a.local == "nodeID":
			b, err := d.nodeID(a.value)
			if err != nil {
				return err
			}
			nodeID = b
		case a.space == ontology.RDFNamespace && a.local == "datatype":
			datatype = kb.ResolveIRI(base, a.value)
		case a.space == "":
			return d.errorf("attribute %q has no namespace (RDF/XML needs qualified attributes)", a.local)
		case a.space == ontology.RDFNamespace && forbiddenPropertyAttr(a.local):
			return d.errorf("rdf:%s is not allowed as an attribute here", a.local)
		default:
			props = append(props, a)
		}
	}
	if hasResource && !nodeID.IsZero() {
		return d.errorf("a property element may not have both rdf:resource and rdf:nodeID")
	}
	emit := func(o kb.Term) {
		d.emit(subj, p, o)
		if !annotation.IsZero() {
			d.emit(annotation, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFReifies}, kb.TripleTerm(subj, p, o))
		}
		if reify != "" {
			r := kb.Term{Kind: kb.KindIRI, Value: reify}
			d.emit(r, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFType}, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFStatement})
			d.emit(r, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFSubject}, subj)
			d.emit(r, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFPredicate}, p)
			d.emit(r, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFObject}, o)
		}
	}
	if parseType != "" {
		if hasResource || !nodeID.IsZero() || datatype != "" || len(props) > 0 {
			return d.errorf("rdf:parseType cannot be combined with rdf:resource, rdf:nodeID, rdf:datatype or property attributes")
		}
		switch parseType {
		case "Resource":
			n := d.newAnon()
			emit(n)
			sub := 0
			for {
				tok, child, err := d.token()
				if err != nil {
					return err
				}
				switch t := tok.(type) {
				case xml.EndElement:
					return nil
				case xml.CharData:
					if !isXMLSpace(string(t)) {
						return d.errorf("text %q in a parseType=\"Resource\" element", abbreviate(string(t)))
					}
				case xml.StartElement:
					if err := d.propertyElement(child, n, &sub); err != nil {
						return err
					}
				}
			}
		case "Triple":
			// RDF/XML 1.2: one node element stating one triple, which
			// becomes the object as a triple term and is not asserted.
			var tt kb.Term
			for {
				tok, child, err := d.token()
				if err != nil {
					return err
				}
				switch t := tok.(type) {
				case xml.EndElement:
					if tt.IsZero() {
						return d.errorf("a parseType=\"Triple\" element holds no node element")
					}
					// Without rdf:version in scope, an RDF 1.1 reader
					// ignores the element (the W3C tests say so).
					if d.versioned[len(d.versioned)-1] {
						emit(tt)
					}
					return nil
				case xml.CharData:
					if !isXMLSpace(string(t)) {
						return d.errorf("text %q in a parseType=\"Triple\" element", abbreviate(string(t)))
					}
				case xml.StartElement:
					if !tt.IsZero() {
						return d.errorf("a parseType=\"Triple\" element holds more than one node element")
					}
					mark := len(d.out)
					if _, err := d.nodeElement(child); err != nil {
						return err
					}
					if len(d.out)-mark != 1 {
						return d.errorf("the node element of a parseType=\"Triple\" element must state exactly one triple, not %d", len(d.out)-mark)
					}
					q := d.out[mark]
					d.out = d.out[:mark]
					tt = kb.TripleTerm(q.S, q.P, q.O)
				}
			}
		case "Collection":
			var items []kb.Term
			for {
				tok, child, err := d.token()
				if err != nil {
					return err
				}
				switch t := tok.(type) {
				case xml.EndElement:
					head := kb.Term{Kind: kb.KindIRI, Value: ontology.RDFNil}
					nodes := make([]kb.Term, len(items))
					for i := range items {
						nodes[i] = d.newAnon()
					}
					if len(nodes) > 0 {
						head = nodes[0]
					}
					emit(head)
					for i, n := range nodes {
						d.emit(n, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFFirst}, items[i])
						next := kb.Term{Kind: kb.KindIRI, Value: ontology.RDFNil}
						if i+1 < len(nodes) {
							next = nodes[i+1]
						}
						d.emit(n, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFRest}, next)
					}
					return nil
				case xml.CharData:
					if !isXMLSpace(string(t)) {
						return d.errorf("text %q in a parseType=\"Collection\" element", abbreviate(string(t)))
					}
				case xml.StartElement:
					item, err := d.nodeElement(child)
					if err != nil {
						return err
					}
					items = append(items, item)
				}
			}
		default: // "Literal" and any other value
			lit, err := d.xmlLiteral()
			if err != nil {
				return err
			}
			emit(kb.Term{Kind: kb.KindLiteral, Value: lit, Datatype: rdfXMLLiteral})
			return nil
		}
	}
	// Text, a nested node element, or nothing.
	var text strings.Builder
	for {
		tok, child, err := d.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.CharData:
			text.Write(t)
		case xml.StartElement:
			if !isXMLSpace(text.String()) {
				return d.errorf("text and a node element mixed in property element <%s>", e.local)
			}
			if hasResource || !nodeID.IsZero() || datatype != "" || len(props) > 0 {
				return d.errorf("property element <%s> has attributes that are not allowed with a nested node element", e.local)
			}
			obj, err := d.nodeElement(child)
			if err != nil {
				return err
			}
			for {
				tok, _, err := d.token()
				if err != nil {
					return err
				}
				switch t := tok.(type) {
				case xml.EndElement:
					emit(obj)
					return nil
				case xml.CharData:
					if !isXMLSpace(string(t)) {
						return d.errorf("text after the node element in property element <%s>", e.local)
					}
				case xml.StartElement:
					return d.errorf("property element <%s> holds more than one node element", e.local)
				}
			}
		case xml.EndElement:
			s := text.String()
			if s == "" && datatype == "" {
				// An empty property element: its object is a
				// resource, described by any property attributes.
				if !hasResource && nodeID.IsZero() && len(props) == 0 {
					emit(d.plainLiteral("", lang))
					return nil
				}
				var obj kb.Term
				switch {
				case hasResource:
					obj = kb.Term{Kind: kb.KindIRI, Value: resource}
				case !nodeID.IsZero():
					obj = nodeID
				default:
					obj = d.newAnon()
				}
				emit(obj)
				for _, a := range props {
					if a.space == ontology.RDFNamespace && a.local == "type" {
						d.emit(obj, kb.Term{Kind: kb.KindIRI, Value: ontology.RDFType}, kb.Term{Kind: kb.KindIRI, Value: kb.ResolveIRI(base, a.value)})
						continue
					}
					d.emit(obj, kb.Term{Kind: kb.KindIRI, Value: a.space + a.local}, d.plainLiteral(a.value, lang))
				}
				return nil
			}
			if hasResource || !nodeID.IsZero() || len(props) > 0 {
				return d.errorf("property element <%s> has text and attributes that describe a resource", e.local)
			}
			if datatype != "" {
				emit(kb.Term{Kind: kb.KindLiteral, Value: s, Datatype: datatype})
			} else {
				emit(d.plainLiteral(s, lang))
			}
			return nil
		}
	}
}

// xmlLiteral reads the content of a parseType="Literal" element up to its
// end tag and returns it in exclusive canonical XML form (namespaces
// declared where they are first used, empty elements written in full,
// attributes sorted).
func (d *RDFXMLDecoder) xmlLiteral() (string, error) {
	var b strings.Builder
	rendered := []map[string]string{{}} // namespace declarations in force in the output
	depth := 0
	for {
		tok, e, err := d.token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			escapeXMLText(&b, string(t))
		case xml.EndElement:
			if depth == 0 {
				return b.String(), nil
			}
			depth--
			rendered = rendered[:len(rendered)-1]
			b.WriteString("</")
			if t.Name.Space != "" {
				b.WriteString(t.Name.Space)
				b.WriteByte(':')
			}
			b.WriteString(t.Name.Local)
			b.WriteByte('>')
		case xml.StartElement:
			depth++
			if depth > maxNesting {
				return "", d.errorf("XML literal nested more than %d deep", maxNesting)
			}
			scope := map[string]string{}
			for k, v := range rendered[len(rendered)-1] {
				scope[k] = v
			}
			// visibly utilized prefixes
			used := map[string]string{e.prefix: e.space}
			for _, a := range e.attrs {
				if a.prefix != "" && a.prefix != "xml" {
					used[a.prefix] = a.space
				}
			}
			var decls []string
			for pfx, uri := range used {
				if cur, ok := scope[pfx]; (ok && cur == uri) || (!ok && pfx == "" && uri == "") {
					continue
				}
				scope[pfx] = uri
				decls = append(decls, pfx)
			}
			sort.Strings(decls)
			rendered = append(rendered, scope)
			b.WriteByte('<')
			if e.prefix != "" {
				b.WriteString(e.prefix)
				b.WriteByte(':')
			}
			b.WriteString(e.local)
			for _, pfx := range decls {
				if pfx == "" {
					b.WriteString(` xmlns="`)
				} else {
					b.WriteString(" xmlns:" + pfx + `="`)
				}
				escapeXMLAttr(&b, scope[pfx])
				b.WriteByte('"')
			}
			attrs := append([]attr(nil), e.attrs...)
			sort.Slice(attrs, func(i, j int) bool {
				if attrs[i].space != attrs[j].space {
					return attrs[i].space < attrs[j].space
				}
				return attrs[i].local < attrs[j].local
			})
			for _, a := range attrs {
				b.WriteByte(' ')
				if a.prefix != "" {
					b.WriteString(a.prefix)
					b.WriteByte(':')
				}
				b.WriteString(a.local)
				b.WriteString(`="`)
				escapeXMLAttr(&b, a.value)
				b.WriteByte('"')
			}
			b.WriteByte('>')
		}
	}
}

func escapeXMLText(b *strings.Builder, s string) {
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteRune(r)
		}
	}
}

func escapeXMLAttr(b *strings.Builder, s string) {
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '"':
			b.WriteString("&quot;")
		case '\t':
			b.WriteString("&#x9;")
		case '\n':
			b.WriteString("&#xA;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteRune(r)
		}
	}
}
