package backend

import (
	"fmt"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// checkUpdateGraphs refuses an update that names a graph its scope may not
// write (or, for the source of ADD and COPY and for USING, read), before
// anything runs. The restricted dataset alone would let such an operation
// succeed doing nothing, since a graph outside the scope is absent to it:
// DROP GRAPH <theirs> answering 200 tells the client a lie. The decision
// looks only at the scope, never at the store, so a 403 says nothing about
// whether the graph exists. Graphs chosen by variables range over what the
// scope sees, and the dataset checks each quad written.
func checkUpdateGraphs(scope *server.Scope, graphs []query.NamedGraph) error {
	if scope.WritesAll() && scope.ReadsAll() {
		return nil
	}
	for _, g := range graphs {
		switch g.Use {
		case query.GraphRead:
			if !scope.CanRead(g.Graph) {
				return fmt.Errorf("%w: user %s may not read <%s>", server.ErrForbidden, scope.User, g.Graph)
			}
		case query.GraphWrite:
			if !scope.CanWrite(g.Graph) {
				return fmt.Errorf("%w: <%s>", server.ErrGraphForbidden, g.Graph)
			}
		case query.GraphWriteEvery:
			if !scope.WritesAll() {
				return fmt.Errorf("%w: NAMED and ALL need a token that writes every graph", server.ErrForbidden)
			}
		}
	}
	return nil
}
