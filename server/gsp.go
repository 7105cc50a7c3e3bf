package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/server/graphstore"
)

// graphStore serves the SPARQL 1.1 Graph Store HTTP Protocol at /data with
// indirect graph identification: ?graph=IRI or ?default.
func (s *Server) graphStore(c *gin.Context) {
	write := c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead
	if !s.authorize(c, write) {
		return
	}
	if s.opts.Graphs == nil {
		respondError(c, fmt.Errorf("graph store: %w (no store is wired into this server)", ErrNotAvailable))
		return
	}
	graph, ok, err := targetGraph(c.Request.URL.Query())
	if err != nil {
		respondError(c, err)
		return
	}
	if direct, isDirect := s.directGraph(c); isDirect {
		if ok {
			respondError(c, newAPIError(ErrorBadData, "name the graph either by the request path or by ?graph=/?default, not both"))
			return
		}
		graph, ok = direct, true
	}
	if !ok {
		if c.Request.Method != http.MethodPost {
			respondError(c, newAPIError(ErrorBadData, "name the graph with ?graph=IRI or ?default, or by the path /data/NAME"))
			return
		}
		// POST to the graph store itself creates a new graph (GSP 5.5),
		// named by an IRI under the endpoint, which is also its direct
		// URL; Location carries that IRI.
		graph = kb.IRI(strings.TrimSuffix(s.endpointIRI(c), "/") + "/" + newGraphID())
		c.Header("Location", graph.Value)
	}
	if scope := requestScope(c); (write && !scope.CanWrite(graph.Value)) || !scope.CanRead(graph.Value) {
		s.metrics.rejected.WithLabelValues("forbidden").Inc()
		respondError(c, newAPIError(ErrorForbidden, "user %s may not %s graph <%s>", scope.User, map[bool]string{true: "write", false: "read"}[write], graph.Value))
		return
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead:
		s.gspGet(c, graph)
	case http.MethodPut:
		s.gspWrite(c, graph, true)
	case http.MethodPost:
		s.gspWrite(c, graph, false)
	case http.MethodDelete:
		s.gspDelete(c, graph)
	}
}

// targetGraph reads ?graph= or ?default; ok is false when neither is given.
func targetGraph(params url.Values) (kb.Term, bool, error) {
	graphs, hasGraph := params["graph"]
	_, hasDefault := params["default"]
	switch {
	case hasGraph && hasDefault:
		return kb.Term{}, false, newAPIError(ErrorBadData, "use either ?graph=IRI or ?default, not both")
	case hasDefault:
		return kb.DefaultGraph, true, nil
	case hasGraph:
		if len(graphs) != 1 || graphs[0] == "" {
			return kb.Term{}, false, newAPIError(ErrorBadData, "?graph= needs exactly one IRI")
		}
		u, err := url.Parse(graphs[0])
		if err != nil || !u.IsAbs() {
			return kb.Term{}, false, newAPIError(ErrorBadData, "graph %q is not an absolute IRI", graphs[0])
		}
		if graphs[0] == kb.DefaultGraphIRI {
			return kb.DefaultGraph, true, nil
		}
		return kb.IRI(graphs[0]), true, nil
	}
	return kb.Term{}, false, nil
}

func newGraphID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Server) gspGet(c *gin.Context, graph kb.Term) {
	ctx := c.Request.Context()
	format, ok := chooseFormat(c, graphFormats)
	if !ok {
		return
	}
	size, err := s.opts.Graphs.Size(ctx, graph)
	if err != nil {
		respondError(c, err)
		return
	}
	if size == 0 && graph != kb.DefaultGraph {
		respondError(c, fmt.Errorf("graph <%s>: %w", graph.Value, ErrNotFound))
		return
	}
	c.Header("X-Triples", strconv.FormatInt(size, 10))
	if c.Request.Method == http.MethodHead {
		n, known, err := s.headLength(ctx, graph, format)
		if err != nil {
			respondError(c, err)
			return
		}
		if known {
			c.Header("Content-Length", strconv.FormatInt(n, 10))
		}
		c.Header("Content-Type", format.contentType())
		c.Status(http.StatusOK)
		return
	}
	out := s.newResponseStream(c, format.contentType())
	tw := newTripleWriter(format, out.w)
	if err := tw.begin(); err != nil {
		out.fail(err)
		return
	}
	err = s.opts.Graphs.Triples(ctx, graph, func(t kb.Triple) error {
		if err := tw.quad(t, graph); err != nil {
			return err
		}
		out.tick()
		return nil
	})
	if err == nil {
		err = tw.end()
	}
	if err != nil {
		out.fail(err)
		return
	}
	if err := out.finish(); err != nil {
		_ = c.Error(err)
	}
}

func (s *Server) gspWrite(c *gin.Context, graph kb.Term, replace bool) {
	var src graphstore.RDFSource
	var err error
	if mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type")); mt == "multipart/form-data" && !replace {
		if src, err = multipartSource(c.Request.Body, c.GetHeader("Content-Type"), s.graphBase(c, graph)); err != nil {
			respondError(c, fmt.Errorf("%w (graph <%s> was not changed)", err, graph.Value))
			return
		}
		src.Size = c.Request.ContentLength
	} else {
		format, ok := formatByMediaType(c.GetHeader("Content-Type"), rdfInputFormats)
		if !ok {
			respondError(c, &apiError{typ: ErrorUnsupported, err: fmt.Errorf("unsupported Content-Type %q: send one of %s", c.GetHeader("Content-Type"), offeredMediaTypes(rdfInputFormats))})
			return
		}
		src = graphstore.RDFSource{Body: c.Request.Body, Format: string(format), Name: "request body", BaseIRI: s.graphBase(c, graph), Size: c.Request.ContentLength}
	}
	src, pass := s.checkPush(c, s.opts.ValidatePushes, graph, src)
	if !pass {
		return
	}
	var change graphstore.GraphChange
	if replace {
		change, err = s.opts.Graphs.Replace(c.Request.Context(), graph, src)
	} else {
		change, err = s.opts.Graphs.Append(c.Request.Context(), graph, src)
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		if !errors.As(err, &tooLarge) {
			err = fmt.Errorf("%w (graph <%s> was not changed)", err, graph.Value)
		}
		respondError(c, err)
		return
	}
	s.metrics.written.Add(float64(change.Added))
	change.Graph = graph.Value
	status := http.StatusOK
	if change.Created {
		status = http.StatusCreated
	}
	respondData(c, status, change)
}

// graphBase is the base IRI for relative IRIs in an uploaded document: the
// graph's IRI, or the endpoint for the default graph.
func (s *Server) graphBase(c *gin.Context, graph kb.Term) string {
	if graph == kb.DefaultGraph {
		return s.endpointIRI(c)
	}
	return graph.Value
}

func (s *Server) gspDelete(c *gin.Context, graph kb.Term) {
	removed, err := s.opts.Graphs.Drop(c.Request.Context(), graph)
	if err != nil {
		respondError(c, err)
		return
	}
	if removed == 0 && graph != kb.DefaultGraph {
		respondError(c, fmt.Errorf("graph <%s>: %w", graph.Value, ErrNotFound))
		return
	}
	respondData(c, http.StatusOK, graphstore.GraphChange{Graph: graph.Value, Removed: removed})
}
