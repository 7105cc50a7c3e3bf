package native

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/kb"
)

// The query evaluator's fast paths (query/eval finds them by type
// assertion): ScanQuads answers a pattern without allocating an iterator
// or anything per quad, and TermOf decodes an ID from the dictionary's
// memory without a context, an error or a Pebble read.

// ScanQuads calls fn with each quad matching p, in the order of the index
// that answers p, until fn returns false. It reads a consistent snapshot
// through a pooled Pebble iterator and holds no lock while fn runs, so fn
// may call the store again (nested-loop joins do), and writers proceed
// meanwhile (the scan does not see their changes).
func (s *Store) ScanQuads(ctx context.Context, p kb.Pattern, fn func(kb.Quad) bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if m := s.readSide(); m != nil {
		return scanSnapshot(ctx, m, p, fn)
	}
	mask := boundMask(p)
	if mask == 15 {
		ok, err := s.has(kb.Quad(p))
		if err == nil && ok {
			fn(kb.Quad(p))
		}
		return err
	}
	pl := plans[mask]
	it, _, err := s.newPrefixIter(pl.order, p, pl.prefix)
	if err != nil {
		return err
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				s.release(it)
				return err
			}
		}
		q, err := decodeIndexKey(pl.order, it.Key())
		if err != nil {
			s.release(it)
			return err
		}
		if !fn(q) {
			break
		}
	}
	if err := it.Error(); err != nil {
		s.release(it)
		return fmt.Errorf("native: %w", err)
	}
	return s.release(it)
}

// TermOf returns the term of id from the dictionary's memory: the arena
// for terms interned since the store was opened (the strings share the
// arena's bytes, so nothing is copied), the cache for older terms read
// back from disk. It reports false for an ID it does not hold in memory
// (unknown, or stored and not read yet): the caller then calls Resolve,
// which reads the term and caches it.
func (s *Store) TermOf(id kb.ID) (kb.Term, bool) {
	if s.closed.Load() {
		return kb.Term{}, false
	}
	d := &s.dict
	d.mu.RLock()
	if id >= d.base {
		if i := uint64(id - d.base); i < uint64(d.fresh()) {
			enc := d.encoded(int(i))
			d.mu.RUnlock()
			return decodeTermShared(enc)
		}
		d.mu.RUnlock()
		return kb.Term{}, false
	}
	t, ok := d.oldTerms[id]
	d.mu.RUnlock()
	if !ok {
		if enc := s.side.encoded(id); enc != nil {
			return decodeTermShared(enc)
		}
	}
	return t, ok
}

// estimateProbeKeys bounds the keys Count(exact=false) reads for a
// pattern the counters cannot answer: the probe costs one seek and at most
// this many steps, and a larger range is extrapolated.
const estimateProbeKeys = 256

// probeCount counts the keys of the scan behind it: exactly, or, when
// exact is false and the range holds more than estimateProbeKeys keys, by
// extrapolation. Past the prefix, keys are runs of IDs in numeric order;
// the first position where the range's first and last keys differ spreads
// the range, and the share of that spread the first keys read cover
// estimates the share of the keys they are. upper (the counters' bound)
// caps the answer; prefix is the length of the scan prefix.
func probeCount(ctx context.Context, it pooledIter, prefix int, exact bool, upper int64) (int64, error) {
	var n int64
	var first [4]kb.ID
	for ok := it.First(); ok; ok = it.Next() {
		n++
		if n == 1 {
			first = keyIDs(it.Key(), prefix)
		}
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if exact || n < estimateProbeKeys {
			continue
		}
		cur := keyIDs(it.Key(), prefix)
		if !it.Last() {
			break
		}
		last := keyIDs(it.Key(), prefix)
		return min(max(n, extrapolate(n, first, cur, last)), upper), nil
	}
	if err := it.Error(); err != nil {
		return 0, fmt.Errorf("native: %w", err)
	}
	return n, nil
}

// extrapolate estimates the keys in a range from the n keys read, from
// first to cur, and the range's last key.
func extrapolate(n int64, first, cur, last [4]kb.ID) int64 {
	for j := range first {
		if first[j] == last[j] {
			continue
		}
		span := float64(last[j] - first[j])
		if covered := float64(cur[j] - first[j]); covered > 0 {
			return int64(float64(n) * span / covered)
		}
		// The keys read share one value here: assume as many for every
		// value in the span.
		return int64(float64(n) * (span + 1))
	}
	return n
}

// keyIDs decodes the IDs of an index key after its first prefix bytes (up
// to four; the rest are zero).
func keyIDs(key []byte, prefix int) (ids [4]kb.ID) {
	if prefix > len(key) {
		return ids
	}
	b := key[prefix:]
	for j := 0; j < len(ids) && len(b) > 0; j++ {
		var err error
		if ids[j], b, err = readID(b); err != nil {
			break
		}
	}
	return ids
}
