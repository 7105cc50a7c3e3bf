package rdfio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// JSON-LD output, streamed. The document is
//
//	{"@context": {prefixes}, "@graph": [node objects and graph objects]}
//
// with one node object per run of statements with the same subject (a
// subject met again later gets another node object, which JSON-LD merges
// by @id), the values of one predicate run written together, rdf:type as
// @type, and named graphs as {"@id": G, "@graph": […]} objects. IRIs in a
// declared namespace are written as compact IRIs. Nothing is held but the
// values of the current predicate (at most jsonldValueLimit).
//
// A compact IRI "p:x" reads back through the prefix p, so an IRI written in
// full whose scheme is a declared prefix name (the IRI perfonto:x with the
// prefix perfonto declared) would be misread; the node object (or graph
// object) holding such an IRI carries a local context undefining the
// prefix as a prefix ({"@context": {"perfonto": {"@id": …, "@prefix":
// false}}), and nothing in it is compacted with that prefix.

// jsonldValueLimit bounds the values of one predicate held before they are
// written.
const jsonldValueLimit = 1024

// jsonldEncoder writes streamed JSON-LD.
type jsonldEncoder struct {
	w        *bufio.Writer
	prefixes []Prefix
	started  bool
	closed   bool

	inGraph   bool // a named graph object is open
	graph     kb.Term
	graphOff  []string // prefixes undefined by the graph object
	inNode    bool     // a node object is open
	subject   kb.Term
	nodeOff   []string        // prefixes undefined by the node object (graph's included)
	keys      map[string]bool // keys written in the open node object
	key       string          // the predicate whose values are held
	values    []byte          // the held values, rendered back to back
	ends      []int           // where each held value ends in values
	firstItem bool            // the next item of the open @graph array is its first
	buf       []byte
}

// NewJSONLDEncoder returns an encoder writing JSON-LD whose @context
// declares opts.Prefixes (CommonPrefixes when nil), so that IRIs in those
// namespaces are written as compact IRIs. It streams: see the package's
// JSON-LD notes.
func NewJSONLDEncoder(w io.Writer, opts EncoderOptions) Encoder {
	p := opts.Prefixes
	if p == nil {
		p = CommonPrefixes
	}
	var usable []Prefix
	for _, x := range p {
		// A prefix must be a plain name (not a keyword, not "_", no ':')
		// and its namespace must end in a character JSON-LD 1.1 accepts
		// for prefixes of compact IRIs (a gen-delim).
		if x.Prefix == "" || x.Prefix == "_" || strings.ContainsAny(x.Prefix, ":@/") || x.Namespace == "" ||
			!strings.ContainsRune(":/?#[]@", rune(x.Namespace[len(x.Namespace)-1])) {
			continue
		}
		usable = append(usable, x)
	}
	return &jsonldEncoder{w: bufferOf(w), prefixes: usable, keys: map[string]bool{}}
}

func (e *jsonldEncoder) header() {
	if e.started {
		return
	}
	e.started = true
	b := append(e.buf[:0], "{\n  \"@context\": {"...)
	for i, p := range e.prefixes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = AppendJSONString(b, p.Prefix)
		b = append(b, ": "...)
		b = AppendJSONString(b, p.Namespace)
	}
	if len(e.prefixes) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "},\n  \"@graph\": ["...)
	e.firstItem = true
	e.buf = b
	_, _ = e.w.Write(b)
}

// collisions returns the declared prefixes that name the scheme of an IRI
// among ts written in full.
func (e *jsonldEncoder) collisions(off []string, ts ...kb.Term) []string {
	var out []string
	for _, t := range ts {
		iri, ok := termIRI(t)
		if !ok {
			continue
		}
		scheme, _, ok := strings.Cut(iri, ":")
		if !ok || contains(off, scheme) || contains(out, scheme) || !e.declared(scheme) {
			continue
		}
		if _, _, compact := e.compact(iri, off); !compact {
			out = append(out, scheme)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (e *jsonldEncoder) declared(prefix string) bool {
	for _, p := range e.prefixes {
		if p.Prefix == prefix {
			return true
		}
	}
	return false
}

// compact finds the prefix (not in off) iri can be written with, and the
// rest of iri after its namespace.
func (e *jsonldEncoder) compact(iri string, off []string) (prefix, rest string, ok bool) {
	for _, p := range e.prefixes {
		rest, ok := strings.CutPrefix(iri, p.Namespace)
		// A suffix starting with "//" reads back as an IRI of its own
		// (JSON-LD 1.1 IRI expansion), and an empty one as the term.
		if !ok || rest == "" || strings.HasPrefix(rest, "//") || contains(off, p.Prefix) {
			continue
		}
		return p.Prefix, rest, true
	}
	return "", iri, false
}

// appendIRI writes iri as a JSON string, compacted where it can be.
func (e *jsonldEncoder) appendIRI(b []byte, iri string, off []string) []byte {
	prefix, rest, ok := e.compact(iri, off)
	if !ok {
		return AppendJSONString(b, iri)
	}
	b = append(b, '"')
	b = appendJSONContent(b, prefix)
	b = append(b, ':')
	b = appendJSONContent(b, rest)
	return append(b, '"')
}

func (e *jsonldEncoder) appendID(b []byte, t kb.Term, off []string) []byte {
	if t.Kind == kb.KindBlank {
		b = append(b, `"_:`...)
		b = appendJSONContent(b, SafeBlankLabel(t.Value))
		return append(b, '"')
	}
	return e.appendIRI(b, t.Value, off)
}

// appendLocalContext writes the local context that stops the prefixes of
// off from being prefixes ("@prefix": false: an IRI such as perfonto:x then
// reads as itself). Undefining them with null would be simpler, but
// json-gold fails on a null term definition.
func (e *jsonldEncoder) appendLocalContext(b []byte, off []string, indent string) []byte {
	b = append(b, indent...)
	b = append(b, "\"@context\": {"...)
	for i, name := range off {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendJSONString(b, name)
		b = append(b, ": {\"@id\": "...)
		for _, p := range e.prefixes {
			if p.Prefix == name {
				b = AppendJSONString(b, p.Namespace)
				break
			}
		}
		b = append(b, ", \"@prefix\": false}"...)
	}
	return append(b, "},\n"...)
}

func (e *jsonldEncoder) indent() string {
	if e.inGraph {
		return "        "
	}
	return "    "
}

// item starts an item of the open @graph array.
func (e *jsonldEncoder) item(b []byte) []byte {
	if !e.firstItem {
		b = append(b, ',')
	}
	e.firstItem = false
	return append(b, '\n')
}

func (e *jsonldEncoder) Encode(q kb.TermQuad) error {
	if e.closed {
		return errors.New("rdfio: JSON-LD encoder used after Close")
	}
	if err := jsonldCheck(q); err != nil {
		return err
	}
	e.header()
	b := e.buf[:0]
	if e.inGraph && q.G != e.graph || !e.inGraph && !q.G.IsZero() {
		b = e.closeNode(b)
		if e.inGraph {
			b = append(b, "\n      ]\n    }"...)
			e.inGraph, e.graphOff, e.firstItem = false, nil, false
		}
		if !q.G.IsZero() {
			b = e.item(b)
			b = append(b, "    {\n"...)
			e.graphOff = e.collisions(nil, q.G)
			if len(e.graphOff) > 0 {
				b = e.appendLocalContext(b, e.graphOff, "      ")
			}
			b = append(b, "      \"@id\": "...)
			b = e.appendID(b, q.G, e.graphOff)
			b = append(b, ",\n      \"@graph\": ["...)
			e.inGraph, e.graph, e.firstItem = true, q.G, true
		}
	}
	off := e.nodeOff
	if !e.inNode || q.S != e.subject {
		off = e.graphOff
	}
	extra := e.collisions(off, q.S, q.P, q.O)
	key := "@type"
	if q.P.Value != ontology.RDFType || q.O.Kind == kb.KindLiteral {
		key = q.P.Value
	}
	if !e.inNode || q.S != e.subject || len(extra) > 0 || (key != e.key && e.keys[key]) || len(e.ends) >= jsonldValueLimit {
		b = e.closeNode(b)
		if off2 := e.graphOff; !slices.Equal(off, off2) {
			// The new node object starts from the graph's context, so
			// the statement's collisions count from there: one the old
			// node had already turned off must be turned off again.
			extra = e.collisions(off2, q.S, q.P, q.O)
		}
		e.nodeOff = append(append([]string(nil), e.graphOff...), extra...)
		ind := e.indent()
		b = e.item(b)
		b = append(b, ind...)
		b = append(b, "{\n"...)
		if len(extra) > 0 {
			b = e.appendLocalContext(b, extra, ind+"  ")
		}
		b = append(b, ind...)
		b = append(b, "  \"@id\": "...)
		b = e.appendID(b, q.S, e.nodeOff)
		e.inNode, e.subject = true, q.S
		clear(e.keys)
	}
	if key != e.key {
		b = e.flushValues(b)
		e.key = key
		e.keys[key] = true
	}
	e.values = e.value(e.values, q.O, key == "@type")
	e.ends = append(e.ends, len(e.values))
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// value renders an object: a string for xsd:string, an IRI string for
// @type, else a value or node reference object.
func (e *jsonldEncoder) value(b []byte, o kb.Term, typ bool) []byte {
	off := e.nodeOff
	switch {
	case typ:
		return e.appendID(b, o, off)
	case o.Kind == kb.KindIRI || o.Kind == kb.KindBlank:
		b = append(b, "{\"@id\": "...)
		b = e.appendID(b, o, off)
		return append(b, '}')
	case o.Lang != "":
		b = append(b, "{\"@value\": "...)
		b = AppendJSONString(b, o.Value)
		b = append(b, ", \"@language\": "...)
		b = AppendJSONString(b, o.Lang)
		return append(b, '}')
	case o.Datatype == "" || o.Datatype == ontology.XSDString:
		return AppendJSONString(b, o.Value)
	}
	b = append(b, "{\"@value\": "...)
	b = AppendJSONString(b, o.Value)
	b = append(b, ", \"@type\": "...)
	b = e.appendIRI(b, o.Datatype, off)
	return append(b, '}')
}

// flushValues writes the held values of e.key.
func (e *jsonldEncoder) flushValues(b []byte) []byte {
	if e.key == "" {
		return b
	}
	b = append(b, ",\n"...)
	b = append(b, e.indent()...)
	b = append(b, "  "...)
	if e.key == "@type" {
		b = append(b, `"@type"`...)
	} else {
		b = e.appendIRI(b, e.key, e.nodeOff)
	}
	b = append(b, ": "...)
	if len(e.ends) == 1 {
		b = append(b, e.values...)
	} else {
		b = append(b, '[')
		start := 0
		for i, end := range e.ends {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, e.values[start:end]...)
			start = end
		}
		b = append(b, ']')
	}
	e.key, e.values, e.ends = "", e.values[:0], e.ends[:0]
	return b
}

// closeNode ends the open node object.
func (e *jsonldEncoder) closeNode(b []byte) []byte {
	if !e.inNode {
		return b
	}
	b = e.flushValues(b)
	b = append(b, '\n')
	b = append(b, e.indent()...)
	b = append(b, '}')
	e.inNode, e.nodeOff = false, nil
	return b
}

func (e *jsonldEncoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	e.header()
	b := e.closeNode(e.buf[:0])
	if e.inGraph {
		b = append(b, "\n      ]\n    }"...)
		e.inGraph, e.firstItem = false, false
	}
	if e.firstItem && !e.inGraph {
		b = append(b, "]\n}\n"...)
	} else {
		b = append(b, "\n  ]\n}\n"...)
	}
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.w.Flush()
}

// AppendJSONString appends s as a JSON string. It allocates nothing;
// '<', '>' and '&' are escaped (as encoding/json does) so that output can
// be embedded in HTML, U+2028 and U+2029 so that it is valid JavaScript,
// and invalid UTF-8 becomes U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendJSONContent(b, s)
	return append(b, '"')
}

// appendJSONContent appends s escaped as in a JSON string, without the
// quotes.
func appendJSONContent(b []byte, s string) []byte {
	// Runs of bytes that need no escape are copied whole: an answer of
	// millions of rows is mostly such runs, and appending byte by byte
	// was the largest cost of writing it.
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			default: // other controls, '<', '>', '&'
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigit[r&0xf])
			start = i + size
		}
		i += size
	}
	return append(b, s[start:]...)
}

// jsonPlain marks the ASCII bytes appendJSONContent copies as they are.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\\<>&` {
		t[c] = false
	}
	return t
}()

const hexDigit = "0123456789abcdef"

// jsonldCheck reports a statement whose IRIs a JSON-LD processor would not
// read back as themselves. JSON-LD takes IRIs to be RFC 3987 IRIs, and the
// reader (json-gold) treats a string Go's url.Parse rejects — a '%' not
// followed by two hex digits, a malformed host — as a relative IRI and
// resolves it against the base (where it fails), while N-Triples and
// Turtle allow such IRIs. Refusing them beats writing a document that
// reads back as another graph.
func jsonldCheck(q kb.TermQuad) error {
	if err := rdf11Only("JSON-LD", q); err != nil {
		return err
	}
	for _, t := range [...]kb.Term{q.S, q.P, q.O, q.G} {
		iri, ok := termIRI(t)
		if !ok {
			continue
		}
		if iri == "" || plainAbsoluteIRI(iri) {
			continue
		}
		if u, err := url.Parse(iri); err != nil || !u.IsAbs() {
			return fmt.Errorf("JSON-LD cannot write %v: a JSON-LD processor would read <%s> as a relative IRI (not an RFC 3987 absolute IRI)", t, iri)
		}
	}
	return nil
}

// plainAbsoluteIRI is the fast path of jsonldCheck: a scheme of letters
// and digits, then only characters url.Parse takes as they are in a path,
// query or fragment.
func plainAbsoluteIRI(iri string) bool {
	colon := strings.IndexByte(iri, ':')
	if colon < 1 || !isASCIILetter(iri[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		if c := iri[i]; !isASCIILetter(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	rest := iri[colon+1:]
	if strings.HasPrefix(rest, "//") {
		// A plain host name with an optional port; anything else (user
		// info, IP literals, escapes) goes to url.Parse.
		end := strings.IndexAny(rest[2:], "/?#")
		if end < 0 {
			end = len(rest) - 2
		}
		host, port, hasPort := strings.Cut(rest[2:2+end], ":")
		for i := 0; i < len(host); i++ {
			if c := host[i]; !isASCIILetter(c) && (c < '0' || c > '9') && c != '-' && c != '.' {
				return false
			}
		}
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return false
			}
		}
		if hasPort && port == "" {
			return false
		}
		rest = rest[2+end:]
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == '%' || c == '[' || c == ']' || c < 0x21 || c >= 0x7f {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// termIRI is the IRI a term writes in JSON-LD: an IRI's own, a literal's
// datatype; false for blank nodes.
func termIRI(t kb.Term) (string, bool) {
	switch t.Kind {
	case kb.KindIRI:
		return t.Value, true
	case kb.KindLiteral:
		return t.Datatype, true
	}
	return "", false
}
