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
// any write publishes a new snapshot, whose count is the base's adjusted
// by the triples the write delta touches.

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
	// The base's count is kept beside its side files; a write delta over
	// it adjusts that count by the triples it touches rather than
	// counting the whole store again.
	base, ok := storedKindCount(dir, m, ospgOrder, fileKey)
	if !ok {
		r := memRange{order: ospgOrder, pin: m.pin, base: m.base[ospgOrder]}
		n, ok := countKind(&r, kind, g, hidden, kindOf)
		if !ok {
			return 0, false, nil // a term not in memory: the caller scans
		}
		base = n
		storeKindCount(dir, m, ospgOrder, fileKey, n)
	}
	n, ok := adjustKindCount(m, base, kind, g, hidden, kindOf)
	if !ok {
		return 0, false, nil
	}
	c.keep(key, derivedEntry{v: n, whole: true})
	return n, true, nil
}

// countKind counts the triples of r (an O-S-P-G range) whose object is of
// kind, in graph g or, for g = kb.Any, in any graph but hidden (sorted)
// counting each triple once; false when a term is not in memory.
func countKind(r *memRange, kind kb.TermKind, g kb.ID, hidden []kb.ID, kindOf func(kb.ID) (kb.TermKind, bool)) (int64, bool) {
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
				return 0, false
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
	return n, true
}

// adjustKindCount turns base, the count over m's base alone, into the
// count over m (base less its deletions plus its additions): each triple
// the write delta touches is counted over the base and over m, and the
// difference applied.
func adjustKindCount(m *memSnapshot, base int64, kind kb.TermKind, g kb.ID, hidden []kb.ID, kindOf func(kb.ID) (kb.TermKind, bool)) (int64, bool) {
	adds, dels := m.adds[ospgOrder], m.dels[ospgOrder]
	if len(adds) == 0 && len(dels) == 0 {
		return base, true
	}
	var touched []key32
	for _, d := range [2][]key32{adds, dels} {
		for _, k := range d {
			touched = append(touched, key32{k[0], k[1], k[2]})
		}
	}
	slices.SortFunc(touched, func(a, b key32) int {
		if lessKey(a, b) {
			return -1
		}
		if lessKey(b, a) {
			return 1
		}
		return 0
	})
	touched = slices.Compact(touched)
	n := base
	for _, t := range touched {
		k, ok := kindOf(kb.ID(t[0]))
		if !ok {
			return 0, false
		}
		if k != kind {
			continue
		}
		lo, hi := tripleSpan(m.base[ospgOrder], t)
		before := &memRange{order: ospgOrder, base: m.base[ospgOrder][lo:hi]}
		alo, ahi := tripleSpan(adds, t)
		dlo, dhi := tripleSpan(dels, t)
		after := &memRange{order: ospgOrder, base: m.base[ospgOrder][lo:hi], adds: adds[alo:ahi], dels: dels[dlo:dhi]}
		b, _ := countKind(before, kind, g, hidden, kindOf)
		a, _ := countKind(after, kind, g, hidden, kindOf)
		n += a - b
	}
	return n, true
}

// tripleSpan returns the bounds of the keys in sorted O-S-P-G keys that
// share t's object, subject and predicate.
func tripleSpan(keys []key32, t key32) (int, int) {
	lo, _ := slices.BinarySearchFunc(keys, t, func(k, t key32) int {
		if lessKey(k, t) {
			return -1
		}
		return 1
	})
	hi := lo
	for hi < len(keys) && keys[hi][0] == t[0] && keys[hi][1] == t[1] && keys[hi][2] == t[2] {
		hi++
	}
	return lo, hi
}
