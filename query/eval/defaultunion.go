package eval

import (
	"slices"

	"github.com/perfkb/perfkb/kb"
)

// defaultsAreUnion reports whether the listed default graphs (ex.defaults)
// are every graph of the store and none of them is one of perfkb's
// bookkeeping graphs (kb.HiddenGraphs). Such a default graph holds exactly
// the quads of the union default graph, and both deduplicate on the
// triple, so it is evaluated as the union: a lookup then goes through the
// store's subject-, predicate- and object-first orders over any graph
// instead of a graph-first order per listed graph. SPARQL Protocol clients
// (and the generated benchmark) send a store's only graph as
// default-graph-uri, which would otherwise pay the graph-first lookups.
func (ex *executor) defaultsAreUnion(graphs []kb.ID) (bool, error) {
	if len(graphs) == 0 || len(ex.defaults) < len(graphs) {
		return false, nil
	}
	for _, g := range graphs {
		if !slices.Contains(ex.defaults, g) {
			return false, nil
		}
	}
	for _, h := range kb.HiddenGraphs {
		id, ok, err := ex.dict.lookup(h)
		if err != nil {
			return false, err
		}
		if ok && slices.Contains(graphs, id) {
			return false, nil
		}
	}
	return true, nil
}
