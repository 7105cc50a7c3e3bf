package rdfio

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Encoder writes statements in an RDF syntax. Close flushes the output
// (and ends an open block or document); it does not close the writer.
type Encoder interface {
	Encode(q kb.TermQuad) error
	Close() error
}

// Prefix is a namespace prefix an encoder may abbreviate IRIs with.
type Prefix struct{ Prefix, Namespace string }

// EncoderOptions configure an encoder.
type EncoderOptions struct {
	// Prefixes are declared at the top of Turtle and TriG output and
	// used to abbreviate IRIs; nil means CommonPrefixes.
	Prefixes []Prefix
}

// CommonPrefixes are the namespaces perfkb data uses most: the one
// prefix table, ontology.CommonPrefixes.
var CommonPrefixes = commonPrefixes()

func commonPrefixes() []Prefix {
	var out []Prefix
	for _, p := range ontology.CommonPrefixes() {
		out = append(out, Prefix{p.Prefix, p.Namespace})
	}
	return out
}

// SafeBlankLabel returns label if it is a valid N-Triples and Turtle blank
// node label, else an encoding of it that is (distinct labels stay
// distinct: labels starting with "x_" are encoded too).
func SafeBlankLabel(label string) string {
	ok := label != "" && !strings.HasSuffix(label, ".")
	for i, r := range label {
		if !ok {
			break
		}
		if i == 0 {
			ok = ntLabelStart(r) && r != '.'
		} else {
			ok = ntLabelChar(r) && r != 0xB7
		}
	}
	if ok && !strings.HasPrefix(label, "x_") {
		return label
	}
	var b strings.Builder
	b.WriteString("x_")
	for _, c := range []byte(label) {
		fmt.Fprintf(&b, "%02x", c)
	}
	return b.String()
}

// appendSafe writes t in N-Triples syntax with a safe blank node label.
func appendSafe[W kb.TextWriter](b W, t kb.Term) {
	switch t.Kind {
	case kb.KindBlank:
		b.WriteString("_:")
		b.WriteString(SafeBlankLabel(t.Value))
		return
	case kb.KindTriple:
		if tr, ok := t.Triple(); ok && strings.Contains(t.Value, "_:") {
			b.WriteString("<<( ")
			appendSafe(b, tr.S)
			b.WriteByte(' ')
			appendSafe(b, tr.P)
			b.WriteByte(' ')
			appendSafe(b, tr.O)
			b.WriteString(" )>>")
			return
		}
	}
	kb.AppendTerm(b, t)
}

// bufferOf returns the buffer an encoder writes through: w itself when it
// is a *bufio.Writer of at least 4 KiB (a server's response stream, which
// then sees the output as it is written and is not copied into a second
// buffer), else a 64 KiB buffer over w.
func bufferOf(w io.Writer) *bufio.Writer {
	if bw, ok := w.(*bufio.Writer); ok && bw.Size() >= 4<<10 {
		return bw
	}
	return bufio.NewWriterSize(w, 64<<10)
}

// lineEncoder writes N-Triples or N-Quads, straight into its buffer.
type lineEncoder struct {
	w     *bufio.Writer
	quads bool
}

// NewNTriplesEncoder writes N-Triples (graphs are dropped).
func NewNTriplesEncoder(w io.Writer, _ EncoderOptions) Encoder {
	return &lineEncoder{w: bufferOf(w)}
}

// NewNQuadsEncoder writes N-Quads (a zero G is the default graph).
func NewNQuadsEncoder(w io.Writer, _ EncoderOptions) Encoder {
	return &lineEncoder{w: bufferOf(w), quads: true}
}

func (e *lineEncoder) Encode(q kb.TermQuad) error {
	appendSafe(e.w, q.S)
	e.w.WriteByte(' ')
	appendSafe(e.w, q.P)
	e.w.WriteByte(' ')
	appendSafe(e.w, q.O)
	if e.quads && !q.G.IsZero() {
		e.w.WriteByte(' ')
		appendSafe(e.w, q.G)
	}
	// A write error sticks in the buffer: every later write returns it.
	_, err := e.w.WriteString(" .\n")
	return err
}

func (e *lineEncoder) Close() error { return e.w.Flush() }

// turtleEncoder writes Turtle or TriG, grouping consecutive statements
// with the same subject (';') and predicate (','); in TriG, consecutive
// statements of one graph share a block. Sorted input gives the most
// compact output; any order is correct.
type turtleEncoder struct {
	w        *bufio.Writer
	trig     bool
	prefixes []Prefix
	started  bool
	open     bool // a statement is open (needs " .")
	inBlock  bool
	last     kb.TermQuad
}

// NewTurtleEncoder writes Turtle (graphs are dropped).
func NewTurtleEncoder(w io.Writer, opts EncoderOptions) Encoder {
	p := opts.Prefixes
	if p == nil {
		p = CommonPrefixes
	}
	return &turtleEncoder{w: bufferOf(w), prefixes: p}
}

// NewTriGEncoder writes TriG.
func NewTriGEncoder(w io.Writer, opts EncoderOptions) Encoder {
	e := NewTurtleEncoder(w, opts).(*turtleEncoder)
	e.trig = true
	return e
}

func (e *turtleEncoder) header() {
	if e.started {
		return
	}
	e.started = true
	for _, p := range e.prefixes {
		fmt.Fprintf(e.w, "@prefix %s: <%s> .\n", p.Prefix, p.Namespace)
	}
}

func (e *turtleEncoder) Encode(q kb.TermQuad) error {
	e.header()
	if !e.trig {
		q.G = kb.Term{}
	}
	newGraph := e.trig && (!e.inBlock || q.G != e.last.G)
	newSubject := newGraph || !e.open || q.S != e.last.S
	newPredicate := newSubject || q.P != e.last.P
	indent := ""
	if e.trig {
		indent = "    "
	}
	switch {
	case newSubject:
		if e.open {
			e.w.WriteString(" .\n")
		}
		if newGraph {
			if e.inBlock {
				e.w.WriteString("}\n")
			}
			e.w.WriteByte('\n')
			if !q.G.IsZero() {
				e.term(q.G, false)
				e.w.WriteByte(' ')
			}
			e.w.WriteString("{\n")
			e.inBlock = true
		} else {
			e.w.WriteByte('\n')
		}
		e.w.WriteString(indent)
		e.term(q.S, false)
		e.w.WriteByte(' ')
	case newPredicate:
		e.w.WriteString(" ;\n    ")
		e.w.WriteString(indent)
	default:
		e.w.WriteString(" ,\n        ")
		e.w.WriteString(indent)
	}
	if newPredicate {
		e.term(q.P, true)
		e.w.WriteByte(' ')
	}
	e.term(q.O, false)
	e.open, e.last = true, q
	_, err := e.w.WriteString("") // the buffer's sticky error, if any
	return err
}

func (e *turtleEncoder) Close() error {
	e.header()
	if e.open {
		e.w.WriteString(" .\n")
	}
	if e.inBlock {
		e.w.WriteString("}\n")
	}
	e.open, e.inBlock = false, false
	return e.w.Flush()
}

// term writes a term, abbreviated where Turtle allows.
func (e *turtleEncoder) term(t kb.Term, predicate bool) {
	b := e.w
	switch t.Kind {
	case kb.KindIRI:
		if predicate && t.Value == ontology.RDFType {
			b.WriteByte('a')
			return
		}
		if e.writePrefixedName(t.Value) {
			return
		}
	case kb.KindTriple:
		if tr, ok := t.Triple(); ok {
			b.WriteString("<<( ")
			e.term(tr.S, false)
			b.WriteByte(' ')
			e.term(tr.P, false)
			b.WriteByte(' ')
			e.term(tr.O, false)
			b.WriteString(" )>>")
			return
		}
	case kb.KindLiteral:
		if t.Lang == "" && t.Datatype != ontology.XSDString {
			b.WriteByte('"')
			kb.EscapeString(b, t.Value)
			b.WriteString(`"^^`)
			if !e.writePrefixedName(t.Datatype) {
				kb.AppendTerm(b, kb.Term{Kind: kb.KindIRI, Value: t.Datatype})
			}
			return
		}
	}
	appendSafe(b, t)
}

// writePrefixedName writes iri abbreviated with a declared prefix when
// the local part is a plain name, and reports whether it did.
func (e *turtleEncoder) writePrefixedName(iri string) bool {
	for _, p := range e.prefixes {
		local, ok := strings.CutPrefix(iri, p.Namespace)
		if !ok || local == "" {
			continue
		}
		for i, r := range local {
			alpha := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
			if !(alpha || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
				return false
			}
		}
		e.w.WriteString(p.Prefix)
		e.w.WriteByte(':')
		e.w.WriteString(local)
		return true
	}
	return false
}

// splitPredicate splits an IRI into a namespace and the longest XML name
// (NCName) that ends it.
func splitPredicate(iri string) (ns, local string, ok bool) {
	i := len(iri)
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(iri[:i])
		if !(r == '_' || r == '-' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			break
		}
		i -= w
	}
	// The name must start with a letter or '_'.
	for i < len(iri) {
		r, w := utf8.DecodeRuneInString(iri[i:])
		if r == '_' || unicode.IsLetter(r) {
			break
		}
		i += w
	}
	if i == len(iri) || i == 0 {
		return "", "", false
	}
	return iri[:i], iri[i:], true
}

// xmlNodeID makes a blank node label an NCName, keeping distinct labels
// distinct.
func xmlNodeID(label string) string {
	if isNCName(label) && !strings.HasPrefix(label, "x_") {
		return label
	}
	var b strings.Builder
	b.WriteString("x_")
	for _, c := range []byte(label) {
		fmt.Fprintf(&b, "%02x", c)
	}
	return b.String()
}
