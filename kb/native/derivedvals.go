package native

import "github.com/perfkb/perfkb/kb"

// Values the query evaluator derives from a whole predicate's quads (a
// counted join's per-subject counts, query/eval/countjoin.go), kept with
// the read side's snapshot as objorder.go keeps value orders: built on
// first use, dropped with the snapshot at the next write. Unlike value
// orders their size grows with the predicate, so the values kept are
// bounded in bytes (derivedBytesMax) besides in number (derivedMax); a
// value past the bound is built and returned, not kept.

// derivedBytesMax bounds the bytes of the values kept.
const derivedBytesMax = 64 << 20

// getValue returns the value under (p, kind) for snapshot m, calling build
// when there is none; build reports the bytes its value holds. kept says
// whether the value is (or was already) kept for later calls.
func (c *derivedCache) getValue(m *memSnapshot, p kb.ID, kind string, build func() (any, int64, error)) (v any, kept bool, err error) {
	return c.build(m, derivedKey{p, kind}, func() (derivedEntry, error) {
		v, bytes, err := build()
		return derivedEntry{v: v, bytes: bytes}, err
	}, func(e derivedEntry) bool { return c.bytes+e.bytes <= derivedBytesMax })
}

// PredicateDerived returns what build makes of predicate p's quads as the
// store holds them now, built once per kind and per state of p's quads:
// a later call before any write to p returns the same value (kept true),
// the first call after one builds it again. build reads the store itself
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

// PredicateState returns a token for the state of the store's quads now,
// for PredicateUnchanged: a caller that builds a value from a predicate's
// quads outside PredicateDerived takes it before reading them.
func (s *Store) PredicateState() any {
	if s.closed.Load() {
		return nil
	}
	return s.readSide()
}

// PredicateUnchanged reports whether the quads of p are now as they were
// when PredicateState returned state, so that a value built from them
// meanwhile may be kept (PredicateDerived keeps values across writes to
// other predicates, so a stale one would outlive the next write).
func (s *Store) PredicateUnchanged(state any, p kb.ID) bool {
	old, _ := state.(*memSnapshot)
	return old != nil && !s.closed.Load() && unchangedSince(old, s.readSide(), p)
}

// PredicateState is Store.PredicateState on the in-memory store.
func (m *MemStore) PredicateState() any {
	snap, err := m.load()
	if err != nil {
		return nil
	}
	return snap
}

// PredicateUnchanged is Store.PredicateUnchanged on the in-memory store.
func (m *MemStore) PredicateUnchanged(state any, p kb.ID) bool {
	old, _ := state.(*memSnapshot)
	snap, err := m.load()
	return old != nil && err == nil && unchangedSince(old, snap, p)
}

// unchangedSince reports whether now holds the quads of p that old did.
func unchangedSince(old, now *memSnapshot, p kb.ID) bool {
	return now != nil && (old == now || sameBase(old, now) && samePredicate(old, now, p))
}
