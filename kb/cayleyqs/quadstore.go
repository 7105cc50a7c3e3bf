package cayleyqs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/perfkb/perfkb/kb"
)

// CheckedApplier is a store that can make ApplyDeltas' existence checks and
// its write one atomic step. ApplyChecked calls plan under the store's
// writer lock with a function reporting whether a quad is stored, and
// applies the delta plan returns before letting another write in. An error
// from plan is returned as it is (Cayley tells its delta errors by type),
// and nothing is written.
type CheckedApplier interface {
	ApplyChecked(ctx context.Context, plan func(has func(kb.Quad) (bool, error)) (kb.Delta, error)) error
}

// QuadChecker is a store that tells whether one quad is stored more
// cheaply than by counting a fully bound pattern.
type QuadChecker interface {
	HasQuad(ctx context.Context, q kb.Quad) (bool, error)
}

// NodeLister is a store that enumerates the terms its quads use (in any
// position, the graph included) without scanning every quad.
type NodeLister interface {
	// Nodes returns the IDs of the terms some quad uses, each once, in
	// increasing order.
	Nodes(ctx context.Context) NodeIterator
	// HasNode reports whether some quad uses id.
	HasNode(ctx context.Context, id kb.ID) (bool, error)
}

// NodeIterator iterates term IDs; see NodeLister.
type NodeIterator interface {
	Next() bool
	ID() kb.ID
	Err() error
	Close() error
}

// Options tune New.
type Options struct {
	// Name prefixes the iterators' names in Cayley's query plans
	// (default "perfkb").
	Name string
	// Owned makes Close close the dataset.
	Owned bool
}

// QuadStore is a kb.Dataset seen through Cayley's graph.QuadStore
// interface.
type QuadStore struct {
	ds    kb.Dataset
	name  string
	owned bool

	wmu sync.Mutex   // serializes ApplyDeltas on a store that is no CheckedApplier
	dg  atomic.Int64 // kb.DefaultGraph's ID once the store knows it
}

var (
	_ graph.QuadStore      = (*QuadStore)(nil)
	_ graph.BatchQuadStore = (*QuadStore)(nil)
)

// New returns a graph.QuadStore over ds.
func New(ds kb.Dataset, opts Options) *QuadStore {
	if opts.Name == "" {
		opts.Name = "perfkb"
	}
	return &QuadStore{ds: ds, name: opts.Name, owned: opts.Owned}
}

// Dataset returns the store under qs.
func (qs *QuadStore) Dataset() kb.Dataset { return qs.ds }

// nodeRef is a node: a term ID.
type nodeRef kb.ID

func (r nodeRef) Key() interface{} { return r }

// quadRef is a stored quad.
type quadRef kb.Quad

func (r quadRef) Key() interface{} { return r }

// ValueOf implements graph.Namer.
func (qs *QuadStore) ValueOf(v quad.Value) graph.Ref {
	t, ok := TermFromValue(v)
	if !ok {
		return nil
	}
	id, ok, err := qs.ds.Lookup(context.Background(), t)
	if err != nil || !ok {
		return nil
	}
	return nodeRef(id)
}

// NameOf implements graph.Namer.
func (qs *QuadStore) NameOf(r graph.Ref) quad.Value {
	switch r := r.(type) {
	case nodeRef:
		t, err := qs.ds.Resolve(context.Background(), kb.ID(r))
		if err != nil {
			return nil
		}
		return ValueFromTerm(t)
	case graph.PreFetchedValue:
		return r.NameOf()
	}
	return nil
}

// ValuesOf implements graph.BatchQuadStore.
func (qs *QuadStore) ValuesOf(ctx context.Context, refs []graph.Ref) ([]quad.Value, error) {
	out := make([]quad.Value, len(refs))
	for i, r := range refs {
		out[i] = qs.NameOf(r)
	}
	return out, nil
}

// RefsOf implements graph.BatchQuadStore.
func (qs *QuadStore) RefsOf(ctx context.Context, nodes []quad.Value) ([]graph.Ref, error) {
	out := make([]graph.Ref, len(nodes))
	for i, v := range nodes {
		out[i] = qs.ValueOf(v)
		if out[i] == nil {
			return nil, fmt.Errorf("not found: %v", v)
		}
	}
	return out, nil
}

// Quad implements graph.QuadIndexer.
func (qs *QuadStore) Quad(r graph.Ref) quad.Quad {
	q, ok := r.(quadRef)
	if !ok {
		return quad.Quad{}
	}
	tq, err := kb.ResolveQuad(context.Background(), qs.ds, kb.Quad(q))
	if err != nil {
		return quad.Quad{}
	}
	out := quad.Quad{Subject: ValueFromTerm(tq.S), Predicate: ValueFromTerm(tq.P), Object: ValueFromTerm(tq.O)}
	if tq.G != kb.DefaultGraph {
		out.Label = ValueFromTerm(tq.G)
	}
	return out
}

// defaultGraphID is kb.DefaultGraph's ID, 0 while the store has none. A
// term's ID never changes, so a found one is kept.
func (qs *QuadStore) defaultGraphID(ctx context.Context) kb.ID {
	if id := qs.dg.Load(); id != 0 {
		return kb.ID(id)
	}
	id, ok, err := qs.ds.Lookup(ctx, kb.DefaultGraph)
	if err != nil || !ok {
		return 0
	}
	qs.dg.Store(int64(id))
	return id
}

// QuadDirection implements graph.QuadIndexer.
func (qs *QuadStore) QuadDirection(r graph.Ref, d quad.Direction) graph.Ref {
	q, ok := r.(quadRef)
	if !ok {
		return nil
	}
	var id kb.ID
	switch d {
	case quad.Subject:
		id = q.S
	case quad.Predicate:
		id = q.P
	case quad.Object:
		id = q.O
	case quad.Label:
		if q.G == qs.defaultGraphID(context.Background()) {
			return nil
		}
		id = q.G
	default:
		return nil
	}
	return nodeRef(id)
}

func patternFor(d quad.Direction, r graph.Ref) (kb.Pattern, bool) {
	n, ok := r.(nodeRef)
	if !ok || n == 0 {
		return kb.Pattern{}, false
	}
	var p kb.Pattern
	switch d {
	case quad.Subject:
		p.S = kb.ID(n)
	case quad.Predicate:
		p.P = kb.ID(n)
	case quad.Object:
		p.O = kb.ID(n)
	case quad.Label:
		p.G = kb.ID(n)
	default:
		return p, false
	}
	return p, true
}

// QuadIterator implements graph.QuadIndexer.
func (qs *QuadStore) QuadIterator(d quad.Direction, r graph.Ref) graph.Iterator {
	p, ok := patternFor(d, r)
	return qs.newQuadsIterator(p, !ok, fmt.Sprintf("%s.Quads(%v)", qs.name, d))
}

// QuadIteratorSize implements graph.QuadIndexer with the store's estimate.
func (qs *QuadStore) QuadIteratorSize(ctx context.Context, d quad.Direction, r graph.Ref) (graph.Size, error) {
	p, ok := patternFor(d, r)
	if !ok {
		return graph.Size{Size: 0, Exact: true}, nil
	}
	n, err := qs.ds.Count(ctx, p, false)
	return graph.Size{Size: n}, err
}

// QuadsAllIterator implements graph.QuadStore.
func (qs *QuadStore) QuadsAllIterator() graph.Iterator {
	return qs.newQuadsIterator(kb.Pattern{}, false, qs.name+".AllQuads")
}

// NodesAllIterator implements graph.QuadStore: every term used by at least
// one quad (kb.DefaultGraph excepted).
func (qs *QuadStore) NodesAllIterator() graph.Iterator {
	return graph.NewLegacy(&nodesShape{qs: qs}, nil)
}

// Stats implements graph.QuadStore. The node count is the dictionary's
// size unless exact is set, when the used nodes are counted.
func (qs *QuadStore) Stats(ctx context.Context, exact bool) (graph.Stats, error) {
	st, err := qs.ds.Stats(ctx)
	if err != nil {
		return graph.Stats{}, err
	}
	out := graph.Stats{
		Quads: graph.Size{Size: st.Quads, Exact: true},
		Nodes: graph.Size{Size: st.Terms},
	}
	if exact {
		it := qs.nodes(ctx)
		n := int64(0)
		for it.Next() {
			n++
		}
		err := it.Err()
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return graph.Stats{}, err
		}
		out.Nodes = graph.Size{Size: n, Exact: true}
	}
	return out, nil
}

// has reports whether q is stored.
func (qs *QuadStore) has(ctx context.Context, q kb.Quad) (bool, error) {
	if c, ok := qs.ds.(QuadChecker); ok {
		return c.HasQuad(ctx, q)
	}
	n, err := qs.ds.Count(ctx, kb.Pattern(q), true)
	return n > 0, err
}

// nodes iterates the used nodes but kb.DefaultGraph.
func (qs *QuadStore) nodes(ctx context.Context) NodeIterator {
	var it NodeIterator
	if l, ok := qs.ds.(NodeLister); ok {
		it = l.Nodes(ctx)
	} else {
		it = scanNodes(ctx, qs.ds)
	}
	return &skipNode{NodeIterator: it, skip: qs.defaultGraphID(ctx)}
}

// hasNode reports whether a quad uses id (kb.DefaultGraph excepted).
func (qs *QuadStore) hasNode(ctx context.Context, id kb.ID) (bool, error) {
	if id == 0 || id == qs.defaultGraphID(ctx) {
		return false, nil
	}
	if l, ok := qs.ds.(NodeLister); ok {
		return l.HasNode(ctx, id)
	}
	for _, p := range []kb.Pattern{{S: id}, {P: id}, {O: id}, {G: id}} {
		n, err := qs.ds.Count(ctx, p, true)
		if err != nil || n > 0 {
			return n > 0, err
		}
	}
	return false, nil
}

// skipNode leaves one ID out of a NodeIterator.
type skipNode struct {
	NodeIterator
	skip kb.ID
}

func (it *skipNode) Next() bool {
	for it.NodeIterator.Next() {
		if it.ID() != it.skip {
			return true
		}
	}
	return false
}

// scanNodes collects the used nodes of a store that is no NodeLister from
// all its quads.
func scanNodes(ctx context.Context, ds kb.Dataset) NodeIterator {
	seen := map[kb.ID]struct{}{}
	it := ds.Match(ctx, kb.Pattern{})
	for it.Next() {
		q := it.Quad()
		seen[q.S], seen[q.P], seen[q.O], seen[q.G] = struct{}{}, struct{}{}, struct{}{}, struct{}{}
	}
	err := it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	ids := make([]kb.ID, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return &SliceNodes{IDs: ids, Error: err}
}

// SliceNodes is a NodeIterator over a slice of IDs, ending with Error.
type SliceNodes struct {
	IDs   []kb.ID
	Error error
	i     int
}

// Next implements NodeIterator.
func (it *SliceNodes) Next() bool {
	if it.i >= len(it.IDs) {
		return false
	}
	it.i++
	return true
}

// ID implements NodeIterator.
func (it *SliceNodes) ID() kb.ID { return it.IDs[it.i-1] }

// Err implements NodeIterator.
func (it *SliceNodes) Err() error { return it.Error }

// Close implements NodeIterator.
func (it *SliceNodes) Close() error { it.IDs = nil; return nil }

// ApplyDeltas implements graph.QuadStore: the deltas are applied in order,
// as one atomic kb.Delta, with Cayley's checks (a quad added that exists, a
// quad removed that does not) made in the same step as the write.
func (qs *QuadStore) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	ctx := context.Background()
	// Interning changes no visible data, so the IDs are found before the
	// writer lock is taken.
	ids := make([]kb.Quad, len(in))
	known := make([]bool, len(in))
	for i, d := range in {
		if d.Action != graph.Add && d.Action != graph.Delete {
			return &graph.DeltaError{Delta: d, Err: graph.ErrInvalidAction}
		}
		q, ok, err := qs.toIDs(ctx, d.Quad, d.Action == graph.Add)
		if err != nil {
			return &graph.DeltaError{Delta: d, Err: err}
		}
		ids[i], known[i] = q, ok
	}
	plan := func(has func(kb.Quad) (bool, error)) (kb.Delta, error) {
		type state struct{ before, now bool }
		states := make(map[kb.Quad]*state)
		var order []kb.Quad
		for i, d := range in {
			if !known[i] { // a term never seen: the quad cannot exist
				if !opts.IgnoreMissing {
					return kb.Delta{}, &graph.DeltaError{Delta: d, Err: graph.ErrQuadNotExist}
				}
				continue
			}
			q := ids[i]
			st := states[q]
			if st == nil {
				had, err := has(q)
				if err != nil {
					return kb.Delta{}, err
				}
				st = &state{before: had, now: had}
				states[q] = st
				order = append(order, q)
			}
			switch d.Action {
			case graph.Add:
				if st.now && !opts.IgnoreDup {
					return kb.Delta{}, &graph.DeltaError{Delta: d, Err: graph.ErrQuadExists}
				}
				st.now = true
			case graph.Delete:
				if !st.now && !opts.IgnoreMissing {
					return kb.Delta{}, &graph.DeltaError{Delta: d, Err: graph.ErrQuadNotExist}
				}
				st.now = false
			}
		}
		var delta kb.Delta
		for _, q := range order {
			switch st := states[q]; {
			case st.now && !st.before:
				delta.Add = append(delta.Add, q)
			case !st.now && st.before:
				delta.Remove = append(delta.Remove, q)
			}
		}
		return delta, nil
	}
	if ca, ok := qs.ds.(CheckedApplier); ok {
		return ca.ApplyChecked(ctx, plan)
	}
	qs.wmu.Lock()
	defer qs.wmu.Unlock()
	delta, err := plan(func(q kb.Quad) (bool, error) { return qs.has(ctx, q) })
	if err != nil || len(delta.Add)+len(delta.Remove) == 0 {
		return err
	}
	return qs.ds.Apply(ctx, delta)
}

var errInvalidQuad = errors.New("cayleyqs: quad needs a subject, a predicate and an object")

// toIDs converts a Cayley quad to IDs, interning its terms when intern is
// set; otherwise known is false when a term is not in the dictionary.
func (qs *QuadStore) toIDs(ctx context.Context, q quad.Quad, intern bool) (kb.Quad, bool, error) {
	var terms [4]kb.Term
	for i, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
		t, ok := TermFromValue(v)
		if !ok {
			return kb.Quad{}, false, fmt.Errorf("%w: unsupported value %#v", errInvalidQuad, v)
		}
		terms[i] = t
	}
	terms[3] = kb.DefaultGraph
	if q.Label != nil {
		t, ok := TermFromValue(q.Label)
		if !ok {
			return kb.Quad{}, false, fmt.Errorf("%w: unsupported label %#v", errInvalidQuad, q.Label)
		}
		terms[3] = t
	}
	if intern {
		ids, err := qs.ds.Intern(ctx, terms[:])
		if err != nil {
			return kb.Quad{}, false, err
		}
		return kb.Quad{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}, true, nil
	}
	var ids [4]kb.ID
	for i, t := range terms {
		id, ok, err := qs.ds.Lookup(ctx, t)
		if err != nil || !ok {
			return kb.Quad{}, false, err
		}
		ids[i] = id
	}
	return kb.Quad{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}, true, nil
}

// NewQuadWriter implements graph.QuadStore. Quads are buffered and written
// in batches of 10,000 (duplicates ignored); Close writes the rest.
func (qs *QuadStore) NewQuadWriter() (quad.WriteCloser, error) {
	return &quadWriter{qs: qs}, nil
}

type quadWriter struct {
	qs  *QuadStore
	mu  sync.Mutex
	buf []graph.Delta
}

func (w *quadWriter) WriteQuad(q quad.Quad) error {
	_, err := w.WriteQuads([]quad.Quad{q})
	return err
}

func (w *quadWriter) WriteQuads(quads []quad.Quad) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, q := range quads {
		w.buf = append(w.buf, graph.Delta{Quad: q, Action: graph.Add})
	}
	if len(w.buf) >= 10000 {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	return len(quads), nil
}

func (w *quadWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.qs.ApplyDeltas(w.buf, graph.IgnoreOpts{IgnoreDup: true})
	w.buf = w.buf[:0]
	return err
}

func (w *quadWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush()
}

// Close implements graph.QuadStore. It closes the dataset when New was
// given Options.Owned.
func (qs *QuadStore) Close() error {
	if qs.owned {
		return qs.ds.Close()
	}
	return nil
}
