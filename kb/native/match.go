package native

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/kb"
)

// Match implements kb.Dataset. The pattern is answered by one range scan
// over the index whose key prefix its bound positions form; the iterator
// reads a consistent snapshot taken when Match is called.
func (s *Store) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	if err := s.checkOpen(); err != nil {
		return kb.NewErrorIterator(err)
	}
	if m := s.readSide(); m != nil {
		return matchSnapshot(m, p)
	}
	mask := boundMask(p)
	if mask == 15 {
		ok, err := s.has(kb.Quad(p))
		if err != nil {
			return kb.NewErrorIterator(err)
		}
		if ok {
			return kb.NewSliceIterator([]kb.Quad{kb.Quad(p)})
		}
		return kb.NewSliceIterator(nil)
	}
	pl := plans[mask]
	it, _, err := s.newPrefixIter(pl.order, p, pl.prefix)
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	return &quadIterator{ctx: ctx, s: s, it: it, order: pl.order}
}

// has reports whether q is stored.
func (s *Store) has(q kb.Quad) (bool, error) {
	// Callers may hold wmu (cayley.go): never build the read side here.
	if m := s.mem.Load(); m != nil {
		if uint64(q.S|q.P|q.O|q.G) >= 1<<32 {
			return false, nil // never issued while the read side is on
		}
		return m.has(key32{uint32(q.S), uint32(q.P), uint32(q.O), uint32(q.G)}), nil
	}
	it, err := s.getIter()
	if err != nil {
		return false, err
	}
	key := appendIndexKey(it.entry.buf[:0:maxIndexKeyLen], 0, q)
	it.SetBounds(key, append(it.entry.buf[maxIndexKeyLen:maxIndexKeyLen], append(key, 0)...))
	found := it.First()
	if err := it.Error(); err != nil {
		s.release(it)
		return false, fmt.Errorf("native: %w", err)
	}
	return found, s.release(it)
}

// quadIterator walks one index range.
type quadIterator struct {
	ctx     context.Context
	s       *Store
	it      pooledIter
	order   int
	started bool
	cur     kb.Quad
	err     error
	n       int
}

func (q *quadIterator) Next() bool {
	if q.it.Iterator == nil || q.err != nil {
		return false
	}
	var ok bool
	if !q.started {
		q.started = true
		ok = q.it.First()
	} else {
		ok = q.it.Next()
	}
	if !ok {
		if err := q.it.Error(); err != nil {
			q.err = fmt.Errorf("native: %w", err)
		}
		return false
	}
	q.n++
	if q.n&1023 == 0 {
		if err := q.ctx.Err(); err != nil {
			q.err = err
			return false
		}
	}
	q.cur, q.err = decodeIndexKey(q.order, q.it.Key())
	return q.err == nil
}

func (q *quadIterator) Quad() kb.Quad { return q.cur }
func (q *quadIterator) Err() error    { return q.err }

func (q *quadIterator) Close() error {
	err := q.s.release(q.it)
	q.it = pooledIter{}
	return err
}

// estimateScanLimit is the count below which Count is exact even when an
// estimate was asked for.
const estimateScanLimit = estimateProbeKeys

// Count implements kb.Dataset. Patterns that bind nothing, only the
// predicate, only the graph, or both, are answered exactly from the
// counters. Others are counted by a range scan; when exact is false the
// scan reads at most estimateProbeKeys keys and extrapolates (probeCount),
// so an estimate costs about one seek.
func (s *Store) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	mask := boundMask(p)
	s.cmu.RLock()
	c := &s.counts
	var upper int64 = -1
	switch mask {
	case 0:
		upper = c.quads
	case 2:
		upper = c.byP[p.P]
	case 8:
		upper = c.byG[p.G]
	case 10:
		upper = c.byPG[[2]kb.ID{p.P, p.G}]
	}
	counted := upper >= 0
	if !counted {
		upper = c.quads
		if p.P != kb.Any {
			upper = min(upper, c.byP[p.P])
		}
		if p.G != kb.Any {
			upper = min(upper, c.byG[p.G])
		}
		if p.P != kb.Any && p.G != kb.Any {
			upper = min(upper, c.byPG[[2]kb.ID{p.P, p.G}])
		}
	}
	s.cmu.RUnlock()
	if counted || upper == 0 {
		return upper, nil
	}
	if mask == 15 {
		ok, err := s.has(kb.Quad(p))
		if ok {
			return 1, err
		}
		return 0, err
	}
	if m := s.readSide(); m != nil {
		return countSnapshot(m, p), nil
	}
	pl := plans[mask]
	it, prefixLen, err := s.newPrefixIter(pl.order, p, pl.prefix)
	if err != nil {
		return 0, err
	}
	n, err := probeCount(ctx, it, prefixLen, exact, upper)
	if rerr := s.release(it); err == nil {
		err = rerr
	}
	return n, err
}

// Stats implements kb.Dataset. Every count is exact.
func (s *Store) Stats(ctx context.Context) (kb.Stats, error) {
	if err := s.checkOpen(); err != nil {
		return kb.Stats{}, err
	}
	s.cmu.RLock()
	defer s.cmu.RUnlock()
	c := &s.counts
	st := kb.Stats{
		Quads:            c.quads,
		Terms:            s.termCount(),
		ByPredicate:      make(map[kb.ID]int64, len(c.byP)),
		ByGraph:          make(map[kb.ID]int64, len(c.byG)),
		ByPredicateGraph: make(map[[2]kb.ID]int64, len(c.byPG)),
	}
	for k, v := range c.byP {
		st.ByPredicate[k] = v
	}
	for k, v := range c.byG {
		st.ByGraph[k] = v
	}
	for k, v := range c.byPG {
		st.ByPredicateGraph[k] = v
	}
	return st, nil
}

// Graphs implements kb.Dataset.
func (s *Store) Graphs(ctx context.Context) ([]kb.ID, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	s.cmu.RLock()
	defer s.cmu.RUnlock()
	out := make([]kb.ID, 0, len(s.counts.byG))
	for g := range s.counts.byG {
		out = append(out, g)
	}
	return out, nil
}
