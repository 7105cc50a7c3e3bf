package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// AnalysisService runs perfkb's performance analyses (package analysis):
// speedup, efficiency, overheads, differences and soft classes.
type AnalysisService interface {
	// Run analyses the store and replaces the analysis graph.
	Run(ctx context.Context) (AnalysisReport, error)
	// Scaling returns the scaling table of the experiments of version (all
	// experiments when version is ""), computed without writing. The
	// context may carry the store's write generation (GenerationOf): what
	// was computed for it may be served again while it holds, as may
	// Diff's.
	Scaling(ctx context.Context, version string) (any, error)
	// Diff compares two experiments, computed without writing; an unknown
	// experiment is an error wrapping ErrNotFound.
	Diff(ctx context.Context, base, trial string) (any, error)
	// Tree returns the call tree of an experiment (its IRI or a unique end
	// of it), computed without writing; a name that matches nothing is an
	// error wrapping ErrNotFound, a bad parameter an InvalidInputError.
	Tree(ctx context.Context, experiment string, p TreeParams) (any, error)
}

// TreeParams are the parameters of GET /analysis/tree, those of perfkb
// tree: one processing unit (IRI or unique end; "" merges all), how values
// of several units combine (mean, min, max), one more metric to show, and
// how many levels (0: all).
type TreeParams struct {
	PU, Agg, Metric string
	Depth           int
}

// AnalysisReport says what an analysis run did.
type AnalysisReport struct {
	Experiments int      `json:"experiments"`
	Groups      int      `json:"scalingGroups"`
	Findings    int      `json:"poorScalabilityFindings"`
	Quads       int      `json:"quads"`
	Graph       string   `json:"graph"`
	Issues      []string `json:"issues"`
	Seconds     float64  `json:"seconds"`
}

func (s *Server) analysisService(c *gin.Context) bool {
	if s.opts.Analysis == nil {
		respondError(c, fmt.Errorf("analysis: %w (the analysis package is not wired into this server)", ErrNotAvailable))
		return false
	}
	return true
}

// analysisRun answers POST /analysis/run (needs the token): it runs every
// analysis and replaces urn:x-perfkb:analysis.
func (s *Server) analysisRun(c *gin.Context) {
	if !s.authorize(c, true) || !s.analysisService(c) {
		return
	}
	start := time.Now()
	report, err := s.opts.Analysis.Run(c.Request.Context())
	if err != nil {
		respondError(c, err)
		return
	}
	if report.Seconds == 0 {
		report.Seconds = time.Since(start).Seconds()
	}
	respondData(c, http.StatusOK, report)
}

// analysisScaling answers GET /analysis/scaling?version=IRI.
func (s *Server) analysisScaling(c *gin.Context) {
	if !s.authorize(c, false) || !s.analysisService(c) {
		return
	}
	out, err := s.opts.Analysis.Scaling(s.viewContext(c.Request.Context()), c.Query("version"))
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, out)
}

// analysisDiff answers GET /analysis/diff?base=IRI&trial=IRI.
func (s *Server) analysisDiff(c *gin.Context) {
	if !s.authorize(c, false) || !s.analysisService(c) {
		return
	}
	base, trial := c.Query("base"), c.Query("trial")
	if base == "" || trial == "" {
		respondError(c, newAPIError(ErrorBadData, "give both experiments: /analysis/diff?base=IRI&trial=IRI"))
		return
	}
	out, err := s.opts.Analysis.Diff(s.viewContext(c.Request.Context()), base, trial)
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, out)
}

// analysisTree answers GET /analysis/tree?experiment=IRI&pu=&agg=&metric=&depth=.
func (s *Server) analysisTree(c *gin.Context) {
	if !s.authorize(c, false) || !s.analysisService(c) {
		return
	}
	exp := c.Query("experiment")
	if exp == "" {
		respondError(c, newAPIError(ErrorBadData, "name the experiment: /analysis/tree?experiment=IRI (or a unique end of it, e.g. vienna/exp/3)"))
		return
	}
	p := TreeParams{PU: c.Query("pu"), Agg: c.Query("agg"), Metric: c.Query("metric")}
	if d := c.Query("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			respondError(c, newAPIError(ErrorBadData, "depth %q: want 0 (all levels) or a positive number", d))
			return
		}
		p.Depth = n
	}
	out, err := s.opts.Analysis.Tree(c.Request.Context(), exp, p)
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, out)
}
