package server

import (
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
)

// ontology serves PERFONTO as the store holds it (graph
// urn:x-perfkb:ontology) in any RDF format the client accepts, like a
// Graph Store GET of that graph.
func (s *Server) ontology(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	if s.opts.Graphs == nil {
		respondError(c, fmt.Errorf("ontology: %w (no store is wired into this server)", ErrNotAvailable))
		return
	}
	s.gspGet(c, kb.OntologyGraph)
}
