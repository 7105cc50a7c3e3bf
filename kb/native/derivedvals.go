package native

import "github.com/perfkb/perfkb/kb"

// Values the query evaluator derives from a whole predicate's quads (a
// counted join's per-subject counts, query/eval/countjoin.go), kept with
// the read side's snapshot as objorder.go keeps value orders: built on
// first use, dropped with the snapshot at the next write. Unlike value
// orders their size grows with the predicate, so the values kept for one
// snapshot are bounded in bytes (derivedBytesMax) besides in number
// (derivedMax); a value past the bound is built and returned, not kept.

// derivedBytesMax bounds the bytes of the values kept for one snapshot.
const derivedBytesMax = 64 << 20

// derivedBytesKey holds the kept values' bytes (an int64) in a cache's
// map; no predicate has ID 0.
var derivedBytesKey = derivedKey{0, "\x00bytes"}

// getValue returns the value under (p, kind) for snapshot m, calling build
// when there is none; build reports the bytes its value holds. kept says
// whether the value is (or was already) kept for later calls.
func (c *derivedCache) getValue(m *memSnapshot, p kb.ID, kind string, build func() (any, int64, error)) (v any, kept bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := derivedKey{p, kind}
	if v, ok := c.lookup(m, k); ok {
		return v, true, nil
	}
	v, bytes, err := build()
	if err != nil {
		return nil, false, err
	}
	total, _ := c.vals[derivedBytesKey].(int64)
	if total+bytes > derivedBytesMax {
		return v, false, nil
	}
	c.vals[k] = v
	c.vals[derivedBytesKey] = total + bytes
	return v, true, nil
}

// PredicateDerived returns what build makes of predicate p's quads as the
// store holds them now, built once per kind and per state of the store:
// a later call before any write returns the same value (kept true), the
// first call after a write builds it again. build reads the store itself
// and reports the bytes its value holds; the values kept for one state
// hold at most 64 MiB, past which a value is built for its caller only
// (kept false). ok is false when reads do not come from the in-memory
// read side (the store is past its memory budget): nothing is built.
func (s *Store) PredicateDerived(p kb.ID, kind string, build func() (any, int64, error)) (v any, kept, ok bool, err error) {
	if s.closed.Load() {
		return nil, false, false, kb.ErrClosed
	}
	m := s.readSide()
	if m == nil {
		return nil, false, false, nil
	}
	v, kept, err = s.derived.getValue(m, p, kind, build)
	return v, kept, err == nil, err
}

// PredicateDerived is Store.PredicateDerived on the in-memory store.
func (m *MemStore) PredicateDerived(p kb.ID, kind string, build func() (any, int64, error)) (v any, kept, ok bool, err error) {
	snap, err := m.load()
	if err != nil {
		return nil, false, false, err
	}
	v, kept, err = m.derived.getValue(snap, p, kind, build)
	return v, kept, err == nil, err
}
