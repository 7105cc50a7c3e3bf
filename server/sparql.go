package server

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// SPARQL protocol media types for request bodies.
const (
	mediaSPARQLQuery  = "application/sparql-query"
	mediaSPARQLUpdate = "application/sparql-update"
	mediaForm         = "application/x-www-form-urlencoded"
)

// sparqlGet answers GET /sparql: a query in ?query=, or the service
// description when there is none.
func (s *Server) sparqlGet(c *gin.Context) {
	params := c.Request.URL.Query()
	if _, ok := params["update"]; ok {
		respondError(c, newAPIError(ErrorBadData, "SPARQL updates must be sent with POST"))
		return
	}
	q, ok := params["query"]
	if !ok {
		s.serviceDescription(c)
		return
	}
	if len(q) != 1 {
		respondError(c, newAPIError(ErrorBadData, "exactly one query parameter is allowed, got %d", len(q)))
		return
	}
	s.runQuery(c, q[0], params)
}

// sparqlPost answers POST /sparql: a query or an update, as a form or as a
// direct body.
func (s *Server) sparqlPost(c *gin.Context) {
	mediaType, params, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil {
		respondError(c, &apiError{typ: ErrorUnsupported, err: fmt.Errorf("POST /sparql needs a Content-Type of %s, %s or %s", mediaForm, mediaSPARQLQuery, mediaSPARQLUpdate)})
		return
	}
	// The protocol's bodies are UTF-8 (SPARQL 1.1 Protocol 2.1.3, 2.2.2).
	if cs := params["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		respondError(c, &apiError{typ: ErrorUnsupported, err: fmt.Errorf("charset %q: SPARQL requests must be UTF-8", cs)})
		return
	}
	urlParams := c.Request.URL.Query()
	switch mediaType {
	case mediaForm:
		body, release, err := s.readRequestBody(c)
		defer release()
		if err != nil {
			respondError(c, err)
			return
		}
		form, err := url.ParseQuery(body)
		if err != nil {
			respondError(c, newAPIError(ErrorBadData, "malformed form body: %v", err))
			return
		}
		queries, updates := form["query"], form["update"]
		switch {
		case len(queries) > 0 && len(updates) > 0:
			respondError(c, newAPIError(ErrorBadData, "a request carries either query or update, not both"))
		case len(queries) > 1 || len(updates) > 1:
			respondError(c, newAPIError(ErrorBadData, "only one query or update parameter is allowed"))
		case len(queries) == 1:
			s.runQuery(c, queries[0], form)
		case len(updates) == 1:
			s.runUpdate(c, updates[0], form)
		default:
			respondError(c, newAPIError(ErrorBadData, "the form has neither a query nor an update parameter"))
		}
	case mediaSPARQLQuery:
		body, release, err := s.readRequestBody(c)
		defer release()
		if err != nil {
			respondError(c, err)
			return
		}
		s.runQuery(c, body, urlParams)
	case mediaSPARQLUpdate:
		body, release, err := s.readRequestBody(c)
		defer release()
		if err != nil {
			respondError(c, err)
			return
		}
		s.runUpdate(c, body, urlParams)
	default:
		respondError(c, &apiError{typ: ErrorUnsupported, err: fmt.Errorf("unsupported Content-Type %q: use %s, %s or %s", mediaType, mediaForm, mediaSPARQLQuery, mediaSPARQLUpdate)})
	}
}

func (s *Server) runQuery(c *gin.Context, text string, params url.Values) {
	if !s.authorize(c, false) {
		return
	}
	if strings.TrimSpace(text) == "" {
		respondError(c, newAPIError(ErrorBadData, "the query is empty"))
		return
	}
	if s.opts.Query == nil {
		respondError(c, fmt.Errorf("SPARQL queries: %w (the query engine is not wired into this server)", ErrNotAvailable))
		return
	}
	logQuery(c, text)
	req := QueryRequest{
		Query:         text,
		DefaultGraphs: params["default-graph-uri"],
		NamedGraphs:   params["named-graph-uri"],
		BaseIRI:       s.endpointIRI(c),
		Sites:         siteParam(c, params),
		Scope:         requestScope(c),
	}
	ctx := c.Request.Context()
	res, err := s.opts.Query.Query(ctx, req)
	if err != nil {
		respondError(c, err)
		return
	}
	defer res.Close()
	setFederationHeaders(c, res.Federation)

	offers := bindingsFormats
	switch res.Kind {
	case ResultBoolean:
		offers = booleanFormats
	case ResultGraph:
		offers = graphFormats
	}
	format, ok := chooseFormatIn(c, params, offers)
	if !ok {
		return
	}
	out := s.newResponseStream(c, format.contentType())
	switch res.Kind {
	case ResultBoolean:
		sw, err := newSolutionsWriter(format, out.w)
		if err == nil {
			err = sw.WriteBoolean(res.Boolean)
		}
		if err != nil {
			out.fail(err)
			return
		}
	case ResultGraph:
		if res.Triples == nil {
			out.fail(errors.New("query service returned a graph result without triples"))
			return
		}
		tw := newGraphResultWriter(format, out.w)
		if err := tw.begin(); err != nil {
			out.fail(err)
			return
		}
		for res.Triples.Next() {
			if err := tw.quad(res.Triples.Triple(), defaultGraphTerm); err != nil {
				out.fail(err)
				return
			}
			out.tick()
		}
		if err := firstErr(res.Triples.Err(), ctx.Err()); err != nil {
			out.fail(err)
			return
		}
		if err := tw.end(); err != nil {
			out.fail(err)
			return
		}
	default:
		if res.Solutions == nil {
			out.fail(errors.New("query service returned a SELECT result without solutions"))
			return
		}
		sw, err := newSolutionsWriter(format, out.w)
		if err != nil {
			out.fail(err)
			return
		}
		withFederationHead(sw, res.Federation)
		if err := sw.Begin(res.Vars); err != nil {
			out.fail(err)
			return
		}
		for res.Solutions.Next() {
			if err := sw.Row(res.Solutions.Solution()); err != nil {
				out.fail(err)
				return
			}
			out.tick()
		}
		if err := firstErr(res.Solutions.Err(), ctx.Err()); err != nil {
			out.fail(err)
			return
		}
		if err := sw.End(); err != nil {
			out.fail(err)
			return
		}
	}
	c.Set(rowsKey, out.rows)
	if err := out.finish(); err != nil {
		_ = c.Error(err)
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// chooseFormat picks the response format from ?format= or the Accept
// header; it answers 406 and returns false when none fits.
func chooseFormat(c *gin.Context, offers []Format) (Format, bool) {
	return chooseFormatIn(c, c.Request.URL.Query(), offers)
}

// chooseFormatIn is chooseFormat reading format= and output= from params
// (a POSTed form's fields, as SPARQLWrapper sends them) before the URL.
func chooseFormatIn(c *gin.Context, params url.Values, offers []Format) (Format, bool) {
	name := params.Get("format")
	if name == "" {
		name = params.Get("output") // Fuseki's and Virtuoso's name for it
	}
	if name == "" {
		name = c.Query("format")
	}
	if name == "" {
		name = c.Query("output")
	}
	if name != "" {
		if f, ok := formatByName(name, offers); ok {
			return f, true
		}
		// A format of the other kind of result (csv for a graph, turtle
		// for bindings) is what SPARQLWrapper sends for every query form
		// when asked for it, with Accept: */*: the Accept header decides.
		if !knownFormatName(name) {
			respondError(c, newAPIError(ErrorNotAccept, "format %q is not available for this result; available: %s", name, offeredMediaTypes(offers)))
			return "", false
		}
	}
	f, ok := negotiate(c.GetHeader("Accept"), offers)
	if !ok {
		respondError(c, newAPIError(ErrorNotAccept, "none of the accepted media types (%s) is available for this result; available: %s", c.GetHeader("Accept"), offeredMediaTypes(offers)))
		return "", false
	}
	return f, true
}

func (s *Server) runUpdate(c *gin.Context, text string, params url.Values) {
	if !s.authorize(c, true) {
		return
	}
	if strings.TrimSpace(text) == "" {
		respondError(c, newAPIError(ErrorBadData, "the update is empty"))
		return
	}
	if s.opts.Query == nil {
		respondError(c, fmt.Errorf("SPARQL updates: %w (the query engine is not wired into this server)", ErrNotAvailable))
		return
	}
	logQuery(c, text)
	req := UpdateRequest{
		Update:           text,
		UsingGraphs:      params["using-graph-uri"],
		UsingNamedGraphs: params["using-named-graph-uri"],
		BaseIRI:          s.endpointIRI(c),
		Scope:            requestScope(c),
	}
	if s.opts.ValidatePushes.Mode != ValidateOff {
		req.Check = s.checkUpdate(c)
	}
	summary, err := s.opts.Query.Update(c.Request.Context(), req)
	var refused *updateRefused
	if errors.As(err, &refused) {
		s.refuseUpdate(c, refused.report)
		return
	}
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, summary)
}

// endpointIRI is the absolute IRI of the request's endpoint. It is built
// from the server's public base (Options.PublicBase, else its listen
// address), never from request headers: graph names minted from a Host
// header would let any client choose them.
func (s *Server) endpointIRI(c *gin.Context) string {
	base, _ := s.publicBase.Load().(string)
	if base == "" {
		base = "http://localhost"
	}
	return strings.TrimSuffix(base, "/") + c.Request.URL.Path
}
