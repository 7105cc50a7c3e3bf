package native

import (
	"fmt"
	"slices"

	"github.com/perfkb/perfkb/kb"
)

// Counts of triples by the kind of their object, kept per read-side
// snapshot: `SELECT (COUNT(?o) …) { ?s ?p ?o FILTER isLiteral(?o) }`
// read every quad of the store to count the literals (about 70 ms at 1M
// triples); the first such query of a snapshot counts in one pass over
// the O-S-P-G order, deciding each distinct object's kind once from its
// tag byte, and later ones read the count. Like the value orders
// (objorder.go), a count belongs to the snapshot it was computed from:
// any write publishes a new snapshot and the next call counts again.

// ospgOrder is the index of the O-S-P-G order.
const ospgOrder = 2

// ObjectKindCount returns the number of triples whose object is of the
// given kind: in graph g, or, for g = kb.Any, in the union of every graph
// but those in hidden, where a triple held by several graphs counts once.
// ok is false when reads do not come from the in-memory read side (the
// caller scans instead).
func (s *Store) ObjectKindCount(kind kb.TermKind, g kb.ID, hidden []kb.ID) (n int64, ok bool, err error) {
	if s.closed.Load() {
		return 0, false, kb.ErrClosed
	}
	m := s.readSide()
	if m == nil {
		return 0, false, nil
	}
	return objectKindCount(&s.derived, m, s.dir, kind, g, hidden, s.TermKindOf)
}

// ObjectKindCount is Store.ObjectKindCount on the in-memory store.
func (m *MemStore) ObjectKindCount(kind kb.TermKind, g kb.ID, hidden []kb.ID) (n int64, ok bool, err error) {
	snap, err := m.load()
	if err != nil {
		return 0, false, err
	}
	return objectKindCount(&m.derived, snap, "", kind, g, hidden, m.TermKindOf)
}

// objectKindCount counts for ObjectKindCount (dir: the store's directory,
// where the counts of a mapped base are kept, statsfile.go; "" for none).
func objectKindCount(c *derivedCache, m *memSnapshot, dir string, kind kb.TermKind, g kb.ID, hidden []kb.ID, kindOf func(kb.ID) (kb.TermKind, bool)) (int64, bool, error) {
	hidden = slices.Clone(hidden)
	slices.Sort(hidden)
	key := derivedKey{p: g, kind: fmt.Sprintf("native.kindCount %d %v", kind, hidden)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.lookup(m, key); ok {
		return v.(int64), true, nil
	}
	fileKey := fmt.Sprintf("%d %s", g, key.kind)
	if n, ok := storedKindCount(dir, m, ospgOrder, fileKey); ok {
		c.vals[key] = n
		return n, true, nil
	}
	r := memRange{order: ospgOrder, pin: m.pin, base: m.base[ospgOrder], dels: m.dels[ospgOrder], adds: m.adds[ospgOrder]}
	var n int64
	var last kb.Quad
	var lastO kb.ID
	match, first, fresh := false, true, true
	for r.next() {
		q := r.quad()
		if fresh || q.O != lastO {
			fresh = false
			k, ok := kindOf(q.O)
			if !ok {
				return 0, false, nil // a term not in memory: the caller scans
			}
			match, lastO = k == kind, q.O
		}
		if !match || (g != kb.Any && q.G != g) || (g == kb.Any && slices.Contains(hidden, q.G)) {
			continue
		}
		// The O-S-P-G order brings a triple's graphs together.
		if g == kb.Any && !first && q.O == last.O && q.S == last.S && q.P == last.P {
			continue
		}
		first, last = false, q
		n++
	}
	c.vals[key] = n
	storeKindCount(dir, m, ospgOrder, fileKey, n)
	return n, true, nil
}
