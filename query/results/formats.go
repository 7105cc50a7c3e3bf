package results

import (
	"bufio"
	"io"
	"strings"

	"github.com/perfkb/perfkb/kb/rdfio"
)

// Spec describes one SPARQL results serialization for SELECT and ASK:
// its names and media types, its writer and (for the standard formats)
// its reader. The table of specs is the one place perfkb names results
// formats: the CLI's --format, the server's content negotiation and the
// federation client's reading of a site's answer all look them up here.
type Spec struct {
	// Format is the canonical name (json, xml, csv, tsv, table).
	Format Format
	// Label is the name people write.
	Label string
	// Names are other names users give it (the ?format= values).
	Names []string
	// MediaTypes, the registered one first; the others select the
	// format too (application/json for JSON). Table has none.
	MediaTypes []string
	// Read decodes a whole document; nil for Table.
	Read      func(io.Reader) (*ResultSet, error)
	newWriter func(*bufio.Writer) SolutionWriter
}

var specs = []*Spec{
	{Format: JSON, Label: "SPARQL Results JSON", Names: []string{"srj"},
		MediaTypes: []string{"application/sparql-results+json", "application/json"}, Read: ReadJSON,
		newWriter: func(w *bufio.Writer) SolutionWriter { return &jsonWriter{w: w} }},
	{Format: XML, Label: "SPARQL Results XML", Names: []string{"srx"},
		MediaTypes: []string{"application/sparql-results+xml", "application/xml", "text/xml"}, Read: ReadXML,
		newWriter: func(w *bufio.Writer) SolutionWriter { return &xmlWriter{w: w} }},
	{Format: CSV, Label: "SPARQL Results CSV", MediaTypes: []string{"text/csv"}, Read: ReadCSV,
		newWriter: func(w *bufio.Writer) SolutionWriter { return &csvWriter{w: w} }},
	{Format: TSV, Label: "SPARQL Results TSV", MediaTypes: []string{"text/tab-separated-values"}, Read: ReadTSV,
		newWriter: func(w *bufio.Writer) SolutionWriter { return &tsvWriter{w: w} }},
	{Format: Table, Label: "table",
		newWriter: func(w *bufio.Writer) SolutionWriter { return &tableWriter{w: w} }},
}

// Formats returns the results formats for SELECT and ASK.
func Formats() []*Spec { return append([]*Spec(nil), specs...) }

// Lookup finds a results format by canonical name, other name or media
// type (parameters such as "; charset=utf-8" ignored), case-insensitively.
func Lookup(name string) (*Spec, bool) {
	name = mediaTypeOnly(name)
	for _, s := range specs {
		if name == string(s.Format) || name == strings.ToLower(s.Label) {
			return s, true
		}
		for _, n := range s.Names {
			if name == n {
				return s, true
			}
		}
		for _, m := range s.MediaTypes {
			if name == m {
				return s, true
			}
		}
	}
	return nil, false
}

// ByMediaType finds a results format by media type only.
func ByMediaType(mediaType string) (*Spec, bool) {
	mt := mediaTypeOnly(mediaType)
	for _, s := range specs {
		for _, m := range s.MediaTypes {
			if mt == m {
				return s, true
			}
		}
	}
	return nil, false
}

// mediaTypeOnly lower-cases a name or media type and drops parameters.
func mediaTypeOnly(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// ContentType returns the Content-Type of a format: the registered media
// type of a results format (text ones with charset=utf-8), of an RDF
// syntax from kb/rdfio's registry, and text/plain for the table.
func (f Format) ContentType() string {
	var mt []string
	if s, ok := Lookup(string(f)); ok && s.Format == f {
		mt = s.MediaTypes
	} else if rf, ok := rdfio.Lookup(string(f)); ok && rf.Name == string(f) {
		mt = rf.MediaTypes
	}
	switch {
	case len(mt) == 0:
		return "text/plain; charset=utf-8"
	case strings.HasPrefix(mt[0], "text/"):
		return mt[0] + "; charset=utf-8"
	}
	return mt[0]
}
