package kbtest

import (
	"context"
	"errors"
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// Memory is the reference in-memory kb.Dataset of the tests: a plain store
// (a hash map or array per index position) to compare real stores against,
// and the one store that declares kb.QuadSource, so the query evaluator's
// QuadSource path stays tested. Production code uses the native in-memory
// store (native.OpenMemory) instead.
//
// It indexes quads by each position, so any
// pattern with a bound position is answered from the smallest matching index.
// It is safe for concurrent use.
//
// Each index bucket is a slice that is copy-on-write for removals and
// append-only for additions: the elements below a published length are
// never modified. Match therefore takes a slice header under the read lock
// and iterates without the lock and without copying; iterators see a
// snapshot, and a reader may call back into the store while iterating.
type Memory struct {
	mu     sync.RWMutex
	closed bool
	ids    map[kb.Term]kb.ID
	terms  []kb.Term // terms[id-1]
	all    map[kb.Quad]struct{}
	// index holds the buckets by P and G (few keys); dense holds those by S
	// and O, indexed by kb.ID (IDs are dense), so the lookups that dominate
	// joins are array loads rather than hash probes. Every quad is in one
	// bucket per position.
	index [4]map[kb.ID][]kb.Quad
	dense [4][][]kb.Quad
	byPG  map[[2]kb.ID]int64 // quads per (predicate, graph)
}

// NewMemory returns an empty reference dataset.
func NewMemory() *Memory {
	m := &Memory{ids: make(map[kb.Term]kb.ID), all: make(map[kb.Quad]struct{}), byPG: make(map[[2]kb.ID]int64)}
	m.index[1] = make(map[kb.ID][]kb.Quad)
	m.index[3] = make(map[kb.ID][]kb.Quad)
	return m
}

var (
	_ kb.Dataset    = (*Memory)(nil)
	_ kb.TermTable  = (*Memory)(nil)
	_ kb.QuadSource = (*Memory)(nil)
)

// Intern implements kb.Dataset.
func (m *Memory) Intern(ctx context.Context, terms []kb.Term) ([]kb.ID, error) {
	out := make([]kb.ID, len(terms))
	m.mu.RLock()
	missing := false
	for i, t := range terms {
		id, ok := m.ids[t]
		if !ok {
			missing = true
			continue
		}
		out[i] = id
	}
	closed := m.closed
	m.mu.RUnlock()
	if closed {
		return nil, kb.ErrClosed
	}
	if !missing {
		return out, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range terms {
		if out[i] != 0 {
			continue
		}
		if t.IsZero() {
			return nil, errZeroTerm
		}
		id, ok := m.ids[t]
		if !ok {
			m.terms = append(m.terms, t)
			id = kb.ID(len(m.terms))
			m.ids[t] = id
		}
		out[i] = id
	}
	return out, nil
}

// Lookup implements kb.Dataset.
func (m *Memory) Lookup(ctx context.Context, t kb.Term) (kb.ID, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, false, kb.ErrClosed
	}
	id, ok := m.ids[t]
	return id, ok, nil
}

// Resolve implements kb.Dataset.
func (m *Memory) Resolve(ctx context.Context, id kb.ID) (kb.Term, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return kb.Term{}, kb.ErrClosed
	}
	if id == 0 || id > kb.ID(len(m.terms)) {
		return kb.Term{}, kb.ErrUnknownID
	}
	return m.terms[id-1], nil
}

// TermOf returns the term of id, or false when id is unknown or the store
// is closed. It is Resolve without a context or an error path, for callers
// that decode many IDs (the query evaluator).
func (m *Memory) TermOf(id kb.ID) (kb.Term, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed || id == 0 || id > kb.ID(len(m.terms)) {
		return kb.Term{}, false
	}
	return m.terms[id-1], true
}

// bucket returns the quads with id at position i.
func (m *Memory) bucket(i int, id kb.ID) []kb.Quad {
	if i == 1 || i == 3 {
		return m.index[i][id]
	}
	if id < kb.ID(len(m.dense[i])) {
		return m.dense[i][id]
	}
	return nil
}

// setBucket replaces the bucket of id at position i (nil deletes it).
func (m *Memory) setBucket(i int, id kb.ID, b []kb.Quad) {
	if i == 1 || i == 3 {
		if len(b) == 0 {
			delete(m.index[i], id)
		} else {
			m.index[i][id] = b
		}
		return
	}
	if id >= kb.ID(len(m.dense[i])) {
		if len(b) == 0 {
			return
		}
		grown := make([][]kb.Quad, max(int(id)+1, len(m.terms)+1, 2*len(m.dense[i])))
		copy(grown, m.dense[i])
		m.dense[i] = grown
	}
	m.dense[i][id] = b
}

func position(q kb.Quad, i int) kb.ID {
	switch i {
	case 0:
		return q.S
	case 1:
		return q.P
	case 2:
		return q.O
	}
	return q.G
}

// at returns the ID at position i of p.
func at(p kb.Pattern, i int) kb.ID { return position(kb.Quad(p), i) }

// smallestBucket returns the smallest index bucket for p and how many
// positions are bound; all=true when no position is bound.
func (m *Memory) smallestBucket(p kb.Pattern) (bucket []kb.Quad, bound int, all bool) {
	best := -1
	for _, i := range [4]int{0, 2, 1, 3} { // array-indexed positions first
		id := at(p, i)
		if id == kb.Any {
			continue
		}
		bound++
		if best >= 0 && len(bucket) <= smallBucket {
			continue // filtering a handful of quads beats another lookup
		}
		b := m.bucket(i, id)
		if len(b) == 0 {
			return nil, bound, false
		}
		if best < 0 || len(b) < len(bucket) {
			best, bucket = i, b
		}
	}
	return bucket, bound, best < 0
}

// smallBucket is the bucket size below which smallestBucket stops looking
// at the other bound positions.
const smallBucket = 16

// memoryIterator walks snapshots of index buckets, keeping the quads that
// match its pattern.
type memoryIterator struct {
	p      kb.Pattern
	filter bool
	cur    []kb.Quad
	rest   [][]kb.Quad
	i      int
}

func (it *memoryIterator) Next() bool {
	for {
		it.i++
		for it.i >= len(it.cur) {
			if len(it.rest) == 0 {
				it.cur = nil
				return false
			}
			it.cur, it.rest, it.i = it.rest[0], it.rest[1:], 0
		}
		if !it.filter || it.p.Matches(it.cur[it.i]) {
			return true
		}
	}
}

func (it *memoryIterator) Quad() kb.Quad { return it.cur[it.i] }
func (it *memoryIterator) Err() error    { return nil }
func (it *memoryIterator) Close() error  { it.cur, it.rest = nil, nil; return nil }

// Match implements kb.Dataset. It does not copy: the iterator walks a snapshot
// of the smallest index bucket.
func (m *Memory) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return kb.NewErrorIterator(kb.ErrClosed)
	}
	if p.S != kb.Any && p.P != kb.Any && p.O != kb.Any && p.G != kb.Any {
		_, ok := m.all[kb.Quad(p)]
		m.mu.RUnlock()
		if ok {
			return kb.NewSliceIterator([]kb.Quad{kb.Quad(p)})
		}
		return kb.NewSliceIterator(nil)
	}
	bucket, bound, all := m.smallestBucket(p)
	var rest [][]kb.Quad
	if all {
		rest = make([][]kb.Quad, 0, len(m.index[3]))
		for _, b := range m.index[3] {
			rest = append(rest, b)
		}
	}
	m.mu.RUnlock()
	return &memoryIterator{p: p, filter: bound > 1, cur: bucket, rest: rest, i: -1}
}

// MatchQuads returns a snapshot of the smallest index bucket for p: every
// quad matching p is in it, and the caller keeps those p.Matches. ok is
// false when no position is bound or the store is closed (use Match). The
// slice is never modified by later writes (buckets are append-only, and
// removals copy), so the caller may iterate it without a lock and call the
// store meanwhile. It is the query evaluator's allocation-free Match.
func (m *Memory) MatchQuads(p kb.Pattern) (quads []kb.Quad, ok bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, false
	}
	bucket, _, all := m.smallestBucket(p)
	if all {
		return nil, false
	}
	return bucket, true
}

// exactCountLimit bounds the bucket an estimating Count walks; above it the
// size of the smallest bucket is the estimate (never below the true count).
const exactCountLimit = 4096

// Count implements kb.Dataset. Exact counts walk the smallest bucket when more
// than one position is bound; estimates do so only for small buckets.
func (m *Memory) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return 0, kb.ErrClosed
	}
	if p.S != kb.Any && p.P != kb.Any && p.O != kb.Any && p.G != kb.Any {
		_, ok := m.all[kb.Quad(p)]
		m.mu.RUnlock()
		if ok {
			return 1, nil
		}
		return 0, nil
	}
	bucket, bound, all := m.smallestBucket(p)
	total := len(m.all)
	m.mu.RUnlock()
	if all {
		return int64(total), nil
	}
	if bound == 1 || (!exact && len(bucket) > exactCountLimit) {
		return int64(len(bucket)), nil
	}
	var n int64
	for _, q := range bucket {
		if p.Matches(q) {
			n++
		}
	}
	return n, nil
}

// Stats implements kb.Dataset.
func (m *Memory) Stats(ctx context.Context) (kb.Stats, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return kb.Stats{}, kb.ErrClosed
	}
	st := kb.Stats{
		Quads:            int64(len(m.all)),
		Terms:            int64(len(m.terms)),
		ByPredicate:      make(map[kb.ID]int64, len(m.index[1])),
		ByGraph:          make(map[kb.ID]int64, len(m.index[3])),
		ByPredicateGraph: make(map[[2]kb.ID]int64, len(m.byPG)),
	}
	for p, s := range m.index[1] {
		st.ByPredicate[p] = int64(len(s))
	}
	for g, s := range m.index[3] {
		st.ByGraph[g] = int64(len(s))
	}
	for pg, n := range m.byPG {
		st.ByPredicateGraph[pg] = n
	}
	return st, nil
}

// Graphs implements kb.Dataset.
func (m *Memory) Graphs(ctx context.Context) ([]kb.ID, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, kb.ErrClosed
	}
	out := make([]kb.ID, 0, len(m.index[3]))
	for g := range m.index[3] {
		out = append(out, g)
	}
	return out, nil
}

func (m *Memory) checkIDs(quads []kb.Quad) error {
	for _, q := range quads {
		for i := 0; i < 4; i++ {
			id := position(q, i)
			if id == 0 || id > kb.ID(len(m.terms)) {
				return kb.ErrUnknownID
			}
		}
	}
	return nil
}

// Apply implements kb.Dataset.
func (m *Memory) Apply(ctx context.Context, d kb.Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return kb.ErrClosed
	}
	if err := m.checkIDs(d.Remove); err != nil {
		return err
	}
	if err := m.checkIDs(d.Add); err != nil {
		return err
	}
	m.remove(d.Remove)
	for _, q := range d.Add {
		m.add(q)
	}
	return nil
}

// add appends q to its buckets. Appending never changes the elements a
// reader's snapshot can see.
func (m *Memory) add(q kb.Quad) {
	if _, ok := m.all[q]; ok {
		return
	}
	m.all[q] = struct{}{}
	for i := 0; i < 4; i++ {
		id := position(q, i)
		m.setBucket(i, id, append(m.bucket(i, id), q))
	}
	m.byPG[[2]kb.ID{q.P, q.G}]++
}

// remove deletes quads, rebuilding each affected bucket once into a fresh
// slice (copy-on-write), so snapshots held by readers stay intact.
func (m *Memory) remove(quads []kb.Quad) {
	gone := make(map[kb.Quad]struct{})
	for _, q := range quads {
		if _, ok := m.all[q]; !ok {
			continue
		}
		delete(m.all, q)
		gone[q] = struct{}{}
		pg := [2]kb.ID{q.P, q.G}
		if m.byPG[pg]--; m.byPG[pg] <= 0 {
			delete(m.byPG, pg)
		}
	}
	if len(gone) == 0 {
		return
	}
	for i := 0; i < 4; i++ {
		touched := make(map[kb.ID]struct{})
		for q := range gone {
			touched[position(q, i)] = struct{}{}
		}
		for id := range touched {
			old := m.bucket(i, id)
			kept := make([]kb.Quad, 0, len(old))
			for _, q := range old {
				if _, drop := gone[q]; !drop {
					kept = append(kept, q)
				}
			}
			m.setBucket(i, id, kept)
		}
	}
}

// BeginBulk implements kb.Dataset. Staged quads are held in memory.
func (m *Memory) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	return &stagedBulk{ds: m}, nil
}

// stagedBulk buffers a bulk load in memory and applies it as one kb.Delta on
// Commit.
type stagedBulk struct {
	ds     kb.Dataset
	staged []kb.Quad
	done   bool
}

func (b *stagedBulk) Add(ctx context.Context, quads []kb.Quad) error {
	if b.done {
		return errBulkDone
	}
	b.staged = append(b.staged, quads...)
	return nil
}

func (b *stagedBulk) Commit(ctx context.Context) error {
	if b.done {
		return errBulkDone
	}
	b.done = true
	err := b.ds.Apply(ctx, kb.Delta{Add: b.staged})
	b.staged = nil
	return err
}

func (b *stagedBulk) Abort() error {
	b.done = true
	b.staged = nil
	return nil
}

// errZeroTerm and errBulkDone are kb's errors for the same cases.
var (
	errZeroTerm = errors.New("kbtest: cannot intern the zero term")
	errBulkDone = errors.New("kbtest: bulk load already committed or aborted")
)

// Close implements kb.Dataset.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
