package native

import "github.com/perfkb/perfkb/kb"

// ObjectsDerivedKept returns the value ObjectsDerived would return for
// (p, kind) if it is already built for the store's current state, without
// building it: a one-shot process asks this where building would cost
// more than the query (the value order of a 10M-quad store's numbers
// costs about a CPU-second) and would not outlive it.
func (s *Store) ObjectsDerivedKept(p kb.ID, kind string) (any, bool) {
	if s.closed.Load() {
		return nil, false
	}
	m := s.readSide()
	if m == nil {
		return nil, false
	}
	return s.derived.kept(m, p, kind)
}

// ObjectsDerivedKept is Store.ObjectsDerivedKept on the in-memory store.
func (m *MemStore) ObjectsDerivedKept(p kb.ID, kind string) (any, bool) {
	snap, err := m.load()
	if err != nil {
		return nil, false
	}
	return m.derived.kept(snap, p, kind)
}

// kept returns the value under (p, kind) for snapshot m if there is one.
func (c *derivedCache) kept(m *memSnapshot, p kb.ID, kind string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookup(m, derivedKey{p, kind})
}
