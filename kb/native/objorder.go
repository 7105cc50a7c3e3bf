package native

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// Structures derived from one predicate's distinct objects, for the query
// evaluator's value-ordered access: a numeric FILTER over a predicate's
// objects (`?s p ?o FILTER(?o >= c)`) binary-searches the objects sorted
// by value and reads only the quads of the objects that pass, instead of
// decoding every quad's object.
//
// The evaluator owns what is derived (the numeric semantics live in the
// query packages); the store owns when it is valid. A derived value is
// built on first use from the read side's snapshot and kept while the
// predicate's quads stay as they were: a write publishes a new snapshot,
// and the cache, meeting it, keeps the values of the predicates whose
// quads the two snapshots hold alike (samePredicate) and drops the rest.
// So a stream of writes to other predicates (sensor data, an analyst's
// notes) leaves a query's value orders and kept indexes in place. Nothing
// is written to disk, so the side-file and crash rules (sidefile.go) do
// not apply, and a bulk load needs no hook: the first query after it
// builds what it needs.

// derivedMax bounds the values kept; past it the cache starts again (each
// value is a few words per distinct object).
const derivedMax = 64

// derivedKey names one derived value: a predicate and the kind of
// structure built from its objects.
type derivedKey struct {
	p    kb.ID
	kind string
}

// derivedEntry is one kept value.
type derivedEntry struct {
	v     any
	bytes int64 // what the value holds, counted against derivedBytesMax
	// whole: the value depends on the whole snapshot, not on the quads of
	// one predicate (a count over a graph), so any write drops it.
	whole bool
}

// derivedCache holds the values derived from the store's quads, valid for
// snapshot snap.
type derivedCache struct {
	mu    sync.Mutex
	snap  *memSnapshot
	vals  map[derivedKey]derivedEntry
	bytes int64 // sum of vals' bytes
	// flights are the builds in progress (build), closed when one ends.
	flights map[derivedKey]chan struct{}
}

// build returns the value under k for snapshot m, calling build for it
// when there is none, outside c.mu: a value order over millions of
// objects takes a second to build, and every query that reads any kept
// value (a probe index, a count) waited for it on the lock. Callers
// asking for the same k meanwhile wait for that build and look again.
// keep decides, under c.mu, whether the new value is kept (false: it is
// returned to its caller only, kept false).
func (c *derivedCache) build(m *memSnapshot, k derivedKey, build func() (derivedEntry, error), keep func(derivedEntry) bool) (v any, kept bool, err error) {
	for {
		c.mu.Lock()
		if v, ok := c.lookup(m, k); ok {
			c.mu.Unlock()
			return v, true, nil
		}
		if ch, busy := c.flights[k]; busy {
			c.mu.Unlock()
			<-ch
			continue
		}
		if c.flights == nil {
			c.flights = map[derivedKey]chan struct{}{}
		}
		ch := make(chan struct{})
		c.flights[k] = ch
		c.mu.Unlock()
		e, err := func() (e derivedEntry, err error) {
			defer func() {
				c.mu.Lock()
				delete(c.flights, k)
				close(ch)
				if err == nil && (keep == nil || keep(e)) {
					// A write may have moved the cache on meanwhile: the
					// value holds there too if p's quads are alike, else
					// the cache goes back to m for it.
					if c.snap == nil || c.snap != m && !(sameBase(m, c.snap) && samePredicate(m, c.snap, k.p)) {
						c.at(m)
					}
					c.keep(k, e)
					kept = true
				}
				c.mu.Unlock()
			}()
			return build()
		}()
		if err != nil {
			return nil, false, err
		}
		return e.v, kept, nil
	}
}

// at makes m the cache's snapshot, keeping the values that hold for it
// too. The caller holds c.mu.
func (c *derivedCache) at(m *memSnapshot) {
	if c.snap == m && len(c.vals) < derivedMax {
		return
	}
	old := c.snap
	c.snap = m
	if old == nil || len(c.vals) >= derivedMax || !sameBase(old, m) {
		c.vals, c.bytes = map[derivedKey]derivedEntry{}, 0
		return
	}
	// Several kinds per predicate: compare each predicate once.
	same := map[kb.ID]bool{}
	for k, e := range c.vals {
		if e.whole {
			c.drop(k, e)
			continue
		}
		s, seen := same[k.p]
		if !seen {
			s = samePredicate(old, m, k.p)
			same[k.p] = s
		}
		if !s {
			c.drop(k, e)
		}
	}
}

func (c *derivedCache) drop(k derivedKey, e derivedEntry) {
	delete(c.vals, k)
	c.bytes -= e.bytes
}

// lookup returns the value kept under k for snapshot m, making m the
// cache's snapshot first. The caller holds c.mu.
func (c *derivedCache) lookup(m *memSnapshot, k derivedKey) (any, bool) {
	c.at(m)
	e, ok := c.vals[k]
	return e.v, ok
}

// keep keeps v under k for the cache's snapshot (set by lookup). The
// caller holds c.mu.
func (c *derivedCache) keep(k derivedKey, e derivedEntry) {
	if c.vals == nil {
		c.vals = map[derivedKey]derivedEntry{}
	}
	if old, ok := c.vals[k]; ok {
		c.bytes -= old.bytes
	}
	c.vals[k] = e
	c.bytes += e.bytes
}

// sameBase reports whether a and b share their sorted base, so that their
// quads differ only by their write deltas.
func sameBase(a, b *memSnapshot) bool {
	for k := range a.base {
		if len(a.base[k]) != len(b.base[k]) || len(a.base[k]) > 0 && unsafe.SliceData(a.base[k]) != unsafe.SliceData(b.base[k]) {
			return false
		}
	}
	return true
}

// samePredicate reports whether a and b, sharing their base, hold the same
// quads of predicate p: their deltas add and remove the same quads of p.
func samePredicate(a, b *memSnapshot, p kb.ID) bool {
	if p >= 1<<32-1 {
		return false
	}
	return slices.Equal(predicateRun(a.adds[posg], p), predicateRun(b.adds[posg], p)) &&
		slices.Equal(predicateRun(a.dels[posg], p), predicateRun(b.dels[posg], p))
}

// predicateRun returns the keys of predicate p in d, sorted P-O-S-G keys.
func predicateRun(d []key32, p kb.ID) []key32 {
	byP := func(k key32, p uint32) int { return cmp.Compare(k[0], p) }
	i, _ := slices.BinarySearchFunc(d, uint32(p), byP)
	j, _ := slices.BinarySearchFunc(d[i:], uint32(p)+1, byP)
	return d[i : i+j]
}

// get returns the value under (p, kind) for snapshot m, calling build
// with p's distinct objects in m (ascending IDs) when there is none.
func (c *derivedCache) get(m *memSnapshot, p kb.ID, kind string, build func(objects []kb.ID) (any, error)) (any, error) {
	v, _, err := c.build(m, derivedKey{p, kind}, func() (derivedEntry, error) {
		v, err := build(distinctObjects(m, p))
		return derivedEntry{v: v}, err
	}, nil)
	return v, err
}

// distinctObjects returns the distinct objects of p's quads in m, in
// ascending ID order (the P-O-S-G order yields them so).
func distinctObjects(m *memSnapshot, p kb.ID) []kb.ID {
	var r memRange
	m.ranges(kb.Pattern{P: p}, &r)
	var objs []kb.ID
	for r.next() {
		if o := r.quad().O; len(objs) == 0 || objs[len(objs)-1] != o {
			objs = append(objs, o)
		}
	}
	return objs
}

// ObjectsDerived returns what build makes of the distinct objects of
// predicate p (ascending IDs), built once per kind and per state of the
// store: a later call before any write returns the same value, the first
// call after a write builds it again. ok is false when reads do not come
// from the in-memory read side (the store is past its memory budget):
// the caller scans instead. An object whose quads a concurrent write
// removes may still be listed; a caller reading its quads finds none.
func (s *Store) ObjectsDerived(p kb.ID, kind string, build func(objects []kb.ID) (any, error)) (v any, ok bool, err error) {
	if s.closed.Load() {
		return nil, false, kb.ErrClosed
	}
	m := s.readSide()
	if m == nil {
		return nil, false, nil
	}
	v, err = s.derived.get(m, p, kind, build)
	return v, err == nil, err
}

// ObjectsDerived is Store.ObjectsDerived on the in-memory store.
func (m *MemStore) ObjectsDerived(p kb.ID, kind string, build func(objects []kb.ID) (any, error)) (v any, ok bool, err error) {
	snap, err := m.load()
	if err != nil {
		return nil, false, err
	}
	v, err = m.derived.get(snap, p, kind, build)
	return v, err == nil, err
}

// tagKinds maps an encoding's tag byte to its term's kind.
var tagKinds = func() (k [tagDirLang + 1]kb.TermKind) {
	for kind, tags := range kindTags {
		for _, t := range tags {
			k[t] = kind
		}
	}
	return k
}()

// kindOfEncoding returns the kind of the term encoded as enc.
func kindOfEncoding(enc []byte) (kb.TermKind, bool) {
	if len(enc) == 0 || int(enc[0]) >= len(tagKinds) || tagKinds[enc[0]] == 0 {
		return 0, false
	}
	return tagKinds[enc[0]], true
}

// TermKindOf returns the kind of the term with the given ID from its
// encoding's tag byte, without decoding the term: FILTER isLiteral(?o)
// and FILTER(?s = ?o) over a whole predicate ask only that. ok is false
// where TermOf would be (an ID the store does not hold in memory).
func (s *Store) TermKindOf(id kb.ID) (kb.TermKind, bool) {
	if s.closed.Load() {
		return 0, false
	}
	enc, t, old := s.encodingOf(id)
	if old {
		return t.Kind, true
	}
	return kindOfEncoding(enc)
}

// encodingOf returns the dictionary's encoding of id (nil where the
// store does not hold it in memory), or, for an ID below the fresh range
// whose term the dictionary has cached decoded (read from disk), the
// term itself (old).
func (s *Store) encodingOf(id kb.ID) (enc []byte, t kb.Term, old bool) {
	d := &s.dict
	d.mu.RLock()
	if id >= d.base {
		if i := uint64(id - d.base); i < uint64(d.fresh()) {
			enc = d.encoded(int(i))
		}
		d.mu.RUnlock()
		return enc, kb.Term{}, false
	}
	t, old = d.oldTerms[id]
	d.mu.RUnlock()
	if old {
		return nil, t, true
	}
	return s.side.encoded(id), kb.Term{}, false
}

// TermKindOf is Store.TermKindOf on the in-memory store.
func (m *MemStore) TermKindOf(id kb.ID) (kb.TermKind, bool) {
	if m.closed.Load() {
		return 0, false
	}
	return kindOfEncoding(dictEncoded(&m.dict, id))
}

// ScanObjectQuads calls fn with the quads of predicate p in graph g
// (kb.Any: every graph) whose object is one of objs (ascending IDs), in
// P-O-S-G order, until fn returns false. A value-ordered FILTER selects a
// few thousand objects of a predicate; each is found by galloping forward
// from the last through the predicate's sorted keys, not by a search of
// the whole range (with writes since the read side was built, by one
// range per object). ok is false when reads come from Pebble: the caller
// uses ScanQuads.
func (s *Store) ScanObjectQuads(ctx context.Context, p, g kb.ID, objs []kb.ID, fn func(kb.Quad) bool) (ok bool, err error) {
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	m := s.readSide()
	if m == nil {
		return false, nil
	}
	return scanObjectQuads(ctx, m, p, g, objs, fn)
}

// ScanObjectQuads is Store.ScanObjectQuads on the in-memory store.
func (m *MemStore) ScanObjectQuads(ctx context.Context, p, g kb.ID, objs []kb.ID, fn func(kb.Quad) bool) (ok bool, err error) {
	snap, err := m.load()
	if err != nil {
		return false, err
	}
	return scanObjectQuads(ctx, snap, p, g, objs, fn)
}

// posg is the index of the P-O-S-G order.
const posg = 1

func scanObjectQuads(ctx context.Context, m *memSnapshot, p, g kb.ID, objs []kb.ID, fn func(kb.Quad) bool) (bool, error) {
	if len(m.adds[posg]) > 0 || len(m.dels[posg]) > 0 {
		// A delta to merge: one range per object, as ScanQuads reads it.
		for _, o := range objs {
			var r memRange
			m.ranges(kb.Pattern{P: p, O: o, G: g}, &r)
			for r.next() {
				if !fn(r.quad()) {
					return true, nil
				}
			}
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	if p > 1<<32-1 || g > 1<<32-1 {
		return true, nil // no quad holds an ID past 32 bits
	}
	var r memRange
	m.ranges(kb.Pattern{P: p}, &r)
	if r.order != posg {
		return false, nil
	}
	keys := r.base
	i := 0
	for n, o := range objs {
		if n&255 == 255 {
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		if o > 1<<32-1 {
			break
		}
		i += gallopObject(keys[i:], uint32(o))
		for ; i < len(keys) && keys[i][1] == uint32(o); i++ {
			if g != kb.Any && keys[i][3] != uint32(g) {
				continue
			}
			if !fn(keyQuad(&keys[i], posg)) {
				return true, nil
			}
		}
	}
	return true, nil
}

// gallopObject returns the index of the first P-O-S-G key in keys whose
// object is at least o: doubling steps from the start, then a binary
// search of the last step.
func gallopObject(keys []key32, o uint32) int {
	hi := 1
	for hi < len(keys) && keys[hi-1][1] < o {
		hi *= 2
	}
	lo := hi / 2
	hi = min(hi, len(keys))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if keys[mid][1] < o {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
