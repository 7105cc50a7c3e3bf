package native

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// MemStore is the in-memory native store: the native dictionary (terms
// encoded in an arena, found through an open-addressing hash table) and,
// per index order (SPOG, POSG, OSPG, GSPO, GPOS, GOSP), a sorted array of
// 16-byte ID tuples, so every quad pattern is one binary-searched range.
//
// Readers work on an immutable snapshot they load from an atomic pointer;
// a writer builds the next snapshot (copy-on-write) and swaps it in, so
// Apply and bulk commits are atomic for readers, and readers never wait.
// A snapshot is a large sorted base plus a small sorted delta (quads added
// since the base was built, and base quads removed since); Apply rewrites
// only the delta and folds it into the base when it grows past a fraction
// of it. A bulk commit radix-sorts the staged quads once per order and
// merges them with the base.
//
// MemStore is safe for any number of concurrent readers and writers;
// writes are serialised internally.
type MemStore struct {
	dict   dictionary
	kinds  kindSummary // which term kinds dict holds (kinds.go)
	wmu    sync.Mutex  // serialises Apply, bulk commits and Close
	snap   atomic.Pointer[memSnapshot]
	closed atomic.Bool
	// predStats are the planner's per-predicate statistics.
	predStats predStatsCache
	// derived: values built from a predicate's objects (objorder.go).
	derived derivedCache
	// idcols: per-ID columns the query evaluator fills (idcolumns.go).
	idcols idColumns
}

var _ kb.Dataset = (*MemStore)(nil)

// memSnapshot is one immutable state of a MemStore. For each order k,
// base[k], adds[k] and dels[k] hold the same quads permuted for k, sorted.
// The stored quads are base − dels + adds, where dels ⊆ base and adds is
// disjoint from base.
type memSnapshot struct {
	base [numOrders][]key32
	// first[k][id] is the index in base[k] of the first key whose first
	// field is at least id (len(first[k]) is one past the largest first
	// field, plus one), so a pattern binding that field finds its range
	// with two array reads instead of a binary search over the base.
	first  [numOrders][]uint32
	adds   [numOrders][]key32
	dels   [numOrders][]key32
	counts *counters // exact; never modified once published
	// pin keeps the side files mapped while base or first point into
	// them (nil when they are on the heap).
	pin *sideMapping
}

// OpenMemory returns an empty in-memory native store (MemStore). Use
// OpenPebbleMemory for the Pebble code on an in-memory file system.
func OpenMemory() *MemStore {
	m := &MemStore{}
	m.dict.init(1)
	c := newCounters()
	m.snap.Store(&memSnapshot{counts: &c})
	return m
}

// load returns the current snapshot, or kb.ErrClosed.
func (m *MemStore) load() (*memSnapshot, error) {
	if m.closed.Load() {
		return nil, kb.ErrClosed
	}
	return m.snap.Load(), nil
}

// Close implements kb.Dataset. It releases the indexes and the
// dictionary; iterators still open keep the snapshot they walk, and terms
// returned by TermOf stay valid.
func (m *MemStore) Close() error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.closed.Swap(true) {
		return nil
	}
	c := newCounters()
	m.snap.Store(&memSnapshot{counts: &c})
	m.dict.mu.Lock()
	m.dict.init(1) // empty: a call racing with Close finds nothing
	m.dict.mu.Unlock()
	return nil
}

// Intern implements kb.Dataset.
func (m *MemStore) Intern(ctx context.Context, terms []kb.Term) ([]kb.ID, error) {
	if m.closed.Load() {
		return nil, kb.ErrClosed
	}
	out := make([]kb.ID, len(terms))
	d := &m.dict
	d.mu.RLock()
	missing := d.lookupBatch(terms, out)
	d.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	for _, i := range missing {
		if terms[i].IsZero() {
			return nil, errZeroTerm
		}
	}
	// Every term of an in-memory store is fresh: add the missing ones
	// beside the other Interns, each under its shard's lock.
	d.mu.RLock()
	defer d.mu.RUnlock()
	var enc []byte
	for _, i := range missing {
		if n := d.fresh(); n >= 1<<32-2 {
			return nil, fmt.Errorf("native: in-memory dictionary full (%d terms)", n)
		}
		enc, _ = appendTerm(enc[:0], terms[i])
		out[i] = d.findOrAdd(enc, maphash.Bytes(d.seed, enc))
	}
	return out, nil
}

// Lookup implements kb.Dataset.
func (m *MemStore) Lookup(ctx context.Context, t kb.Term) (kb.ID, bool, error) {
	if m.closed.Load() {
		return 0, false, kb.ErrClosed
	}
	var buf [128]byte
	enc, err := appendTerm(buf[:0], t)
	if err != nil {
		return 0, false, nil // the zero term is never stored
	}
	d := &m.dict
	d.mu.RLock()
	j := d.find(enc, maphash.Bytes(d.seed, enc))
	base := d.base
	d.mu.RUnlock()
	if j < 0 {
		return 0, false, nil
	}
	return base + kb.ID(j), true, nil
}

// Resolve implements kb.Dataset.
func (m *MemStore) Resolve(ctx context.Context, id kb.ID) (kb.Term, error) {
	if m.closed.Load() {
		return kb.Term{}, kb.ErrClosed
	}
	t, ok := m.term(id)
	if !ok {
		return kb.Term{}, kb.ErrUnknownID
	}
	return t, nil
}

// TermOf returns the term of id, or false when id is unknown or the store
// is closed. It is Resolve without a context or an error path, for callers
// that decode many IDs (the query evaluator's kb.TermTable). It does not
// allocate: the term's strings point into the dictionary's arena.
func (m *MemStore) TermOf(id kb.ID) (kb.Term, bool) {
	if m.closed.Load() {
		return kb.Term{}, false
	}
	return m.term(id)
}

func (m *MemStore) term(id kb.ID) (kb.Term, bool) {
	d := &m.dict
	d.mu.RLock()
	if id < d.base || uint64(id-d.base) >= uint64(d.fresh()) {
		d.mu.RUnlock()
		return kb.Term{}, false
	}
	enc := d.encoded(int(id - d.base))
	d.mu.RUnlock()
	return decodeTermShared(enc)
}

// decodeTermShared is decodeTerm without copying: the strings of the term
// share enc's bytes. enc must never change, which holds for the
// dictionary's arena (append-only; a chunk is never reallocated).
func decodeTermShared(enc []byte) (kb.Term, bool) {
	str := func(b []byte) string {
		if len(b) == 0 {
			return ""
		}
		return unsafe.String(&b[0], len(b))
	}
	if len(enc) == 0 {
		return kb.Term{}, false
	}
	tag, rest := enc[0], enc[1:]
	switch tag {
	case tagIRI:
		return kb.Term{Kind: kb.KindIRI, Value: str(rest)}, true
	case tagBlank:
		return kb.Term{Kind: kb.KindBlank, Value: str(rest)}, true
	case tagTriple:
		return kb.Term{Kind: kb.KindTriple, Value: str(rest)}, true
	case tagString:
		return kb.Term{Kind: kb.KindLiteral, Value: str(rest), Datatype: ontology.XSDString}, true
	case tagKnownType:
		if len(rest) == 0 || int(rest[0]) >= len(knownDatatypes) {
			return kb.Term{}, false
		}
		return kb.Term{Kind: kb.KindLiteral, Value: str(rest[1:]), Datatype: knownDatatypes[rest[0]]}, true
	case tagLang, tagOtherTyped, tagDirLang:
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return kb.Term{}, false
		}
		field, value := str(rest[w:w+int(n)]), str(rest[w+int(n):])
		switch tag {
		case tagLang:
			return kb.Term{Kind: kb.KindLiteral, Value: value, Datatype: ontology.RDFLangString, Lang: field}, true
		case tagDirLang:
			return kb.Term{Kind: kb.KindLiteral, Value: value, Datatype: ontology.RDFDirLangString, Lang: field}, true
		}
		return kb.Term{Kind: kb.KindLiteral, Value: value, Datatype: field}, true
	}
	return kb.Term{}, false
}

// Match implements kb.Dataset. The iterator walks the snapshot current at
// the call; it allocates nothing but itself.
func (m *MemStore) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	s, err := m.load()
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	it := &memIterator{}
	s.ranges(p, &it.memRange)
	return it
}

// ScanQuads calls fn with each quad matching p until fn returns false (the
// evaluator's kb.QuadScanner). It holds no lock while fn runs, so fn may
// call the store, and it allocates nothing. Like Match, it sees a
// snapshot.
func (m *MemStore) ScanQuads(ctx context.Context, p kb.Pattern, fn func(kb.Quad) bool) error {
	s, err := m.load()
	if err != nil {
		return err
	}
	var r memRange
	s.ranges(p, &r)
	for r.next() {
		if !fn(r.quad()) {
			return nil
		}
	}
	return nil
}

// Count implements kb.Dataset. Every count is exact: the width of the
// pattern's ranges, found by binary search.
func (m *MemStore) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	s, err := m.load()
	if err != nil {
		return 0, err
	}
	c := s.counts
	switch boundMask(p) {
	case 0:
		return c.quads, nil
	case 2:
		return c.byP[p.P], nil
	case 8:
		return c.byG[p.G], nil
	case 10:
		return c.byPG[[2]kb.ID{p.P, p.G}], nil
	}
	var r memRange
	s.ranges(p, &r)
	return int64(len(r.base) - len(r.dels) + len(r.adds)), nil
}

// Stats implements kb.Dataset. Every count is exact.
func (m *MemStore) Stats(ctx context.Context) (kb.Stats, error) {
	s, err := m.load()
	if err != nil {
		return kb.Stats{}, err
	}
	c := s.counts
	return kb.Stats{
		Quads:            c.quads,
		Terms:            int64(m.dict.limit() - 1),
		ByPredicate:      copyCounts(c.byP),
		ByGraph:          copyCounts(c.byG),
		ByPredicateGraph: copyCounts(c.byPG),
	}, nil
}

func copyCounts[K comparable](m map[K]int64) map[K]int64 {
	out := make(map[K]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Graphs implements kb.Dataset.
func (m *MemStore) Graphs(ctx context.Context) ([]kb.ID, error) {
	s, err := m.load()
	if err != nil {
		return nil, err
	}
	out := make([]kb.ID, 0, len(s.counts.byG))
	for g := range s.counts.byG {
		out = append(out, g)
	}
	slices.Sort(out)
	return out, nil
}

// memRange is the part of a snapshot a pattern selects: one range of the
// base, of the removed base quads within it, and of the added quads, all
// permuted for one order.
type memRange struct {
	pin              *sideMapping // keeps a mapped base mapped
	base, dels, adds []key32
	i                int // next index in base
	order            int
	cur              key32
}

// next advances to the next quad of the range, in the order's key order:
// base quads not removed merged with the added ones (which the base never
// holds). Key order matters beyond tidiness: with the graph last in the
// key, a triple's copies in several graphs come one after another, which
// is what kb.GraphLast promises.
func (r *memRange) next() bool {
	if len(r.dels) == 0 && len(r.adds) == 0 {
		if r.i < len(r.base) {
			r.cur = r.base[r.i]
			r.i++
			return true
		}
		return false
	}
	for r.i < len(r.base) {
		k := r.base[r.i]
		if len(r.adds) > 0 && lessKey(r.adds[0], k) {
			r.cur = r.adds[0]
			r.adds = r.adds[1:]
			return true
		}
		r.i++
		for len(r.dels) > 0 && lessKey(r.dels[0], k) {
			r.dels = r.dels[1:]
		}
		if len(r.dels) > 0 && r.dels[0] == k {
			r.dels = r.dels[1:]
			continue
		}
		r.cur = k
		return true
	}
	if len(r.adds) > 0 {
		r.cur = r.adds[0]
		r.adds = r.adds[1:]
		return true
	}
	return false
}

// quad returns the current key as a quad (the inverse of its order's
// permutation, spelt out: see inverses).
func (r *memRange) quad() kb.Quad { return keyQuad(&r.cur, r.order) }

// keyQuad returns key k of order as a quad.
func keyQuad(k *key32, order int) kb.Quad {
	switch order {
	case 0: // SPOG
		return kb.Quad{S: kb.ID(k[0]), P: kb.ID(k[1]), O: kb.ID(k[2]), G: kb.ID(k[3])}
	case 1: // POSG
		return kb.Quad{S: kb.ID(k[2]), P: kb.ID(k[0]), O: kb.ID(k[1]), G: kb.ID(k[3])}
	case 2: // OSPG
		return kb.Quad{S: kb.ID(k[1]), P: kb.ID(k[2]), O: kb.ID(k[0]), G: kb.ID(k[3])}
	case 3: // GSPO
		return kb.Quad{S: kb.ID(k[1]), P: kb.ID(k[2]), O: kb.ID(k[3]), G: kb.ID(k[0])}
	case 4: // GPOS
		return kb.Quad{S: kb.ID(k[3]), P: kb.ID(k[1]), O: kb.ID(k[2]), G: kb.ID(k[0])}
	default: // GOSP
		return kb.Quad{S: kb.ID(k[2]), P: kb.ID(k[3]), O: kb.ID(k[1]), G: kb.ID(k[0])}
	}
}

// inverses[k] maps quad positions to key indexes of order k.
var inverses = func() (inv [numOrders][4]uint8) {
	for k, o := range orders {
		for j, pos := range o {
			inv[k][pos] = uint8(j)
		}
	}
	return inv
}()

// ranges sets r to the ranges of s that hold p's matches. IDs beyond 32
// bits were never issued, so they match nothing.
func (s *memSnapshot) ranges(p kb.Pattern, r *memRange) { s.rangesAt(p, r, nil) }

// rangesAt is ranges, searching the base through cursor c when c is not
// nil (cursor.go).
func (s *memSnapshot) rangesAt(p kb.Pattern, r *memRange, c *lookupCursor) {
	mask := boundMask(p)
	pl := plans[mask]
	if mask == 15 {
		pl = plan{order: 0, prefix: 4}
	}
	*r = memRange{order: pl.order, pin: s.pin}
	lo, hi := key32{}, key32{1<<32 - 1, 1<<32 - 1, 1<<32 - 1, 1<<32 - 1}
	pq := [4]kb.ID{p.S, p.P, p.O, p.G}
	o := &orders[pl.order]
	for j := 0; j < pl.prefix; j++ {
		id := pq[o[j]]
		if id > 1<<32-1 {
			return
		}
		lo[j], hi[j] = uint32(id), uint32(id)
	}
	if pl.prefix == 0 {
		r.base, r.dels, r.adds = s.base[pl.order], s.dels[pl.order], s.adds[pl.order]
		return
	}
	base := s.base[pl.order]
	if f := s.first[pl.order]; f != nil {
		if id := uint64(lo[0]); id+1 < uint64(len(f)) {
			base = base[f[id]:f[id+1]]
		} else {
			base = nil
		}
	}
	if c != nil && pl.prefix > 1 {
		base = c.keyRange(s, pl.order, lo[0], base, lo, hi)
	} else if pl.prefix > 1 || s.first[pl.order] == nil {
		base = keyRange(base, lo, hi)
	}
	r.base = base
	r.dels = keyRange(s.dels[pl.order], lo, hi)
	r.adds = keyRange(s.adds[pl.order], lo, hi)
}

// firstIndex returns the first-field index of a sorted base (see
// memSnapshot.first).
func firstIndex(a []key32) []uint32 {
	if len(a) == 0 {
		return nil
	}
	top := a[len(a)-1][0]
	off := make([]uint32, uint64(top)+2)
	j := 0
	for id := range off {
		for j < len(a) && uint64(a[j][0]) < uint64(id) {
			j++
		}
		off[id] = uint32(j)
	}
	return off
}

// keyRange returns the keys k of sorted a with lo <= k <= hi.
func keyRange(a []key32, lo, hi key32) []key32 {
	if len(a) == 0 {
		return nil
	}
	return keyRangeFrom(a, searchKey(a, lo, false), hi)
}

// keyRangeFrom returns the keys k of sorted a with k <= hi from index i,
// where a[i] is the first key not below the range's low end.
func keyRangeFrom(a []key32, i int, hi key32) []key32 {
	// Most ranges are short: gallop from i to bracket the end before the
	// binary search, instead of searching the rest of a.
	rest := a[i:]
	step := 1
	for step < len(rest) && !lessKey(hi, rest[step]) {
		step <<= 1
	}
	from := step >> 1
	j := i + from + searchKey(rest[from:min(step, len(rest))], hi, true)
	return a[i:j:j]
}

// searchKey returns the index of the first key of sorted a that is greater
// than k (after) or not less than k (!after).
func searchKey(a []key32, k key32, after bool) int {
	lo, hi := 0, len(a)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		var below bool // a[mid] comes before the answer
		if after {
			below = !lessKey(k, a[mid])
		} else {
			below = lessKey(a[mid], k)
		}
		if below {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// lessKey orders keys lexicographically.
func lessKey(a, b key32) bool {
	if a[0] != b[0] {
		return a[0] < b[0]
	}
	if a[1] != b[1] {
		return a[1] < b[1]
	}
	if a[2] != b[2] {
		return a[2] < b[2]
	}
	return a[3] < b[3]
}

// memIterator is a kb.QuadIterator over a memRange.
type memIterator struct {
	memRange
}

// Next implements kb.QuadIterator, with the common case (no removed or
// added quads in the range) inline.
func (it *memIterator) Next() bool {
	if i := it.i; i < len(it.base) && len(it.dels) == 0 && len(it.adds) == 0 {
		it.cur = it.base[i]
		it.i = i + 1
		return true
	}
	return it.next()
}

func (it *memIterator) Quad() kb.Quad { return keyQuad(&it.cur, it.order) }
func (it *memIterator) Err() error    { return nil }
func (it *memIterator) Close() error {
	it.memRange = memRange{}
	return nil
}

// has reports whether the snapshot holds k (a key in SPOG order).
func (s *memSnapshot) has(k key32) bool {
	if contains(s.adds[0], k) {
		return true
	}
	return contains(s.base[0], k) && !contains(s.dels[0], k)
}

func contains(a []key32, k key32) bool {
	if len(a) == 0 {
		return false
	}
	i := searchKey(a, k, false)
	return i < len(a) && a[i] == k
}

// empty reports whether the snapshot holds no quads.
func (s *memSnapshot) empty() bool { return s.counts.quads == 0 }
