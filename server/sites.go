package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/results"
)

// SiteRegistry is the writable site registry (the GEM of §6.5.5): a
// SiteService whose remote sites can be added, removed and refreshed over
// HTTP. The server offers POST /sites, DELETE /sites/{name} and POST
// /sites/refresh when Options.Sites implements it.
type SiteRegistry interface {
	SiteService
	// AddSite registers a remote site. Invalid names or endpoints are
	// InvalidInputError errors; a name in use wraps query.ErrSiteExists.
	AddSite(ctx context.Context, site query.Site) error
	// RemoveSite unregisters a site; an unknown name wraps ErrNotFound.
	RemoveSite(ctx context.Context, name string) error
	// RefreshSites asks the named sites (all when empty) for their
	// experiments and replaces each one's records atomically.
	RefreshSites(ctx context.Context, names []string) ([]query.SiteRefresh, error)
}

// registry returns the writable registry, answering 501 when there is none.
func (s *Server) registry(c *gin.Context) (SiteRegistry, bool) {
	reg, ok := s.opts.Sites.(SiteRegistry)
	if !ok {
		respondError(c, fmt.Errorf("site registry: %w", ErrNotAvailable))
		return nil, false
	}
	return reg, true
}

// siteError maps registry errors to statuses: invalid input 400, unknown
// 404, existing 409.
func siteError(c *gin.Context, err error) {
	if errors.Is(err, query.ErrSiteExists) {
		c.JSON(http.StatusConflict, errorResponse{Status: "error", ErrorType: ErrorBadData, Error: err.Error()})
		return
	}
	respondError(c, err)
}

// addSite answers POST /sites with a JSON body {"name", "endpoint",
// "tokenEnv"}.
func (s *Server) addSite(c *gin.Context) {
	if !s.authorize(c, true) {
		return
	}
	reg, ok := s.registry(c)
	if !ok {
		return
	}
	var site query.Site
	body, err := io.ReadAll(c.Request.Body)
	if err == nil {
		err = json.Unmarshal(body, &site)
	}
	if err != nil || site.Name == "" || site.Endpoint == "" {
		respondError(c, newAPIError(ErrorBadData, "POST /sites wants a JSON object with \"name\" and \"endpoint\" (the site's SPARQL endpoint URL)"))
		return
	}
	if err := reg.AddSite(c.Request.Context(), site); err != nil {
		siteError(c, err)
		return
	}
	c.JSON(http.StatusCreated, site)
}

// removeSite answers DELETE /sites/{name}.
func (s *Server) removeSite(c *gin.Context) {
	if !s.authorize(c, true) {
		return
	}
	reg, ok := s.registry(c)
	if !ok {
		return
	}
	if err := reg.RemoveSite(c.Request.Context(), c.Param("name")); err != nil {
		siteError(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"removed": c.Param("name")})
}

// refreshSites answers POST /sites/refresh; an optional JSON body
// {"sites": [NAME…]} limits it to some sites.
func (s *Server) refreshSites(c *gin.Context) {
	if !s.authorize(c, true) {
		return
	}
	reg, ok := s.registry(c)
	if !ok {
		return
	}
	var req struct {
		Sites []string `json:"sites"`
	}
	body, err := io.ReadAll(c.Request.Body)
	if err == nil && len(body) > 0 {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		respondError(c, newAPIError(ErrorBadData, "POST /sites/refresh wants no body or {\"sites\": [NAME…]}"))
		return
	}
	// A refresh may outlast the request timeout of queries: each site has
	// its own deadline in the registry's client.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), 5*time.Minute)
	defer cancel()
	out, err := reg.RefreshSites(ctx, req.Sites)
	if err != nil {
		siteError(c, err)
		return
	}
	if out == nil {
		out = []query.SiteRefresh{}
	}
	c.JSON(http.StatusOK, out)
}

// setFederationHeaders sets Perfkb-Federation: complete|partial and, for a
// partial answer, Perfkb-Sites-Failed: NAME (reason), …
func setFederationHeaders(c *gin.Context, rep *query.FederationReport) {
	if rep == nil {
		return
	}
	if rep.Complete {
		c.Header("Perfkb-Federation", "complete")
		return
	}
	c.Header("Perfkb-Federation", "partial")
	c.Header("Perfkb-Sites-Failed", rep.FailedHeader())
}

// withFederationHead adds the report to the head of JSON results as the
// member "federation".
func withFederationHead(sw results.SolutionWriter, rep *query.FederationReport) {
	j, ok := sw.(results.HeadExtender)
	if !ok || rep == nil {
		return
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return
	}
	j.AddHeadMember("federation", b)
}

// siteParam is the sites parameter of a query request, from the form body
// or the URL (a POST form may carry it in either).
func siteParam(c *gin.Context, params url.Values) string {
	if v := params.Get("sites"); v != "" {
		return v
	}
	return c.Query("sites")
}
