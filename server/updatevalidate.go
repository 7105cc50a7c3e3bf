package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/shacl"
)

// updateRefused is the error checkUpdate gives an update whose added
// quads do not conform: runUpdate answers it with 422 and the report.
type updateRefused struct{ report *shacl.Report }

func (e *updateRefused) Error() string {
	return fmt.Sprintf("the update's writes do not conform to the shapes (%d results); nothing was stored", len(e.report.Results))
}

// InvalidInput reports that the request, not the engine, is at fault.
func (e *updateRefused) InvalidInput() bool { return true }

// checkUpdate returns the check serve --validate applies to SPARQL
// Update requests, as to Graph Store pushes (Options.ValidatePushes): the
// quads the update adds are validated on their own, beside PERFONTO's
// class hierarchy, before any is stored. A non-conforming write is
// refused (ValidateReject) or stored with X-Conforms: false and a log
// line (ValidateWarn).
func (s *Server) checkUpdate(c *gin.Context) func(context.Context, []kb.TermQuad) error {
	pv := s.opts.ValidatePushes
	return func(ctx context.Context, added []kb.TermQuad) error {
		rep, err := validateQuads(ctx, pv.Shapes, added)
		if err != nil {
			return err
		}
		if rep.Conforms {
			c.Header("X-Conforms", "true")
			return nil
		}
		c.Header("X-Conforms", "false")
		if pv.Mode == ValidateWarn {
			s.opts.Logger.Warn("SPARQL update does not conform to the shapes; stored anyway",
				"results", len(rep.Results), "violations", rep.Violations())
			return nil
		}
		return &updateRefused{report: rep}
	}
}

// refuseUpdate answers a refused update with 422 and its validation
// report, in the RDF format the client accepts (Turtle otherwise).
func (s *Server) refuseUpdate(c *gin.Context, rep *shacl.Report) {
	format, ok := negotiate(c.GetHeader("Accept"), graphFormats)
	if !ok {
		format = FormatTurtle
	}
	if err := writeReport(c, http.StatusUnprocessableEntity, format, rep); err != nil {
		respondError(c, err)
	}
}

// validateQuads validates quads in a scratch store beside the built-in
// ontology against shapes (nil: the shipped ones).
func validateQuads(ctx context.Context, shapes *shacl.Shapes, quads []kb.TermQuad) (*shacl.Report, error) {
	if shapes == nil {
		shippedShapes.once.Do(func() { shippedShapes.shapes, shippedShapes.err = shacl.Default(ctx) })
		if shippedShapes.err != nil {
			return nil, shippedShapes.err
		}
		shapes = shippedShapes.shapes
	}
	mem := native.OpenMemory()
	defer mem.Close()
	ids, err := kb.InternQuads(ctx, mem, quads)
	if err != nil {
		return nil, err
	}
	if err := mem.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		return nil, err
	}
	if err := shacl.AddOntology(ctx, mem); err != nil {
		return nil, err
	}
	return shacl.Validate(ctx, mem, shapes, shacl.Options{})
}
