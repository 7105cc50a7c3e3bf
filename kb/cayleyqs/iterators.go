package cayleyqs

import (
	"context"

	"github.com/cayleygraph/cayley/graph"

	"github.com/perfkb/perfkb/kb"
)

// refIter is what a scanner reads: quads of a pattern or used nodes.
type refIter interface {
	next() (graph.Ref, bool)
	err() error
	close() error
}

type quadRefs struct{ kb.QuadIterator }

func (it quadRefs) next() (graph.Ref, bool) {
	if !it.Next() {
		return nil, false
	}
	return quadRef(it.Quad()), true
}
func (it quadRefs) err() error   { return it.Err() }
func (it quadRefs) close() error { return it.Close() }

type nodeRefs struct{ NodeIterator }

func (it nodeRefs) next() (graph.Ref, bool) {
	if !it.Next() {
		return nil, false
	}
	return nodeRef(it.ID()), true
}
func (it nodeRefs) err() error   { return it.Err() }
func (it nodeRefs) close() error { return it.Close() }

// scanner is Cayley's graph.Scanner over a refIter opened at the first
// Next.
type scanner struct {
	name string
	open func(context.Context) refIter // nil: nothing to scan
	it   refIter
	done bool
	cur  graph.Ref
	err  error
}

func (sc *scanner) Next(ctx context.Context) bool {
	sc.cur = nil
	if sc.open == nil || sc.done || sc.err != nil {
		return false
	}
	if err := ctx.Err(); err != nil {
		sc.err = err
		return false
	}
	if sc.it == nil {
		sc.it = sc.open(ctx)
	}
	r, ok := sc.it.next()
	if !ok {
		sc.err = sc.it.err()
		return false
	}
	sc.cur = r
	return true
}

func (sc *scanner) Result() graph.Ref               { return sc.cur }
func (sc *scanner) NextPath(context.Context) bool   { return false }
func (sc *scanner) TagResults(map[string]graph.Ref) {}
func (sc *scanner) Err() error                      { return sc.err }
func (sc *scanner) String() string                  { return sc.name }
func (sc *scanner) Close() error {
	sc.done = true
	if sc.it != nil {
		err := sc.it.close()
		sc.it = nil
		return err
	}
	return nil
}

// index is Cayley's graph.Index over a membership test.
type index struct {
	name     string
	contains func(context.Context, graph.Ref) (bool, error)
	cur      graph.Ref
	err      error
}

func (ix *index) Contains(ctx context.Context, r graph.Ref) bool {
	ix.cur = nil
	ok, err := ix.contains(ctx, r)
	if err != nil {
		ix.err = err
		return false
	}
	if ok {
		ix.cur = r
	}
	return ok
}

func (ix *index) Result() graph.Ref               { return ix.cur }
func (ix *index) NextPath(context.Context) bool   { return false }
func (ix *index) TagResults(map[string]graph.Ref) {}
func (ix *index) Err() error                      { return ix.err }
func (ix *index) Close() error                    { return nil }
func (ix *index) String() string                  { return ix.name }

// quadsShape iterates the quads matching a pattern.
type quadsShape struct {
	qs    *QuadStore
	p     kb.Pattern
	empty bool
	name  string
}

func (qs *QuadStore) newQuadsIterator(p kb.Pattern, empty bool, name string) graph.Iterator {
	return graph.NewLegacy(&quadsShape{qs: qs, p: p, empty: empty, name: name}, nil)
}

func (sh *quadsShape) String() string                                       { return sh.name }
func (sh *quadsShape) SubIterators() []graph.IteratorShape                  { return nil }
func (sh *quadsShape) Optimize(context.Context) (graph.IteratorShape, bool) { return sh, false }

func (sh *quadsShape) Stats(ctx context.Context) (graph.IteratorCosts, error) {
	if sh.empty {
		return graph.IteratorCosts{Size: graph.Size{Exact: true}}, nil
	}
	n, err := sh.qs.ds.Count(ctx, sh.p, false)
	return graph.IteratorCosts{NextCost: 1, ContainsCost: 2, Size: graph.Size{Size: n}}, err
}

func (sh *quadsShape) Iterate() graph.Scanner {
	sc := &scanner{name: sh.name}
	if !sh.empty {
		sc.open = func(ctx context.Context) refIter { return quadRefs{sh.qs.ds.Match(ctx, sh.p)} }
	}
	return sc
}

func (sh *quadsShape) Lookup() graph.Index {
	return &index{name: sh.name, contains: func(ctx context.Context, r graph.Ref) (bool, error) {
		q, ok := r.(quadRef)
		if !ok || sh.empty || !sh.p.Matches(kb.Quad(q)) {
			return false, nil
		}
		return sh.qs.has(ctx, kb.Quad(q))
	}}
}

// nodesShape iterates every node used by a quad.
type nodesShape struct{ qs *QuadStore }

func (sh *nodesShape) String() string                      { return sh.qs.name + ".AllNodes" }
func (sh *nodesShape) SubIterators() []graph.IteratorShape { return nil }
func (sh *nodesShape) Optimize(context.Context) (graph.IteratorShape, bool) {
	return sh, false
}

func (sh *nodesShape) Stats(ctx context.Context) (graph.IteratorCosts, error) {
	st, err := sh.qs.ds.Stats(ctx)
	return graph.IteratorCosts{NextCost: 4, ContainsCost: 4, Size: graph.Size{Size: st.Terms}}, err
}

func (sh *nodesShape) Iterate() graph.Scanner {
	return &scanner{name: sh.String(), open: func(ctx context.Context) refIter { return nodeRefs{sh.qs.nodes(ctx)} }}
}

func (sh *nodesShape) Lookup() graph.Index {
	return &index{name: sh.String(), contains: func(ctx context.Context, r graph.Ref) (bool, error) {
		n, ok := r.(nodeRef)
		if !ok {
			return false, nil
		}
		return sh.qs.hasNode(ctx, kb.ID(n))
	}}
}
