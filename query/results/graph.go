package results

import (
	"fmt"
	"io"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// JSONLD is JSON-LD for CONSTRUCT and DESCRIBE results (rdfio's
// streamed encoder: a @context with the common prefixes and one node
// object per subject).
const JSONLD Format = "jsonld"

// GraphWriter streams the triples of a CONSTRUCT or DESCRIBE result.
// Close flushes (and ends the document); it does not close the writer.
type GraphWriter interface {
	Triple(t kb.Triple) error
	Close() error
}

// IsGraphFormat reports whether f holds RDF graphs (CONSTRUCT, DESCRIBE)
// rather than solutions.
func IsGraphFormat(f Format) bool {
	switch f {
	case NTriples, Turtle, NQuads, RDFXML, JSONLD:
		return true
	}
	return false
}

// NewGraphWriter returns a writer for f (ntriples, turtle, nquads,
// rdfxml, jsonld). It writes through the kb/rdfio encoder of the format, the one
// encoder perfkb has for each RDF syntax (rdfio.Export uses it too), with its
// common prefixes in Turtle. Triples are written in the order given; the
// CLI and the server give the engine's order, so they write the same bytes.
func NewGraphWriter(w io.Writer, f Format) (GraphWriter, error) {
	if !IsGraphFormat(f) {
		return nil, fmt.Errorf("results: unsupported graph format %q", f)
	}
	rf, ok := rdfio.Lookup(string(f))
	if !ok {
		return nil, fmt.Errorf("results: no RDF encoder for %q", f)
	}
	return graphWriter{rf.NewEncoder(w, rdfio.EncoderOptions{})}, nil
}

type graphWriter struct{ enc rdfio.Encoder }

func (g graphWriter) Triple(t kb.Triple) error {
	// No graph: the default graph (N-Quads writes a triple line).
	return g.enc.Encode(kb.TermQuad{S: t.S, P: t.P, O: t.O})
}

func (g graphWriter) Close() error { return g.enc.Close() }

// WriteGraph writes triples in f (ntriples when f is empty) with
// NewGraphWriter.
func WriteGraph(w io.Writer, f Format, triples []kb.Triple) error {
	if f == "" {
		f = NTriples
	}
	gw, err := NewGraphWriter(w, f)
	if err != nil {
		return err
	}
	for _, t := range triples {
		if err := gw.Triple(t); err != nil {
			return err
		}
	}
	return gw.Close()
}
