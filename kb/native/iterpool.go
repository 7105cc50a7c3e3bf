package native

import (
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"
)

// iterPool keeps Pebble iterators for reuse. Creating an iterator opens a
// reader on every level; reusing one (new bounds, then a seek) keeps them,
// which makes the many small scans of a join several times cheaper. An
// iterator sees the store as of its creation, so a pooled one is reused
// only while no write has committed since: every commit bumps gen and
// closes the pool.
//
// The pool is a LIFO stack sized for many concurrent queries, each holding
// one iterator per level of a nested-loop join. Each pooled iterator
// carries a scratch buffer for the bounds of its next scan, so that a scan
// allocates nothing.
type iterPool struct {
	mu     sync.Mutex
	gen    uint64
	closed bool
	free   []*iterEntry
}

// iterPoolSize bounds the idle iterators kept: enough for 32 clients each
// in a three-pattern join. An idle iterator pins the memtables and
// sstables of its creation only until the next commit closes it.
const iterPoolSize = 96

// iterEntry is one pooled iterator and its bounds buffer.
type iterEntry struct {
	it *pebble.Iterator
	// buf holds the lower and upper bound of the current scan (Pebble
	// copies bounds, so the buffer is free again once SetBounds returns).
	buf [2 * maxIndexKeyLen]byte
}

// maxIndexKeyLen is the length of the longest index key: the prefix byte
// and four IDs of at most nine bytes each.
const maxIndexKeyLen = 1 + 4*9

// pooledIter is an iterator on loan from the pool.
type pooledIter struct {
	*pebble.Iterator
	gen   uint64
	entry *iterEntry
}

// getIter returns an iterator on loan whose bounds the caller sets before
// positioning it.
func (s *Store) getIter() (pooledIter, error) {
	p := &s.iters
	p.mu.Lock()
	gen := p.gen
	if n := len(p.free); n > 0 {
		e := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return pooledIter{e.it, gen, e}, nil
	}
	p.mu.Unlock()
	// gen was read before the iterator was created, so the iterator is at
	// least as new as gen says.
	it, err := s.db.NewIter(nil)
	if err != nil {
		return pooledIter{}, fmt.Errorf("native: %w", err)
	}
	return pooledIter{it, gen, &iterEntry{it: it}}, nil
}

// newIter returns an iterator over [lower, upper).
func (s *Store) newIter(lower, upper []byte) (pooledIter, error) {
	it, err := s.getIter()
	if err != nil {
		return it, err
	}
	it.SetBounds(lower, upper)
	return it, nil
}

// newPrefixIter returns an iterator over the keys that start with the scan
// prefix that the first n positions of p bind in index k, built in the
// iterator's own buffer, and the length of that prefix.
func (s *Store) newPrefixIter(k int, p kb.Pattern, n int) (pooledIter, int, error) {
	it, err := s.getIter()
	if err != nil {
		return it, 0, err
	}
	buf := it.entry.buf[:0:maxIndexKeyLen]
	lower := appendScanPrefix(buf, k, p, n)
	upper := appendPrefixEnd(it.entry.buf[maxIndexKeyLen:maxIndexKeyLen], lower)
	it.SetBounds(lower, upper)
	return it, len(lower), nil
}

// appendPrefixEnd appends the smallest key greater than every key with
// prefix p, or nothing (no upper bound) when p is all 0xff.
func appendPrefixEnd(dst, p []byte) []byte {
	start := len(dst)
	dst = append(dst, p...)
	for i := len(dst) - 1; i >= start; i-- {
		dst[i]++
		if dst[i] != 0 {
			return dst[:i+1]
		}
	}
	return nil
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
		e := it.entry
		if e == nil {
			e = &iterEntry{it: it.Iterator}
		}
		p.free = append(p.free, e)
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
	for _, e := range free {
		_ = e.it.Close()
	}
}
