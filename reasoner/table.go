package reasoner

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// deletedGen marks a removed row.
const deletedGen = math.MaxUint32

// table holds the triples of one predicate as columns. Rows are appended in
// generation order and never move, so a row index names a triple for the
// whole run (premises of derivations point at rows).
type table struct {
	p    kb.ID
	s, o []kb.ID
	gen  []uint32
	// asrt counts the asserted graphs that hold a row's triple (0: the
	// triple is only derived), so that retraction knows which rows stand
	// on their own and which need a derivation.
	asrt []uint16
	set  pairIndex
	// The indexes by subject and by object are built on first use, which
	// may come from several workers of a round at once (idxMu); between
	// rounds insert keeps them up to date.
	bySubj, byObj atomic.Pointer[map[kb.ID][]int32]
	idxMu         sync.Mutex
	// newest is the first row of the newest generation (the delta).
	newest    int
	newestGen uint32
	live      int
	// stored holds, in a working memory loaded on demand (ondemand.go),
	// the triples read from the store: a later read skips them.
	stored map[[2]kb.ID]struct{}
}

// tripleStore is the engine's working memory: every triple it reads, by
// predicate.
type tripleStore struct {
	tables map[kb.ID]*table
	order  []*table // for patterns with a variable predicate
}

func newTripleStore() *tripleStore { return &tripleStore{tables: map[kb.ID]*table{}} }

func (ts *tripleStore) table(p kb.ID, create bool) *table {
	t := ts.tables[p]
	if t == nil && create {
		t = &table{p: p}
		ts.tables[p] = t
		ts.order = append(ts.order, t)
	}
	return t
}

// lookup returns the live row of (s, o), or -1.
func (t *table) lookup(s, o kb.ID) int32 {
	return t.set.find(s, o, t.s, t.o)
}

// insert adds a triple in generation g; it returns false when the triple
// is already there.
func (t *table) insert(s, o kb.ID, g uint32) bool {
	_, fresh := t.insertRow(s, o, g)
	return fresh
}

// insertRow is insert returning the triple's row too.
func (t *table) insertRow(s, o kb.ID, g uint32) (int32, bool) {
	r, slot, h := t.set.findOrSlot(s, o, t.s, t.o)
	if r >= 0 {
		return r, false
	}
	r = int32(len(t.s))
	// A triple read on demand (generation 0) may come after the newest
	// generation's rows: it is old, and the delta's first row stays.
	if g != t.newestGen && (g != 0 || t.stored == nil) {
		t.newest = len(t.s)
		t.newestGen = g
	}
	t.s = append(t.s, s)
	t.o = append(t.o, o)
	t.gen = append(t.gen, g)
	t.asrt = append(t.asrt, 0)
	t.set.fill(slot, h, r)
	if m := t.bySubj.Load(); m != nil {
		(*m)[s] = append((*m)[s], r)
	}
	if m := t.byObj.Load(); m != nil {
		(*m)[o] = append((*m)[o], r)
	}
	t.live++
	return r, true
}

// assert inserts a triple in generation g, if it is not there, and counts
// one more asserted graph holding it; it returns whether the row is new.
func (t *table) assert(s, o kb.ID, g uint32) bool {
	r, fresh := t.insertRow(s, o, g)
	if t.asrt[r] < ^uint16(0) {
		t.asrt[r]++
	}
	return fresh
}

// remove deletes a triple; it returns false when it was not there.
func (t *table) remove(s, o kb.ID) bool {
	r := t.set.find(s, o, t.s, t.o)
	if r < 0 {
		return false
	}
	t.set.del(s, o, r)
	t.gen[r] = deletedGen
	t.live--
	return true
}

func (t *table) subjects() map[kb.ID][]int32 { return t.index(&t.bySubj, t.s) }

func (t *table) objects() map[kb.ID][]int32 { return t.index(&t.byObj, t.o) }

// index returns the index of column col, building it on first use.
func (t *table) index(idx *atomic.Pointer[map[kb.ID][]int32], col []kb.ID) map[kb.ID][]int32 {
	if m := idx.Load(); m != nil {
		return *m
	}
	t.idxMu.Lock()
	defer t.idxMu.Unlock()
	if m := idx.Load(); m != nil {
		return *m
	}
	m := make(map[kb.ID][]int32)
	for r, v := range col {
		if t.gen[r] != deletedGen {
			m[v] = append(m[v], int32(r))
		}
	}
	idx.Store(&m)
	return m
}

// hasDelta reports whether the table has rows of generation g, the newest.
func (t *table) hasDelta(g uint32) bool { return t.newestGen == g && t.newest < len(t.s) }

func (ts *tripleStore) contains(s, p, o kb.ID) bool {
	t := ts.tables[p]
	return t != nil && t.lookup(s, o) >= 0
}

func (ts *tripleStore) size() int {
	n := 0
	for _, t := range ts.order {
		n += t.live
	}
	return n
}
