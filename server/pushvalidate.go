package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/server/graphstore"
	"github.com/perfkb/perfkb/shacl"
)

// ValidationMode says what a Graph Store write does with a document that
// does not conform to the SHACL shapes.
type ValidationMode uint8

const (
	// ValidateOff stores documents unchecked.
	ValidateOff ValidationMode = iota
	// ValidateReject refuses a non-conforming document with
	// 422 Unprocessable Entity and its validation report; nothing is
	// written.
	ValidateReject
	// ValidateWarn stores it anyway, answering X-Conforms: false and
	// logging the number of results.
	ValidateWarn
)

// PushValidation configures the SHACL check of Graph Store writes (PUT
// and POST to /data). Each document is validated on its own, beside
// PERFONTO's class hierarchy, as perfkb load --validate checks a file: a
// site's push must make sense by itself, whatever the store already holds.
type PushValidation struct {
	Mode ValidationMode
	// Shapes are the shapes checked; nil means the shipped PERFONTO
	// shapes (shacl.Default).
	Shapes *shacl.Shapes
}

// checkPush validates a Graph Store upload as pv (Options.ValidatePushes)
// asks. It returns the source to store (the same bytes, read again) and
// true, or false when it has answered the request itself: the upload did
// not parse, or does not conform and is refused with the report.
func (s *Server) checkPush(c *gin.Context, pv PushValidation, graph kb.Term, src graphstore.RDFSource) (graphstore.RDFSource, bool) {
	if pv.Mode == ValidateOff {
		return src, true
	}
	ctx := c.Request.Context()
	// The body is bounded by MaxBody (middleware); the store reads it
	// again from memory after the check.
	data, err := io.ReadAll(src.Body)
	if err != nil {
		respondError(c, err)
		return src, false
	}
	src.Body, src.Size = bytes.NewReader(data), int64(len(data))
	rep, err := validateDocument(ctx, pv.Shapes, graph, src, data)
	if err != nil {
		respondError(c, fmt.Errorf("%w (graph <%s> was not changed)", err, graph.Value))
		return src, false
	}
	if rep.Conforms {
		c.Header("X-Conforms", "true")
		return src, true
	}
	c.Header("X-Conforms", "false")
	if pv.Mode == ValidateWarn {
		s.opts.Logger.Warn("graph store write does not conform to the shapes; stored anyway",
			"graph", graph.Value, "results", len(rep.Results), "violations", rep.Violations())
		return src, true
	}
	// A client that accepts no RDF format (it expected the JSON change
	// summary) still gets the report, in Turtle.
	format, ok := negotiate(c.GetHeader("Accept"), graphFormats)
	if !ok {
		format = FormatTurtle
	}
	if err := writeReport(c, http.StatusUnprocessableEntity, format, rep); err != nil {
		respondError(c, err)
	}
	return src, false
}

// validateDocument parses one upload into a scratch store beside the
// built-in ontology and validates it against shapes (nil: the shipped
// ones).
func validateDocument(ctx context.Context, shapes *shacl.Shapes, graph kb.Term, src graphstore.RDFSource, data []byte) (*shacl.Report, error) {
	if shapes == nil {
		shippedShapes.once.Do(func() { shippedShapes.shapes, shippedShapes.err = shacl.Default(ctx) })
		if shippedShapes.err != nil {
			return nil, shippedShapes.err
		}
		shapes = shippedShapes.shapes
	}
	mem := native.OpenMemory()
	defer mem.Close()
	if _, err := src.Load(ctx, mem, bytes.NewReader(data), rdfio.LoadOptions{Graph: graph}); err != nil {
		return nil, err
	}
	if err := shacl.AddOntology(ctx, mem); err != nil {
		return nil, err
	}
	return shacl.Validate(ctx, mem, shapes, shacl.Options{})
}

// writeReport answers a validation report as RDF in format, with
// X-Conforms saying whether the data conforms.
func writeReport(c *gin.Context, status int, format Format, rep *shacl.Report) error {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	tw := newTripleWriter(format, bw, shacl.Prefixes()[0])
	if err := tw.begin(); err != nil {
		return err
	}
	for _, q := range rep.Quads(kb.Term{}) {
		if err := tw.quad(kb.Triple{S: q.S, P: q.P, O: q.O}, kb.DefaultGraph); err != nil {
			return err
		}
	}
	if err := tw.end(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	c.Header("X-Conforms", strconv.FormatBool(rep.Conforms))
	c.Data(status, format.contentType(), buf.Bytes())
	return nil
}
