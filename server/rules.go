package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/perfkb/perfkb/query"
)

// maxRuleFile caps a rule file read from a multipart upload.
const maxRuleFile = 8 << 20

// rulesRun answers POST /rules/run. The body is a JSON RuleRunRequest, a
// rule file (any text type, or a multipart upload named "rules"), or empty;
// ?sets=rdfs,perfonto names shipped rule sets.
func (s *Server) rulesRun(c *gin.Context) {
	if !s.authorize(c, true) {
		return
	}
	if s.opts.Rules == nil {
		respondError(c, fmt.Errorf("rule runs: %w (the reasoner is not wired into this server)", ErrNotAvailable))
		return
	}
	req, err := s.readRuleRunRequest(c)
	if err != nil {
		respondError(c, err)
		return
	}
	start := time.Now()
	report, err := s.opts.Rules.Run(c.Request.Context(), req)
	if err != nil {
		respondError(c, err)
		return
	}
	// The findings of the uploaded rules are in the store now; the page
	// shows their advice with them. (The rule service checked the
	// #@advice comments when it loaded the file: a malformed one rejects
	// the upload with its position before anything runs.)
	s.advice.init(s.opts.Advice)
	s.advice.add(report.Advice)
	report.SetDuration(time.Since(start))
	respondData(c, http.StatusOK, report)
}

func (s *Server) readRuleRunRequest(c *gin.Context) (RuleRunRequest, error) {
	var req RuleRunRequest
	mediaType, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	switch {
	case mediaType == "application/json":
		dec := json.NewDecoder(c.Request.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil && err != io.EOF {
			return req, badJSON(err)
		}
	default:
		name, text, err := s.readRuleText(c)
		if err != nil {
			return req, err
		}
		req.RuleName, req.RuleText = name, text
	}
	for _, set := range strings.Split(c.Query("sets"), ",") {
		if set = strings.TrimSpace(set); set != "" {
			req.Sets = append(req.Sets, set)
		}
	}
	if req.RuleName == "" && req.RuleText != "" {
		req.RuleName = "uploaded.rules"
	}
	return req, nil
}

func badJSON(err error) error {
	if _, ok := err.(*http.MaxBytesError); ok {
		return err
	}
	return newAPIError(ErrorBadData, "malformed JSON body: %v", err)
}

// readRuleText reads a rule file from a multipart upload (field "rules" or
// "file") or from the raw body.
func (s *Server) readRuleText(c *gin.Context) (name, text string, err error) {
	mediaType, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if mediaType == "multipart/form-data" {
		for _, field := range []string{"rules", "file"} {
			fh, err := c.FormFile(field)
			if err != nil {
				continue
			}
			f, err := fh.Open()
			if err != nil {
				return "", "", err
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, maxRuleFile))
			if err != nil {
				return "", "", err
			}
			return fh.Filename, string(b), nil
		}
		return "", "", newAPIError(ErrorBadData, "the multipart form has no file field named rules or file")
	}
	if err := s.declaredTooLong(c, s.opts.Rules, "rule file"); err != nil {
		return "", "", err
	}
	b, release, err := s.readRequestBody(c)
	if err != nil {
		return "", "", err
	}
	releaseAtEnd(c, release)
	return c.Query("name"), b, nil
}

// rulesCheck answers POST /rules/check: it parses and compiles an uploaded
// rule file, checks its #@advice comments, and reports every error with
// its position (the rule service loads it as a run would). It changes nothing,
// so it needs no write token.
func (s *Server) rulesCheck(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	if s.opts.Rules == nil {
		respondError(c, fmt.Errorf("rule checks: %w (the reasoner is not wired into this server)", ErrNotAvailable))
		return
	}
	name, text, err := s.readRuleText(c)
	if err != nil {
		respondError(c, err)
		return
	}
	if strings.TrimSpace(text) == "" {
		respondError(c, newAPIError(ErrorBadData, "send a rule file as the request body"))
		return
	}
	if name == "" {
		name = "uploaded.rules"
	}
	report, err := s.opts.Rules.Check(c.Request.Context(), name, text)
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, report)
}

// findings answers GET /findings?problem=&experiment=&limit=&offset=: the
// findings from offset on, at most limit, with their number before paging
// in X-Total-Count when the server listed them all (findings_page.go).
func (s *Server) findings(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	if s.opts.Rules == nil {
		respondError(c, fmt.Errorf("findings: %w (the reasoner is not wired into this server)", ErrNotAvailable))
		return
	}
	filter := FindingFilter{Problem: c.Query("problem"), Experiment: c.Query("experiment")}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			respondError(c, newAPIError(ErrorBadData, "limit %q is not a non-negative integer", v))
			return
		}
		filter.Limit = n
	}
	offset := 0
	if v := c.Query("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			respondError(c, newAPIError(ErrorBadData, "offset %q is not a non-negative integer", v))
			return
		}
		offset = n
	}
	list, total, err := s.findingsPage(s.viewContext(c.Request.Context()), filter, offset)
	if err != nil {
		respondError(c, err)
		return
	}
	if total >= 0 {
		c.Header(totalCountHeader, itoa(total))
	}
	respondData(c, http.StatusOK, list)
}

// explain answers GET /explain?iri=.
func (s *Server) explain(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	if s.opts.Rules == nil {
		respondError(c, fmt.Errorf("explanations: %w (the reasoner is not wired into this server)", ErrNotAvailable))
		return
	}
	iri := c.Query("iri")
	if iri == "" {
		respondError(c, newAPIError(ErrorBadData, "explain needs ?iri="))
		return
	}
	exp, err := s.opts.Rules.Explain(c.Request.Context(), iri)
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, exp)
}

// sites answers GET /sites with the site registry.
func (s *Server) sites(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	if s.opts.Sites == nil {
		respondError(c, fmt.Errorf("site registry: %w", ErrNotAvailable))
		return
	}
	list, err := s.opts.Sites.Sites(c.Request.Context())
	if err != nil {
		respondError(c, err)
		return
	}
	if list == nil {
		list = []query.SiteEntry{}
	}
	respondData(c, http.StatusOK, list)
}

// healthz answers 200 when the server is up and its store answers;
// "starting": true while start-up work (Starting) still runs, so that a
// client timing the server (a benchmark's unloaded phase) can wait for it.
func (s *Server) healthz(c *gin.Context) {
	body := gin.H{"status": "ok"}
	if s.starting.Load() > 0 {
		body["starting"] = true
	}
	if s.opts.Store != nil {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
		defer cancel()
		n, err := s.opts.Store.Quads(ctx)
		if err != nil {
			c.JSON(http.StatusServiceUnavailable, errorResponse{Status: "error", ErrorType: ErrorUnavailable, Error: "store: " + err.Error()})
			return
		}
		// The size of the store is told only to a client that may read
		// all of it.
		if s.anonymousScope().ReadsAll() {
			body["quads"] = n
		} else if token, ok := requestToken(c); ok {
			if scope, ok := s.scopeOf(c, token); ok && scope.ReadsAll() {
				body["quads"] = n
			}
		}
	}
	c.JSON(http.StatusOK, body)
}
