package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/server/graphstore"
)

// directGraph reads direct graph identification (Graph Store Protocol
// 4.1): a request to /data/SOMETHING names the graph whose IRI is that
// request's URL, http(s)://PUBLIC-BASE/data/SOMETHING. ok is false for a
// request to /data itself.
func (s *Server) directGraph(c *gin.Context) (kb.Term, bool) {
	rest := c.Param("graph")
	if rest == "" || rest == "/" {
		return kb.Term{}, false
	}
	base, _ := s.publicBase.Load().(string)
	if base == "" {
		base = "http://localhost"
	}
	// The escaped path: the IRI is the URL as the client wrote it, so
	// that /data/a%20b and a graph=…%20b name the same graph.
	return kb.IRI(strings.TrimSuffix(base, "/") + c.Request.URL.EscapedPath()), true
}

// multipartSource is the source of a multipart/form-data body (Graph
// Store Protocol 5.5: a POST of several RDF documents), which the store
// adds as one atomic write (graphstore.RDFSource.Statements).
func multipartSource(body io.Reader, contentType, base string) (graphstore.RDFSource, error) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return graphstore.RDFSource{}, newAPIError(ErrorBadData, "multipart/form-data without a boundary")
	}
	boundary := params["boundary"]
	return graphstore.RDFSource{Body: body, Name: "request body", BaseIRI: base,
		Statements: func(r io.Reader) func() (kb.TermQuad, error) { return multipartQuads(r, boundary, base) }}, nil
}

// multipartQuads streams the statements of a multipart body's parts, one
// part after the other, for rdfio.LoadQuads. Each part is parsed in the
// syntax of its Content-Type (or its file name's extension); blank node
// labels are kept apart per part, as each part is a document of its own.
// A part that does not parse fails the whole load.
func multipartQuads(body io.Reader, boundary, base string) func() (kb.TermQuad, error) {
	mr := multipart.NewReader(body, boundary)
	var dec rdfio.Decoder
	parts := 0
	return func() (kb.TermQuad, error) {
		for {
			if dec == nil {
				part, err := mr.NextPart()
				if errors.Is(err, io.EOF) {
					if parts == 0 {
						return kb.TermQuad{}, newAPIError(ErrorBadData, "the multipart body has no parts")
					}
					return kb.TermQuad{}, io.EOF
				}
				if err != nil {
					return kb.TermQuad{}, newAPIError(ErrorBadData, "multipart body: %v", err)
				}
				parts++
				name := part.FileName()
				if name == "" {
					name = part.FormName()
				}
				label := fmt.Sprintf("part %d (%s)", parts, name)
				f, ok := partFormat(part)
				if !ok {
					return kb.TermQuad{}, &apiError{typ: ErrorUnsupported, err: fmt.Errorf("%s: unsupported Content-Type %q: send one of %s", label, part.Header.Get("Content-Type"), offeredMediaTypes(rdfInputFormats))}
				}
				dec = f.NewDecoder(part, rdfio.Options{Base: base, Source: label})
			}
			q, err := dec.Next()
			if errors.Is(err, io.EOF) {
				dec = nil
				continue
			}
			if err != nil {
				return kb.TermQuad{}, err
			}
			q.S, q.O, q.G = partBlank(q.S, parts), partBlank(q.O, parts), kb.Term{}
			return q, nil
		}
	}
}

// partFormat finds a part's RDF syntax among those the Graph Store reads.
func partFormat(part *multipart.Part) (*rdfio.Format, bool) {
	if ct := part.Header.Get("Content-Type"); ct != "" {
		if f, ok := formatByMediaType(ct, rdfInputFormats); ok {
			return f.rdfFormat()
		}
		return nil, false
	}
	f, ok := rdfio.ByFileName(part.FileName())
	if !ok {
		return nil, false
	}
	return f, slices.Contains(rdfInputFormats, Format(f.Name))
}

// partBlank gives a blank node a label scoped to its part.
func partBlank(t kb.Term, part int) kb.Term {
	if t.Kind == kb.KindBlank {
		t.Value = fmt.Sprintf("p%d_%s", part, t.Value)
	}
	return t
}

// headLengthLimit bounds the work of a HEAD: up to this many bytes of the
// body are produced to be counted; a larger graph answers without
// Content-Length, as a GET of it streams chunked.
const headLengthLimit = streamBufferSize

var errHeadTooLong = errors.New("longer than the HEAD length limit")

// countWriter counts bytes and stops past a limit.
type countWriter struct{ n, limit int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.n > w.limit {
		return 0, errHeadTooLong
	}
	return len(p), nil
}

// headLength is the length of the body a GET of graph in format would
// have, so that HEAD sends GET's header fields, Content-Length included
// (RFC 9110 9.3.2); ok is false for a body over headLengthLimit.
func (s *Server) headLength(ctx context.Context, graph kb.Term, format Format) (n int64, ok bool, err error) {
	cw := &countWriter{limit: headLengthLimit}
	bw := bufio.NewWriterSize(cw, 4096)
	tw := newTripleWriter(format, bw)
	err = tw.begin()
	if err == nil {
		err = s.opts.Graphs.Triples(ctx, graph, func(t kb.Triple) error { return tw.quad(t, graph) })
	}
	if err == nil {
		err = tw.end()
	}
	if err == nil {
		err = bw.Flush()
	}
	switch {
	case errors.Is(err, errHeadTooLong):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return cw.n, true, nil
}
