package graphstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// ErrUnsupportedFormat is returned for an upload in a syntax the store
// cannot read.
var ErrUnsupportedFormat = errors.New("unsupported RDF format")

// GraphInfo describes one graph of the store.
type GraphInfo struct {
	IRI     string `json:"iri"`
	Triples int64  `json:"triples"`
}

// GraphChange reports what a Graph Store write did. For a replace, Added
// is the graph's new size; for an append it is the number of statements
// the request carried (triples already stored included).
type GraphChange struct {
	Graph   string `json:"graph"`
	Added   int64  `json:"added"`
	Removed int64  `json:"removed"`
	Created bool   `json:"created"`
}

// RDFSource is an RDF document to read into a graph.
type RDFSource struct {
	Body io.Reader
	// Format is the rdfio format name of Body (rdfio.NTriples, …).
	Format string
	// Name identifies the source in error messages (e.g. "request body").
	Name string
	// BaseIRI resolves relative IRIs in the document.
	BaseIRI string
	// Size is the document's length in bytes when known (Content-Length),
	// otherwise 0 or negative; stores use it to size their buffers.
	Size int64
	// Statements, when set, reads Body instead of Format's decoder: it
	// returns a function giving one statement per call and io.EOF at the
	// end (Graph Store Protocol 5.5: a multipart body of several
	// documents, read as one). It is called once, on the received body.
	Statements func(body io.Reader) func() (kb.TermQuad, error)
}

// Load reads the source from body (its Body, or a copy of it) into ds with
// rdfio; a Statements source is streamed into one rdfio.LoadQuads.
func (src RDFSource) Load(ctx context.Context, ds kb.Dataset, body io.Reader, opts rdfio.LoadOptions) (rdfio.LoadSummary, error) {
	opts.SourceName, opts.BaseIRI = src.Name, src.BaseIRI
	if src.Statements != nil {
		return rdfio.LoadQuads(ctx, ds, src.Statements(body), opts)
	}
	f, ok := rdfio.Lookup(src.Format)
	if !ok || f.Name != src.Format {
		return rdfio.LoadSummary{}, fmt.Errorf("%w: %q", ErrUnsupportedFormat, src.Format)
	}
	opts.Format = f.Name
	return rdfio.Load(ctx, ds, body, opts)
}
