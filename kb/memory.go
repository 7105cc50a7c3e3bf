package kb

import (
	"context"
	"sync"
)

// Memory is an in-memory Dataset. It indexes quads by each position, so any
// pattern with a bound position is answered from the smallest matching index.
// It is safe for concurrent use; Match materialises its result under a read
// lock, so iterators see a snapshot.
type Memory struct {
	mu     sync.RWMutex
	closed bool
	ids    map[Term]ID
	terms  []Term // terms[id-1]
	all    map[Quad]struct{}
	index  [4]map[ID]map[Quad]struct{} // by S, P, O, G
}

// NewMemory returns an empty in-memory dataset.
func NewMemory() *Memory {
	m := &Memory{ids: make(map[Term]ID), all: make(map[Quad]struct{})}
	for i := range m.index {
		m.index[i] = make(map[ID]map[Quad]struct{})
	}
	return m
}

var _ Dataset = (*Memory)(nil)

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

// candidates returns the smallest index set for p, or nil with all=true when
// no position is bound.
func (m *Memory) candidates(p Pattern) (set map[Quad]struct{}, all bool) {
	best := -1
	for i := 0; i < 4; i++ {
		id := p.at(i)
		if id == Any {
			continue
		}
		s := m.index[i][id]
		if len(s) == 0 {
			return nil, false
		}
		if best < 0 || len(s) < len(set) {
			best, set = i, s
		}
	}
	if best < 0 {
		return m.all, true
	}
	return set, false
}

// Match implements Dataset.
func (m *Memory) Match(ctx context.Context, p Pattern) QuadIterator {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return NewErrorIterator(ErrClosed)
	}
	if p.S != Any && p.P != Any && p.O != Any && p.G != Any {
		if _, ok := m.all[Quad(p)]; ok {
			return NewSliceIterator([]Quad{Quad(p)})
		}
		return NewSliceIterator(nil)
	}
	set, _ := m.candidates(p)
	out := make([]Quad, 0, len(set))
	for q := range set {
		if p.Matches(q) {
			out = append(out, q)
		}
	}
	return NewSliceIterator(out)
}

// Count implements Dataset; counts are always exact.
func (m *Memory) Count(ctx context.Context, p Pattern, exact bool) (int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, ErrClosed
	}
	set, all := m.candidates(p)
	bound := 0
	for i := 0; i < 4; i++ {
		if p.at(i) != Any {
			bound++
		}
	}
	if all || bound == 1 {
		return int64(len(set)), nil
	}
	var n int64
	for q := range set {
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
		ByPredicateGraph: make(map[[2]ID]int64),
	}
	for p, s := range m.index[1] {
		st.ByPredicate[p] = int64(len(s))
	}
	for g, s := range m.index[3] {
		st.ByGraph[g] = int64(len(s))
	}
	for q := range m.all {
		st.ByPredicateGraph[[2]ID{q.P, q.G}]++
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
	for _, q := range d.Remove {
		m.remove(q)
	}
	for _, q := range d.Add {
		m.add(q)
	}
	return nil
}

func (m *Memory) add(q Quad) {
	if _, ok := m.all[q]; ok {
		return
	}
	m.all[q] = struct{}{}
	for i := 0; i < 4; i++ {
		id := position(q, i)
		s := m.index[i][id]
		if s == nil {
			s = make(map[Quad]struct{})
			m.index[i][id] = s
		}
		s[q] = struct{}{}
	}
}

func (m *Memory) remove(q Quad) {
	if _, ok := m.all[q]; !ok {
		return
	}
	delete(m.all, q)
	for i := 0; i < 4; i++ {
		id := position(q, i)
		s := m.index[i][id]
		delete(s, q)
		if len(s) == 0 {
			delete(m.index[i], id)
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
