package server

import (
	"bufio"
	"encoding/xml"
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/results"
)

// newSolutionsWriter returns the query/results writer for a SELECT or ASK
// result in f: the server writes SPARQL results through the same encoder
// as perfkb query, so HTTP and the CLI give the same bytes.
func newSolutionsWriter(f Format, w *bufio.Writer) (results.SolutionWriter, error) {
	rf, ok := resultsFormats[f]
	if !ok {
		return nil, fmt.Errorf("%s is not a SPARQL results format", f)
	}
	return results.NewSolutionWriter(w, rf)
}

// resultsFormats maps the negotiated formats to query/results formats.
var resultsFormats = map[Format]results.Format{
	FormatJSON: results.JSON,
	FormatXML:  results.XML,
	FormatCSV:  results.CSV,
	FormatTSV:  results.TSV,
}

// newGraphResultWriter returns the writer for a CONSTRUCT or DESCRIBE
// result: query/results' graph writer (the kb/rdfio encoders, as perfkb
// query uses) for N-Triples, Turtle, N-Quads and RDF/XML, so HTTP and the
// CLI give the same bytes; the server's own writer for JSON-LD.
func newGraphResultWriter(f Format, w *bufio.Writer) tripleWriter {
	rf, ok := graphResultsFormats[f]
	if !ok {
		return newTripleWriter(f, w)
	}
	return &resultsGraphWriter{f: rf, w: w}
}

var graphResultsFormats = map[Format]results.Format{
	FormatNTriples: results.NTriples,
	FormatTurtle:   results.Turtle,
	FormatNQuads:   results.NQuads,
	FormatRDFXML:   results.RDFXML,
}

// resultsGraphWriter adapts results.GraphWriter to tripleWriter; a
// CONSTRUCT result is one graph, so the graph argument is ignored.
type resultsGraphWriter struct {
	f  results.Format
	w  *bufio.Writer
	gw results.GraphWriter
}

func (r *resultsGraphWriter) begin() (err error) {
	r.gw, err = results.NewGraphWriter(r.w, r.f)
	return err
}

func (r *resultsGraphWriter) quad(t kb.Triple, _ kb.Term) error { return r.gw.Triple(t) }

func (r *resultsGraphWriter) end() error { return r.gw.Close() }

// appendJSONString appends s as a JSON string (the results encoder's).
func appendJSONString(b []byte, s string) []byte { return results.AppendJSONString(b, s) }

// xmlEscape writes s as XML character data (also safe in attributes).
func xmlEscape(w *bufio.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s))
}
