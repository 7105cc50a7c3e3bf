package cayleyqs

import (
	"context"

	"github.com/cayleygraph/cayley/graph"

	"github.com/perfkb/perfkb/kb"
)

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

func (sh *quadsShape) Iterate() graph.Scanner { return &quadsScanner{sh: sh} }
func (sh *quadsShape) Lookup() graph.Index    { return &quadsIndex{sh: sh} }

type quadsScanner struct {
	sh   *quadsShape
	it   kb.QuadIterator
	done bool
	cur  graph.Ref
	err  error
}

func (sc *quadsScanner) Next(ctx context.Context) bool {
	sc.cur = nil
	if sc.sh.empty || sc.done || sc.err != nil {
		return false
	}
	if sc.it == nil {
		sc.it = sc.sh.qs.ds.Match(ctx, sc.sh.p)
	}
	if !sc.it.Next() {
		sc.err = sc.it.Err()
		return false
	}
	sc.cur = quadRef(sc.it.Quad())
	return true
}

func (sc *quadsScanner) Result() graph.Ref               { return sc.cur }
func (sc *quadsScanner) NextPath(context.Context) bool   { return false }
func (sc *quadsScanner) TagResults(map[string]graph.Ref) {}
func (sc *quadsScanner) Err() error                      { return sc.err }
func (sc *quadsScanner) String() string                  { return sc.sh.name }
func (sc *quadsScanner) Close() error {
	sc.done = true
	if sc.it != nil {
		err := sc.it.Close()
		sc.it = nil
		return err
	}
	return nil
}

type quadsIndex struct {
	sh  *quadsShape
	cur graph.Ref
	err error
}

func (ix *quadsIndex) Contains(ctx context.Context, r graph.Ref) bool {
	ix.cur = nil
	q, ok := r.(quadRef)
	if !ok || ix.sh.empty || !ix.sh.p.Matches(kb.Quad(q)) {
		return false
	}
	has, err := ix.sh.qs.has(ctx, kb.Quad(q))
	if err != nil {
		ix.err = err
		return false
	}
	if has {
		ix.cur = q
	}
	return has
}

func (ix *quadsIndex) Result() graph.Ref               { return ix.cur }
func (ix *quadsIndex) NextPath(context.Context) bool   { return false }
func (ix *quadsIndex) TagResults(map[string]graph.Ref) {}
func (ix *quadsIndex) Err() error                      { return ix.err }
func (ix *quadsIndex) Close() error                    { return nil }
func (ix *quadsIndex) String() string                  { return ix.sh.name }

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

func (sh *nodesShape) Iterate() graph.Scanner { return &nodesScanner{sh: sh} }
func (sh *nodesShape) Lookup() graph.Index    { return &nodesIndex{sh: sh} }

type nodesScanner struct {
	sh   *nodesShape
	it   NodeIterator
	done bool
	cur  graph.Ref
	err  error
}

func (sc *nodesScanner) Next(ctx context.Context) bool {
	sc.cur = nil
	if sc.done || sc.err != nil {
		return false
	}
	if sc.it == nil {
		sc.it = sc.sh.qs.nodes(ctx)
	}
	if err := ctx.Err(); err != nil {
		sc.err = err
		return false
	}
	if !sc.it.Next() {
		sc.err = sc.it.Err()
		return false
	}
	sc.cur = nodeRef(sc.it.ID())
	return true
}

func (sc *nodesScanner) Result() graph.Ref               { return sc.cur }
func (sc *nodesScanner) NextPath(context.Context) bool   { return false }
func (sc *nodesScanner) TagResults(map[string]graph.Ref) {}
func (sc *nodesScanner) Err() error                      { return sc.err }
func (sc *nodesScanner) String() string                  { return sc.sh.String() }
func (sc *nodesScanner) Close() error {
	sc.done = true
	if sc.it != nil {
		err := sc.it.Close()
		sc.it = nil
		return err
	}
	return nil
}

type nodesIndex struct {
	sh  *nodesShape
	cur graph.Ref
	err error
}

func (ix *nodesIndex) Contains(ctx context.Context, r graph.Ref) bool {
	ix.cur = nil
	n, ok := r.(nodeRef)
	if !ok {
		return false
	}
	used, err := ix.sh.qs.hasNode(ctx, kb.ID(n))
	if err != nil {
		ix.err = err
		return false
	}
	if used {
		ix.cur = n
	}
	return used
}

func (ix *nodesIndex) Result() graph.Ref               { return ix.cur }
func (ix *nodesIndex) NextPath(context.Context) bool   { return false }
func (ix *nodesIndex) TagResults(map[string]graph.Ref) {}
func (ix *nodesIndex) Err() error                      { return ix.err }
func (ix *nodesIndex) Close() error                    { return nil }
func (ix *nodesIndex) String() string                  { return ix.sh.String() }
