package shacl

import (
	"time"

	"github.com/perfkb/perfkb/kb"
)

var timeNow = time.Now

// sparqlConstraint is an sh:sparql constraint (SHACL-SPARQL).
type sparqlConstraint struct {
	node kb.Term
}

// sparql parses the sh:sparql constraint at node; SHACL-SPARQL is not
// supported, so it is refused.
func (p *parser) sparql(shapeID, node kb.ID) (*component, error) {
	return nil, p.errorf(shapeID, "sh:sparql constraints are not supported")
}

func (x *validator) checkSPARQL(s *shape, c *component, focus kb.ID, out *sink) {}
