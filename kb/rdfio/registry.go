package rdfio

import (
	"io"
	"path"
	"strings"
)

// Format describes one RDF syntax: its names, media types and file
// extensions, whether it carries named graphs, and its codec.
type Format struct {
	// Name is the canonical name (NTriples, NQuads, Turtle, TriG,
	// RDFXML, JSONLD), what LoadOptions.Format and ExportOptions.Format
	// name.
	Name string
	// Label is the name people write (N-Triples, Turtle …).
	Label string
	// Aliases are other names users give it.
	Aliases []string
	// MediaTypes, the preferred one first.
	MediaTypes []string
	// Extensions, with the dot, the preferred one first.
	Extensions []string
	// Quads is set when the syntax carries named graphs.
	Quads bool
	// NewDecoder reads the syntax.
	NewDecoder func(r io.Reader, opts Options) Decoder
	// NewEncoder writes it.
	NewEncoder func(w io.Writer, opts EncoderOptions) Encoder
}

var registry = []*Format{
	{Name: NTriples, Label: "N-Triples", Aliases: []string{"n-triples", "nt"},
		MediaTypes: []string{"application/n-triples", "text/plain"}, Extensions: []string{".nt", ".ntriples"},
		NewDecoder: func(r io.Reader, o Options) Decoder { return NewNTriplesDecoder(r, o) }, NewEncoder: NewNTriplesEncoder},
	{Name: NQuads, Label: "N-Quads", Aliases: []string{"n-quads", "nq"},
		MediaTypes: []string{"application/n-quads", "text/x-nquads"}, Extensions: []string{".nq", ".nquads"}, Quads: true,
		NewDecoder: func(r io.Reader, o Options) Decoder { return NewNQuadsDecoder(r, o) }, NewEncoder: NewNQuadsEncoder},
	{Name: Turtle, Label: "Turtle", Aliases: []string{"ttl"},
		MediaTypes: []string{"text/turtle", "application/x-turtle"}, Extensions: []string{".ttl", ".turtle"},
		NewDecoder: func(r io.Reader, o Options) Decoder { return NewTurtleDecoder(r, o) }, NewEncoder: NewTurtleEncoder},
	{Name: TriG, Label: "TriG", MediaTypes: []string{"application/trig"}, Extensions: []string{".trig"}, Quads: true,
		NewDecoder: func(r io.Reader, o Options) Decoder { return NewTriGDecoder(r, o) }, NewEncoder: NewTriGEncoder},
	{Name: RDFXML, Label: "RDF/XML", Aliases: []string{"rdf/xml", "rdf-xml", "xml", "rdf", "owl"},
		MediaTypes: []string{"application/rdf+xml"}, Extensions: []string{".rdf", ".owl", ".xml", ".rdfxml"},
		NewDecoder: func(r io.Reader, o Options) Decoder { return NewRDFXMLDecoder(r, o) }, NewEncoder: NewRDFXMLEncoder},
}

// Formats returns every registered format.
func Formats() []*Format { return append([]*Format(nil), registry...) }

// Lookup finds a format by canonical name, alias, label or media type
// (parameters such as "; charset=utf-8" ignored), case-insensitively.
func Lookup(name string) (*Format, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if i := strings.IndexByte(name, ';'); i >= 0 {
		name = strings.TrimSpace(name[:i])
	}
	for _, f := range registry {
		if name == f.Name || name == strings.ToLower(f.Label) {
			return f, true
		}
		for _, a := range f.Aliases {
			if name == a {
				return f, true
			}
		}
		for _, m := range f.MediaTypes {
			if name == m {
				return f, true
			}
		}
	}
	return nil, false
}

// ByMediaType finds a format by media type only.
func ByMediaType(mediaType string) (*Format, bool) {
	mt := strings.ToLower(strings.TrimSpace(mediaType))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	for _, f := range registry {
		for _, m := range f.MediaTypes {
			if mt == m {
				return f, true
			}
		}
	}
	return nil, false
}

// ByFileName finds a format from a file name's extension, ignoring a
// trailing .gz.
func ByFileName(name string) (*Format, bool) {
	name = strings.TrimSuffix(strings.ToLower(name), ".gz")
	ext := path.Ext(strings.ReplaceAll(name, "\\", "/"))
	for _, f := range registry {
		for _, e := range f.Extensions {
			if ext == e {
				return f, true
			}
		}
	}
	return nil, false
}

// Names returns the canonical names, for messages.
func Names() []string {
	var n []string
	for _, f := range registry {
		n = append(n, f.Name)
	}
	return n
}
