package rdfio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/piprate/json-gold/ld"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// JSON-LD 1.1 through github.com/piprate/json-gold, the maintained Go
// implementation of the JSON-LD API (expansion, compaction, toRdf, fromRdf).
// v0.7.0 is the newest release that does not require cayleygraph/quad
// v1.3, which breaks the cayley v0.7.7 backend this module builds.
//
// The decoder is not streamed: a JSON document is one value, so it reads
// the whole input. The encoder (jsonld_encode.go) streams. Remote contexts are never fetched (perfkb reads nothing from
// the network while loading); a document that needs one is an error that
// says to inline the context.

func init() {
	registry = append(registry, &Format{
		Name: JSONLD, Label: "JSON-LD", Aliases: []string{"json-ld"},
		MediaTypes: []string{"application/ld+json"}, Extensions: []string{".jsonld"}, Quads: true,
		NewDecoder: func(r io.Reader, o Options) Decoder { return NewJSONLDDecoder(r, o) },
		NewEncoder: NewJSONLDEncoder,
	})
}

// JSONLDDecoder reads a JSON-LD document (JSON-LD 1.1 toRdf). Blank nodes
// get the labels the toRdf algorithm issues (b0, b1 … in document order).
type JSONLDDecoder struct {
	r    io.Reader
	opts Options
	out  []kb.TermQuad
	err  error
	done bool
}

// NewJSONLDDecoder returns a decoder of the JSON-LD document r.
func NewJSONLDDecoder(r io.Reader, opts Options) *JSONLDDecoder {
	return &JSONLDDecoder{r: r, opts: opts}
}

// Next implements Decoder.
func (d *JSONLDDecoder) Next() (kb.TermQuad, error) {
	if !d.done {
		d.done = true
		d.out, d.err = d.decode()
	}
	if d.err != nil {
		return kb.TermQuad{}, d.err
	}
	if len(d.out) == 0 {
		return kb.TermQuad{}, io.EOF
	}
	q := d.out[0]
	d.out = d.out[1:]
	return q, nil
}

func (d *JSONLDDecoder) decode() (out []kb.TermQuad, err error) {
	// The package promises no panic on any input; json-gold is not ours,
	// so a panic in it becomes an error about the document.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, syntaxError(d.opts.Source, 0, 0, fmt.Sprintf("JSON-LD: the processor failed on this document: %v", r))
		}
	}()
	data, err := io.ReadAll(d.r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, d.jsonError(data, err)
	}
	opts := ld.NewJsonLdOptions(d.opts.Base)
	opts.DocumentLoader = noRemoteContexts{}
	res, err := ld.NewJsonLdProcessor().ToRDF(doc, opts)
	if err != nil {
		return nil, &textpos.Error{Pos: textpos.Position{Source: d.opts.Source}, Msg: "JSON-LD: " + jsonldMessage(err), Err: err}
	}
	ds, ok := res.(*ld.RDFDataset)
	if !ok {
		return nil, fmt.Errorf("%s: JSON-LD processor returned %T", d.opts.Source, res)
	}
	// The default graph first, then the named graphs by name, so that the
	// order does not depend on map iteration.
	names := make([]string, 0, len(ds.Graphs))
	for name := range ds.Graphs {
		if name != "@default" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	names = append([]string{"@default"}, names...)
	for _, name := range names {
		var g kb.Term
		if name != "@default" {
			g = fromJSONLDNode(graphNode(name))
		}
		for _, q := range ds.Graphs[name] {
			st := kb.TermQuad{S: fromJSONLDNode(q.Subject), P: fromJSONLDNode(q.Predicate), O: fromJSONLDNode(q.Object), G: g}
			// JSON-LD 1.1 toRdf leaves out statements with an IRI
			// that is not well-formed; json-gold drops relative
			// IRIs but keeps e.g. ones with control characters.
			if wellFormed(st.S) && wellFormed(st.P) && wellFormed(st.O) && wellFormed(st.G) {
				out = append(out, st)
			}
		}
	}
	return out, nil
}

// jsonError positions a JSON syntax error at its line and column.
func (d *JSONLDDecoder) jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	offset := int64(-1)
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	if offset < 0 {
		return &textpos.Error{Pos: textpos.Position{Source: d.opts.Source}, Msg: "JSON: " + err.Error(), Err: err}
	}
	offset = min(offset, int64(len(data))) // a value at the very end reports one past it
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len([]rune(string(before[bytes.LastIndexByte(before, '\n')+1:])))
	return &textpos.Error{Pos: textpos.Position{Source: d.opts.Source, Line: line, Column: max(col, 1)}, Msg: "JSON: " + err.Error(), Err: err}
}

// wellFormed reports whether a term's IRI (or a literal's datatype IRI)
// is absolute and has none of the characters IRIs exclude (RFC 3987:
// controls, space, <>"{}|^`\).
func wellFormed(t kb.Term) bool { return kb.CheckTermIRIs(t.Kind, t.Value, t.Datatype) == nil }

func jsonldMessage(err error) string {
	var e *ld.JsonLdError
	if errors.As(err, &e) {
		if e.Details != nil {
			return fmt.Sprintf("%s: %v", e.Code, e.Details)
		}
		return string(e.Code)
	}
	return err.Error()
}

func graphNode(name string) ld.Node {
	if label, ok := strings.CutPrefix(name, "_:"); ok {
		return ld.NewBlankNode("_:" + label)
	}
	return ld.NewIRI(name)
}

func fromJSONLDNode(n ld.Node) kb.Term {
	switch v := n.(type) {
	case ld.IRI:
		return kb.Term{Kind: kb.KindIRI, Value: v.Value}
	case *ld.IRI:
		return kb.Term{Kind: kb.KindIRI, Value: v.Value}
	case ld.BlankNode:
		return kb.Term{Kind: kb.KindBlank, Value: strings.TrimPrefix(v.Attribute, "_:")}
	case *ld.BlankNode:
		return kb.Term{Kind: kb.KindBlank, Value: strings.TrimPrefix(v.Attribute, "_:")}
	case ld.Literal:
		return jsonldLiteral(v)
	case *ld.Literal:
		return jsonldLiteral(*v)
	}
	return kb.Term{}
}

func jsonldLiteral(l ld.Literal) kb.Term {
	if l.Language != "" {
		return kb.LangLiteral(l.Value, l.Language)
	}
	dt := l.Datatype
	if dt == "" {
		dt = ontology.XSDString
	}
	return kb.Term{Kind: kb.KindLiteral, Value: l.Value, Datatype: dt}
}

// noRemoteContexts is the document loader: it loads nothing.
type noRemoteContexts struct{}

func (noRemoteContexts) LoadDocument(u string) (*ld.RemoteDocument, error) {
	return nil, ld.NewJsonLdError(ld.LoadingRemoteContextFailed,
		fmt.Sprintf("remote context %s is not fetched (perfkb reads nothing from the network): inline the context in the document", u))
}
