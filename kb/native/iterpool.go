package native

import (
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// iterPool keeps a few Pebble iterators for reuse. Creating an iterator
// opens a reader on every level; reusing one (new bounds, then a seek)
// keeps them, which makes the many small scans of a join several times
// cheaper. An iterator sees the store as of its creation, so a pooled one
// is reused only while no write has committed since: every commit bumps gen
// and closes the pool.
type iterPool struct {
	mu     sync.Mutex
	gen    uint64
	closed bool
	free   []*pebble.Iterator
}

const iterPoolSize = 4

// pooledIter is an iterator on loan from the pool.
type pooledIter struct {
	*pebble.Iterator
	gen uint64
}

// newIter returns an iterator over [lower, upper).
func (s *Store) newIter(lower, upper []byte) (pooledIter, error) {
	p := &s.iters
	p.mu.Lock()
	gen := p.gen
	if n := len(p.free); n > 0 {
		it := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		it.SetBounds(lower, upper)
		return pooledIter{it, gen}, nil
	}
	p.mu.Unlock()
	// gen was read before the iterator was created, so the iterator is at
	// least as new as gen says.
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return pooledIter{}, fmt.Errorf("native: %w", err)
	}
	return pooledIter{it, gen}, nil
}

// release returns an iterator to the pool, or closes it when it is stale
// or the pool is full.
func (s *Store) release(it pooledIter) error {
	if it.Iterator == nil {
		return nil
	}
	p := &s.iters
	p.mu.Lock()
	if it.gen == p.gen && !p.closed && len(p.free) < iterPoolSize && it.Error() == nil {
		p.free = append(p.free, it.Iterator)
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	if err := it.Close(); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	return nil
}

// invalidateIters is called after every commit: pooled iterators no longer
// see the current state.
func (s *Store) invalidateIters(closing bool) {
	p := &s.iters
	p.mu.Lock()
	p.gen++
	if closing {
		p.closed = true
	}
	free := p.free
	p.free = nil
	p.mu.Unlock()
	for _, it := range free {
		_ = it.Close()
	}
}
