package server

import (
	"bufio"
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/results"
)

// newSolutionsWriter returns the query/results writer for a SELECT or ASK
// result in f: the server writes SPARQL results through the same encoder
// as perfkb query, so HTTP and the CLI give the same bytes.
func newSolutionsWriter(f Format, w *bufio.Writer) (results.SolutionWriter, error) {
	s, ok := f.resultsSpec()
	if !ok {
		return nil, fmt.Errorf("%s is not a SPARQL results format", f)
	}
	return results.NewSolutionWriter(w, s.Format)
}

// PerfontoNS is the PERFONTO namespace (ontology.Namespace), for tests
// and the query page.
const PerfontoNS = ontology.Namespace

// tripleWriter writes an RDF graph in a negotiated format through the
// kb/rdfio encoder of that format, the one encoder perfkb has for each RDF
// syntax (perfkb query and perfkb export use it too, so HTTP and the CLI
// write the same bytes).
type tripleWriter struct {
	f     Format
	w     *bufio.Writer
	extra []rdfio.Prefix
	enc   rdfio.Encoder
}

// newTripleWriter returns a writer of f; extra prefixes are declared after
// the common ones (Turtle, RDF/XML, JSON-LD).
func newTripleWriter(f Format, w *bufio.Writer, extra ...rdfio.Prefix) *tripleWriter {
	return &tripleWriter{f: f, w: w, extra: extra}
}

// newGraphResultWriter returns the writer for a CONSTRUCT or DESCRIBE
// result.
func newGraphResultWriter(f Format, w *bufio.Writer) *tripleWriter { return newTripleWriter(f, w) }

func (t *tripleWriter) begin() error {
	rf, ok := t.f.rdfFormat()
	if !ok || rf.NewEncoder == nil {
		return fmt.Errorf("%s is not an RDF format", t.f)
	}
	var opts rdfio.EncoderOptions
	if len(t.extra) > 0 {
		opts.Prefixes = append(append([]rdfio.Prefix(nil), rdfio.CommonPrefixes...), t.extra...)
	}
	t.enc = rf.NewEncoder(t.w, opts)
	return nil
}

// quad writes one triple; graph is kept by quad formats only.
func (t *tripleWriter) quad(tr kb.Triple, graph kb.Term) error {
	q := kb.TermQuad{S: tr.S, P: tr.P, O: tr.O}
	if graph != kb.DefaultGraph {
		q.G = graph // the encoders write a zero G as the default graph
	}
	return t.enc.Encode(q)
}

func (t *tripleWriter) end() error { return t.enc.Close() }
