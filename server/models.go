package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"
)

// ModelService is what an AnalysisService also implements to answer GET
// /analysis/models: the performance models (Extra-P-style PMNF fits per
// experiment series, call path and metric) of package analysis.
type ModelService interface {
	// Models returns the model tables of the experiments of version (all
	// when version is ""), computed without writing; an unknown version is
	// an error wrapping ErrNotFound.
	Models(ctx context.Context, version string) (any, error)
}

// analysisModels answers GET /analysis/models?version=IRI.
func (s *Server) analysisModels(c *gin.Context) {
	if !s.authorize(c, false) || !s.analysisService(c) {
		return
	}
	ms, ok := s.opts.Analysis.(ModelService)
	if !ok {
		respondError(c, fmt.Errorf("analysis: %w (this analysis service has no performance models)", ErrNotAvailable))
		return
	}
	out, err := ms.Models(c.Request.Context(), c.Query("version"))
	if err != nil {
		respondError(c, err)
		return
	}
	respondData(c, http.StatusOK, out)
}
