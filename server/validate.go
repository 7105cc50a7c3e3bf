package server

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/server/graphstore"
	"github.com/perfkb/perfkb/shacl"
)

// shippedShapes are the PERFONTO shapes, parsed on first use.
var shippedShapes struct {
	once   sync.Once
	shapes *shacl.Shapes
	err    error
}

// validate answers GET /validate[?graph=IRI|?default]: the SHACL
// validation report of the store (or of one graph, beside PERFONTO's class
// hierarchy) against the shipped PERFONTO shapes, as RDF in the format the
// client accepts (Turtle by default). The status is 200 whether or not
// the data conforms; the X-Conforms header says which.
func (s *Server) validate(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	store, ok := s.opts.Graphs.(*graphstore.Store)
	if !ok {
		respondError(c, fmt.Errorf("validate: %w (no store is wired into this server)", ErrNotAvailable))
		return
	}
	var opts shacl.Options
	graph, named, err := targetGraph(c.Request.URL.Query())
	if err != nil {
		respondError(c, err)
		return
	}
	if named {
		opts.Graphs = []kb.Term{graph, kb.OntologyGraph}
	}
	format, ok := chooseFormat(c, graphFormats)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	shippedShapes.once.Do(func() { shippedShapes.shapes, shippedShapes.err = shacl.Default(ctx) })
	if shippedShapes.err != nil {
		respondError(c, shippedShapes.err)
		return
	}
	rep, err := shacl.Validate(ctx, store.Dataset(), shippedShapes.shapes, opts)
	if err != nil {
		respondError(c, err)
		return
	}
	if err := writeReport(c, http.StatusOK, format, rep); err != nil {
		respondError(c, err)
	}
}
