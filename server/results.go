package server

import (
	"bufio"
	"encoding/xml"
	"fmt"

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

// appendJSONString appends s as a JSON string (the results encoder's).
func appendJSONString(b []byte, s string) []byte { return results.AppendJSONString(b, s) }

// xmlEscape writes s as XML character data (also safe in attributes).
func xmlEscape(w *bufio.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s))
}
