package kb

import (
	"context"
	"sync"
)

// Memory is an in-memory Dataset. It indexes quads by each position, so any
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
	ids    map[Term]ID
	terms  []Term // terms[id-1]
	all    map[Quad]struct{}
	// index holds the buckets by P and G (few keys); dense holds those by S
	// and O, indexed by ID (IDs are dense), so the lookups that dominate
	// joins are array loads rather than hash probes. Every quad is in one
	// bucket per position.
	index [4]map[ID][]Quad
	dense [4][][]Quad
	byPG  map[[2]ID]int64 // quads per (predicate, graph)
}

// NewMemory returns an empty in-memory dataset.
func NewMemory() *Memory {
	m := &Memory{ids: make(map[Term]ID), all: make(map[Quad]struct{}), byPG: make(map[[2]ID]int64)}
	m.index[1] = make(map[ID][]Quad)
	m.index[3] = make(map[ID][]Quad)
	return m
}

var (
	_ Dataset    = (*Memory)(nil)
	_ TermTable  = (*Memory)(nil)
	_ QuadSource = (*Memory)(nil)
)

// Intern implements Dataset.
func (m *Memory) Intern(ctx context.Context, terms []Term) ([]ID, error) {
	out := make([]ID, len(terms))
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
		return nil, ErrClosed
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
			id = ID(len(m.terms))
			m.ids[t] = id
		}
		out[i] = id
	}
	return out, nil
}

// Lookup implements Dataset.
func (m *Memory) Lookup(ctx context.Context, t Term) (ID, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, false, ErrClosed
	}
	id, ok := m.ids[t]
	return id, ok, nil
}

// Resolve implements Dataset.
func (m *Memory) Resolve(ctx context.Context, id ID) (Term, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Term{}, ErrClosed
	}
	if id == 0 || id > ID(len(m.terms)) {
		return Term{}, ErrUnknownID
	}
	return m.terms[id-1], nil
}

// TermOf returns the term of id, or false when id is unknown or the store
// is closed. It is Resolve without a context or an error path, for callers
// that decode many IDs (the query evaluator).
func (m *Memory) TermOf(id ID) (Term, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed || id == 0 || id > ID(len(m.terms)) {
		return Term{}, false
	}
	return m.terms[id-1], true
}

// bucket returns the quads with id at position i.
func (m *Memory) bucket(i int, id ID) []Quad {
	if i == 1 || i == 3 {
		return m.index[i][id]
	}
	if id < ID(len(m.dense[i])) {
		return m.dense[i][id]
	}
	return nil
}

// setBucket replaces the bucket of id at position i (nil deletes it).
func (m *Memory) setBucket(i int, id ID, b []Quad) {
	if i == 1 || i == 3 {
		if len(b) == 0 {
			delete(m.index[i], id)
		} else {
			m.index[i][id] = b
		}
		return
	}
	if id >= ID(len(m.dense[i])) {
		if len(b) == 0 {
			return
		}
		grown := make([][]Quad, max(int(id)+1, len(m.terms)+1, 2*len(m.dense[i])))
		copy(grown, m.dense[i])
		m.dense[i] = grown
	}
	m.dense[i][id] = b
}

func position(q Quad, i int) ID {
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

func (p Pattern) at(i int) ID { return position(Quad(p), i) }

// smallestBucket returns the smallest index bucket for p and how many
// positions are bound; all=true when no position is bound.
func (m *Memory) smallestBucket(p Pattern) (bucket []Quad, bound int, all bool) {
	best := -1
	for _, i := range [4]int{0, 2, 1, 3} { // array-indexed positions first
		id := p.at(i)
		if id == Any {
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
	p      Pattern
	filter bool
	cur    []Quad
	rest   [][]Quad
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

func (it *memoryIterator) Quad() Quad   { return it.cur[it.i] }
func (it *memoryIterator) Err() error   { return nil }
func (it *memoryIterator) Close() error { it.cur, it.rest = nil, nil; return nil }

// Match implements Dataset. It does not copy: the iterator walks a snapshot
// of the smallest index bucket.
func (m *Memory) Match(ctx context.Context, p Pattern) QuadIterator {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return NewErrorIterator(ErrClosed)
	}
	if p.S != Any && p.P != Any && p.O != Any && p.G != Any {
		_, ok := m.all[Quad(p)]
		m.mu.RUnlock()
		if ok {
			return NewSliceIterator([]Quad{Quad(p)})
		}
		return NewSliceIterator(nil)
	}
	bucket, bound, all := m.smallestBucket(p)
	var rest [][]Quad
	if all {
		rest = make([][]Quad, 0, len(m.index[3]))
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
func (m *Memory) MatchQuads(p Pattern) (quads []Quad, ok bool) {
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

// Count implements Dataset. Exact counts walk the smallest bucket when more
// than one position is bound; estimates do so only for small buckets.
func (m *Memory) Count(ctx context.Context, p Pattern, exact bool) (int64, error) {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return 0, ErrClosed
	}
	if p.S != Any && p.P != Any && p.O != Any && p.G != Any {
		_, ok := m.all[Quad(p)]
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

// Stats implements Dataset.
func (m *Memory) Stats(ctx context.Context) (Stats, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Stats{}, ErrClosed
	}
	st := Stats{
		Quads:            int64(len(m.all)),
		Terms:            int64(len(m.terms)),
		ByPredicate:      make(map[ID]int64, len(m.index[1])),
		ByGraph:          make(map[ID]int64, len(m.index[3])),
		ByPredicateGraph: make(map[[2]ID]int64, len(m.byPG)),
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

// Graphs implements Dataset.
func (m *Memory) Graphs(ctx context.Context) ([]ID, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	out := make([]ID, 0, len(m.index[3]))
	for g := range m.index[3] {
		out = append(out, g)
	}
	return out, nil
}

func (m *Memory) checkIDs(quads []Quad) error {
	for _, q := range quads {
		for i := 0; i < 4; i++ {
			id := position(q, i)
			if id == 0 || id > ID(len(m.terms)) {
				return ErrUnknownID
			}
		}
	}
	return nil
}

// Apply implements Dataset.
func (m *Memory) Apply(ctx context.Context, d Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
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
func (m *Memory) add(q Quad) {
	if _, ok := m.all[q]; ok {
		return
	}
	m.all[q] = struct{}{}
	for i := 0; i < 4; i++ {
		id := position(q, i)
		m.setBucket(i, id, append(m.bucket(i, id), q))
	}
	m.byPG[[2]ID{q.P, q.G}]++
}

// remove deletes quads, rebuilding each affected bucket once into a fresh
// slice (copy-on-write), so snapshots held by readers stay intact.
func (m *Memory) remove(quads []Quad) {
	gone := make(map[Quad]struct{})
	for _, q := range quads {
		if _, ok := m.all[q]; !ok {
			continue
		}
		delete(m.all, q)
		gone[q] = struct{}{}
		pg := [2]ID{q.P, q.G}
		if m.byPG[pg]--; m.byPG[pg] <= 0 {
			delete(m.byPG, pg)
		}
	}
	if len(gone) == 0 {
		return
	}
	for i := 0; i < 4; i++ {
		touched := make(map[ID]struct{})
		for q := range gone {
			touched[position(q, i)] = struct{}{}
		}
		for id := range touched {
			old := m.bucket(i, id)
			kept := make([]Quad, 0, len(old))
			for _, q := range old {
				if _, drop := gone[q]; !drop {
					kept = append(kept, q)
				}
			}
			m.setBucket(i, id, kept)
		}
	}
}

// BeginBulk implements Dataset. Staged quads are held in memory.
func (m *Memory) BeginBulk(ctx context.Context) (BulkWriter, error) {
	return &stagedBulk{ds: m}, nil
}

// stagedBulk buffers a bulk load in memory and applies it as one Delta on
// Commit. Stores without a native bulk path share it.
type stagedBulk struct {
	ds     Dataset
	staged []Quad
	done   bool
}

// NewStagedBulk returns a BulkWriter that buffers quads in memory and
// applies them with ds.Apply on Commit.
func NewStagedBulk(ds Dataset) BulkWriter { return &stagedBulk{ds: ds} }

func (b *stagedBulk) Add(ctx context.Context, quads []Quad) error {
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
	err := b.ds.Apply(ctx, Delta{Add: b.staged})
	b.staged = nil
	return err
}

func (b *stagedBulk) Abort() error {
	b.done = true
	b.staged = nil
	return nil
}

// Close implements Dataset.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
