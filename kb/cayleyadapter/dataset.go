package cayleyadapter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"

	"github.com/perfkb/perfkb/kb"
)

// Options tune a Dataset.
type Options struct {
	// BatchSize is the number of quads written to Cayley per transaction
	// (default 20000; 10k–100k load fastest).
	BatchSize int
}

// DefaultBatchSize is the number of quads per Cayley transaction.
const DefaultBatchSize = 20000

// Dataset is a kb.Dataset over a Cayley quad store.
type Dataset struct {
	// mu is held for reading by Match, Count, Stats and Graphs and for
	// writing by Apply, bulk Commit and Close.
	mu     sync.RWMutex
	qs     graph.QuadStore
	opts   Options
	closed atomic.Bool

	// dictMu guards the dictionary and caches below; it may be taken while
	// holding mu, never the other way round.
	dictMu sync.RWMutex
	terms  []kb.Term           // terms[id-1]
	ids    map[kb.Term]kb.ID   // term -> ID
	refIDs map[any]kb.ID       // Cayley ref key -> ID
	idRefs map[kb.ID]graph.Ref // ID -> Cayley ref (only refs that exist)

	statsMu sync.Mutex
	stats   *kb.Stats // cached; nil when a write made it stale
}

var _ kb.Dataset = (*Dataset)(nil)

// New wraps a Cayley quad store. The Dataset owns qs and closes it.
func New(qs graph.QuadStore, opts Options) *Dataset {
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	return &Dataset{
		qs:     qs,
		opts:   opts,
		ids:    make(map[kb.Term]kb.ID),
		refIDs: make(map[any]kb.ID),
		idRefs: make(map[kb.ID]graph.Ref),
	}
}

// QuadStore returns the underlying Cayley store, for Cayley's own tools.
// Writing to it directly bypasses the Dataset's locking and caches.
func (d *Dataset) QuadStore() graph.QuadStore { return d.qs }

// Intern implements kb.Dataset. New terms only enter the in-memory
// dictionary; Cayley sees them when a quad using them is written.
func (d *Dataset) Intern(ctx context.Context, terms []kb.Term) ([]kb.ID, error) {
	if d.closed.Load() {
		return nil, kb.ErrClosed
	}
	out := make([]kb.ID, len(terms))
	missing := false
	d.dictMu.RLock()
	for i, t := range terms {
		if id, ok := d.ids[t]; ok {
			out[i] = id
		} else {
			missing = true
		}
	}
	d.dictMu.RUnlock()
	if !missing {
		return out, nil
	}
	for _, t := range terms {
		if t.IsZero() {
			return nil, errors.New("cayleyadapter: cannot intern the zero term")
		}
	}
	d.dictMu.Lock()
	defer d.dictMu.Unlock()
	for i, t := range terms {
		if out[i] == kb.Any {
			out[i] = d.internLocked(t)
		}
	}
	return out, nil
}

// internLocked returns the ID of t, adding it; dictMu must be held.
func (d *Dataset) internLocked(t kb.Term) kb.ID {
	if id, ok := d.ids[t]; ok {
		return id
	}
	d.terms = append(d.terms, t)
	id := kb.ID(len(d.terms))
	d.ids[t] = id
	return id
}

// Lookup implements kb.Dataset: a term is known when it was interned or is
// in the store.
func (d *Dataset) Lookup(ctx context.Context, t kb.Term) (kb.ID, bool, error) {
	if d.closed.Load() {
		return 0, false, kb.ErrClosed
	}
	d.dictMu.RLock()
	id, ok := d.ids[t]
	d.dictMu.RUnlock()
	if ok {
		return id, true, nil
	}
	v, err := ToValue(t)
	if err != nil {
		return 0, false, nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed.Load() {
		return 0, false, kb.ErrClosed
	}
	// The SQL backend's refs are hashes, made for any value: ask for the
	// value back to know it is stored.
	ref := d.qs.ValueOf(v)
	if ref == nil || d.qs.NameOf(ref) == nil {
		return 0, false, nil
	}
	d.dictMu.Lock()
	defer d.dictMu.Unlock()
	id = d.internLocked(t)
	d.idRefs[id] = ref
	d.refIDs[graph.ToKey(ref)] = id
	return id, true, nil
}

// Resolve implements kb.Dataset.
func (d *Dataset) Resolve(ctx context.Context, id kb.ID) (kb.Term, error) {
	if d.closed.Load() {
		return kb.Term{}, kb.ErrClosed
	}
	d.dictMu.RLock()
	defer d.dictMu.RUnlock()
	if id == 0 || id > kb.ID(len(d.terms)) {
		return kb.Term{}, kb.ErrUnknownID
	}
	return d.terms[id-1], nil
}

// refOf returns the Cayley ref of an ID, or nil when no quad uses the term
// (or the ID is unknown). mu must be held.
func (d *Dataset) refOf(id kb.ID) graph.Ref {
	d.dictMu.RLock()
	ref, ok := d.idRefs[id]
	var t kb.Term
	known := id > 0 && id <= kb.ID(len(d.terms))
	if known {
		t = d.terms[id-1]
	}
	d.dictMu.RUnlock()
	if ok {
		return ref
	}
	if !known {
		return nil
	}
	v, err := ToValue(t)
	if err != nil {
		return nil
	}
	ref = d.qs.ValueOf(v)
	if ref == nil {
		return nil
	}
	d.dictMu.Lock()
	d.idRefs[id] = ref
	d.refIDs[graph.ToKey(ref)] = id
	d.dictMu.Unlock()
	return ref
}

// idOf returns the ID of a Cayley ref, interning its term. mu must be held.
func (d *Dataset) idOf(ref graph.Ref) (kb.ID, error) {
	key := graph.ToKey(ref)
	d.dictMu.RLock()
	id, ok := d.refIDs[key]
	d.dictMu.RUnlock()
	if ok {
		return id, nil
	}
	v := d.qs.NameOf(ref)
	if v == nil {
		return 0, fmt.Errorf("cayleyadapter: store has no value for node %v", key)
	}
	t, err := FromValue(v)
	if err != nil {
		return 0, err
	}
	d.dictMu.Lock()
	defer d.dictMu.Unlock()
	id = d.internLocked(t)
	d.refIDs[key] = id
	d.idRefs[id] = ref
	return id, nil
}

var directions = [4]quad.Direction{quad.Subject, quad.Predicate, quad.Object, quad.Label}

func patternAt(p kb.Pattern, i int) kb.ID {
	return [4]kb.ID{p.S, p.P, p.O, p.G}[i]
}

// plan resolves the bound positions of p to refs and picks the one to
// iterate (the smallest). ok is false when nothing can match.
type plan struct {
	refs  [4]graph.Ref
	keys  [4]any
	bound int // number of bound positions
	lead  int // index of the position to iterate, -1 for all quads
	size  graph.Size
}

func (d *Dataset) plan(ctx context.Context, p kb.Pattern) (pl plan, ok bool, err error) {
	pl.lead = -1
	for i := 0; i < 4; i++ {
		id := patternAt(p, i)
		if id == kb.Any {
			continue
		}
		pl.bound++
		ref := d.refOf(id)
		if ref == nil {
			return pl, false, nil
		}
		pl.refs[i], pl.keys[i] = ref, graph.ToKey(ref)
		size, err := d.qs.QuadIteratorSize(ctx, directions[i], ref)
		if err != nil {
			return pl, false, err
		}
		if pl.lead < 0 || size.Size < pl.size.Size {
			pl.lead, pl.size = i, size
		}
	}
	return pl, true, nil
}

// scan calls fn for every quad ref matching pl.
func (d *Dataset) scan(ctx context.Context, pl plan, fn func(graph.Ref) error) error {
	var it graph.Iterator
	if pl.lead < 0 {
		it = d.qs.QuadsAllIterator()
	} else {
		it = d.qs.QuadIterator(directions[pl.lead], pl.refs[pl.lead])
	}
	defer it.Close()
	n := 0
	for it.Next(ctx) {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := it.Result()
		match := true
		for i := 0; i < 4 && match; i++ {
			if pl.refs[i] != nil && i != pl.lead {
				match = graph.ToKey(d.qs.QuadDirection(r, directions[i])) == pl.keys[i]
			}
		}
		if !match {
			continue
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return it.Err()
}

// quadIDs returns the ID quad of a Cayley quad ref; bound positions of p
// are taken from p. A quad without a label is in kb.DefaultGraph.
func (d *Dataset) quadIDs(r graph.Ref, p kb.Pattern) (kb.Quad, error) {
	var out [4]kb.ID
	for i := 0; i < 4; i++ {
		if id := patternAt(p, i); id != kb.Any {
			out[i] = id
			continue
		}
		ref := d.qs.QuadDirection(r, directions[i])
		if ref == nil && i == 3 {
			ids, err := d.Intern(context.Background(), []kb.Term{kb.DefaultGraph})
			if err != nil {
				return kb.Quad{}, err
			}
			out[i] = ids[0]
			continue
		}
		if ref == nil {
			return kb.Quad{}, fmt.Errorf("cayleyadapter: quad without %v", directions[i])
		}
		id, err := d.idOf(ref)
		if err != nil {
			return kb.Quad{}, err
		}
		out[i] = id
	}
	return kb.Quad{S: out[0], P: out[1], O: out[2], G: out[3]}, nil
}

// Match implements kb.Dataset. The result is materialised under the read
// lock, so the iterator is a snapshot.
func (d *Dataset) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed.Load() {
		return kb.NewErrorIterator(kb.ErrClosed)
	}
	pl, ok, err := d.plan(ctx, p)
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	if !ok {
		return kb.NewSliceIterator(nil)
	}
	var out []kb.Quad
	err = d.scan(ctx, pl, func(r graph.Ref) error {
		q, err := d.quadIDs(r, p)
		if err != nil {
			return err
		}
		out = append(out, q)
		return nil
	})
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	return kb.NewSliceIterator(out)
}

// Count implements kb.Dataset. Estimates come from Cayley's index sizes.
func (d *Dataset) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed.Load() {
		return 0, kb.ErrClosed
	}
	pl, ok, err := d.plan(ctx, p)
	if err != nil || !ok {
		return 0, err
	}
	switch {
	case pl.bound == 0:
		st, err := d.cayleyStats(ctx, exact)
		if err != nil {
			return 0, err
		}
		if st.Quads.Exact || !exact {
			return st.Quads.Size, nil
		}
	case pl.bound == 1 && (pl.size.Exact || !exact):
		return pl.size.Size, nil
	case !exact:
		return pl.size.Size, nil
	}
	var n int64
	err = d.scan(ctx, pl, func(graph.Ref) error { n++; return nil })
	return n, err
}

// Stats implements kb.Dataset. The per-predicate and per-graph counts come
// from one scan of the store, cached until the next write.
func (d *Dataset) Stats(ctx context.Context) (kb.Stats, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed.Load() {
		return kb.Stats{}, kb.ErrClosed
	}
	st, err := d.statsLocked(ctx)
	if err != nil {
		return kb.Stats{}, err
	}
	out := *st
	out.ByPredicate = cloneMap(st.ByPredicate)
	out.ByGraph = cloneMap(st.ByGraph)
	out.ByPredicateGraph = cloneMap(st.ByPredicateGraph)
	return out, nil
}

func cloneMap[K comparable](m map[K]int64) map[K]int64 {
	out := make(map[K]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// statsLocked returns the cached statistics, computing them if stale. mu
// must be held.
func (d *Dataset) statsLocked(ctx context.Context) (*kb.Stats, error) {
	d.statsMu.Lock()
	defer d.statsMu.Unlock()
	if d.stats != nil {
		return d.stats, nil
	}
	cs, err := d.cayleyStats(ctx, true)
	if err != nil {
		return nil, err
	}
	st := &kb.Stats{
		Terms:            cs.Nodes.Size,
		ByPredicate:      make(map[kb.ID]int64),
		ByGraph:          make(map[kb.ID]int64),
		ByPredicateGraph: make(map[[2]kb.ID]int64),
	}
	err = d.scan(ctx, plan{lead: -1}, func(r graph.Ref) error {
		q, err := d.quadIDs(r, kb.Pattern{S: ^kb.ID(0), O: ^kb.ID(0)}) // S and O are not needed
		if err != nil {
			return err
		}
		st.Quads++
		st.ByPredicate[q.P]++
		st.ByGraph[q.G]++
		st.ByPredicateGraph[[2]kb.ID{q.P, q.G}]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.stats = st
	return st, nil
}

// cayleyStats returns the store's own statistics. A fresh kv store has
// no size record yet and reports kv.ErrNoBucket: that is an empty store.
func (d *Dataset) cayleyStats(ctx context.Context, exact bool) (graph.Stats, error) {
	st, err := d.qs.Stats(ctx, exact)
	if errors.Is(err, cayleykv.ErrNoBucket) {
		return graph.Stats{Nodes: graph.Size{Exact: true}, Quads: graph.Size{Exact: true}}, nil
	}
	return st, err
}

// Graphs implements kb.Dataset.
func (d *Dataset) Graphs(ctx context.Context) ([]kb.ID, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed.Load() {
		return nil, kb.ErrClosed
	}
	st, err := d.statsLocked(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]kb.ID, 0, len(st.ByGraph))
	for g := range st.ByGraph {
		out = append(out, g)
	}
	return out, nil
}

// values returns the Cayley quad of an ID quad, checking every ID.
func (d *Dataset) values(q kb.Quad) (quad.Quad, error) {
	var vs [4]quad.Value
	for i, id := range [4]kb.ID{q.S, q.P, q.O, q.G} {
		if id == 0 || id > kb.ID(len(d.terms)) {
			return quad.Quad{}, fmt.Errorf("%w %d in quad %v", kb.ErrUnknownID, id, q)
		}
		v, err := ToValue(d.terms[id-1])
		if err != nil {
			return quad.Quad{}, err
		}
		vs[i] = v
	}
	return quad.Quad{Subject: vs[0], Predicate: vs[1], Object: vs[2], Label: vs[3]}, nil
}

// deltas converts quads to Cayley deltas, dropping duplicates (the SQL
// backend rolls back a transaction with a duplicate inside).
func (d *Dataset) deltas(quads []kb.Quad, action graph.Procedure, skip map[kb.Quad]struct{}) ([]graph.Delta, error) {
	d.dictMu.RLock()
	defer d.dictMu.RUnlock()
	seen := make(map[kb.Quad]struct{}, len(quads))
	out := make([]graph.Delta, 0, len(quads))
	for _, q := range quads {
		if _, dup := seen[q]; dup {
			continue
		}
		seen[q] = struct{}{}
		if _, ok := skip[q]; ok {
			continue
		}
		cq, err := d.values(q)
		if err != nil {
			return nil, err
		}
		out = append(out, graph.Delta{Quad: cq, Action: action})
	}
	return out, nil
}

// Apply implements kb.Dataset. A delta of up to Options.BatchSize quads is
// one Cayley transaction, so it is atomic and durable as the backend's
// transactions are. A larger delta is written in several transactions under
// one write lock: readers still see it all at once, but if the store fails
// part way, the transactions already committed stay.
func (d *Dataset) Apply(ctx context.Context, delta kb.Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.closed.Load() {
		return kb.ErrClosed
	}
	// Removals come first: a quad both removed and added stays, so it is
	// simply not removed (Cayley's SQL backend runs additions first).
	var added map[kb.Quad]struct{}
	if len(delta.Remove) > 0 && len(delta.Add) > 0 {
		added = make(map[kb.Quad]struct{}, len(delta.Add))
		for _, q := range delta.Add {
			added[q] = struct{}{}
		}
	}
	removes, err := d.deltas(delta.Remove, graph.Delete, added)
	if err != nil {
		return err
	}
	adds, err := d.deltas(delta.Add, graph.Add, nil)
	if err != nil {
		return err
	}
	if len(removes)+len(adds) == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return kb.ErrClosed
	}
	return d.writeLocked(ctx, append(removes, adds...), len(removes) > 0)
}

// writeLocked writes deltas in transactions of BatchSize. mu must be held
// for writing.
func (d *Dataset) writeLocked(ctx context.Context, deltas []graph.Delta, removes bool) error {
	defer d.invalidate(removes)
	for start := 0; start < len(deltas); start += d.opts.BatchSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+d.opts.BatchSize, len(deltas))
		if err := d.qs.ApplyDeltas(deltas[start:end], graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}); err != nil {
			return fmt.Errorf("cayleyadapter: write: %w", err)
		}
	}
	return nil
}

// invalidate drops caches a write made stale: the statistics always, the
// ref caches when nodes may have been deleted (memstore reuses nothing, but
// a node deleted and re-added gets a new ref).
func (d *Dataset) invalidate(removes bool) {
	d.statsMu.Lock()
	d.stats = nil
	d.statsMu.Unlock()
	if removes {
		d.dictMu.Lock()
		clear(d.idRefs)
		clear(d.refIDs)
		d.dictMu.Unlock()
	}
}

// BeginBulk implements kb.Dataset. Quads are staged in memory (32 bytes
// each, so a load is bounded by RAM: about 32 MB per million quads) and
// written on Commit in transactions of Options.BatchSize quads under one
// write lock, so readers see the whole load at once and a load that fails
// before Commit (a syntax error) leaves the store untouched. If the store
// itself fails during Commit, the transactions already written stay.
func (d *Dataset) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	if d.closed.Load() {
		return nil, kb.ErrClosed
	}
	return &bulk{d: d}, nil
}

type bulk struct {
	d        *Dataset
	staged   []kb.Quad
	done     bool
	progress func(done, total int64)
}

var _ kb.CommitReporter = (*bulk)(nil)

// SetCommitProgress implements kb.CommitReporter: Commit calls fn after
// each transaction.
func (b *bulk) SetCommitProgress(fn func(done, total int64)) { b.progress = fn }

var errBulkDone = errors.New("cayleyadapter: bulk load already committed or aborted")

func (b *bulk) Add(ctx context.Context, quads []kb.Quad) error {
	if b.done {
		return errBulkDone
	}
	b.staged = append(b.staged, quads...)
	return nil
}

func (b *bulk) Commit(ctx context.Context) error {
	if b.done {
		return errBulkDone
	}
	b.done = true
	staged := b.staged
	b.staged = nil
	d := b.d
	if d.closed.Load() {
		return kb.ErrClosed
	}
	// Check every ID before writing anything.
	d.dictMu.RLock()
	n := kb.ID(len(d.terms))
	d.dictMu.RUnlock()
	for _, q := range staged {
		if q.S == 0 || q.P == 0 || q.O == 0 || q.G == 0 || q.S > n || q.P > n || q.O > n || q.G > n {
			return fmt.Errorf("%w in bulk quad %v", kb.ErrUnknownID, q)
		}
	}
	if len(staged) == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() {
		return kb.ErrClosed
	}
	defer d.invalidate(false)
	for start := 0; start < len(staged); start += d.opts.BatchSize {
		end := min(start+d.opts.BatchSize, len(staged))
		deltas, err := d.deltas(staged[start:end], graph.Add, nil)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.qs.ApplyDeltas(deltas, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}); err != nil {
			return fmt.Errorf("cayleyadapter: bulk write: %w", err)
		}
		if b.progress != nil {
			b.progress(int64(end), int64(len(staged)))
		}
	}
	return nil
}

func (b *bulk) Abort() error {
	b.done = true
	b.staged = nil
	return nil
}

// Close implements kb.Dataset; it closes the Cayley store.
func (d *Dataset) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Swap(true) {
		return nil
	}
	return d.qs.Close()
}
