package native

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"

	"github.com/perfkb/perfkb/kb"
)

// The read side of an on-disk store. Pebble is the durable truth and the
// cold-start source, but a probe through it costs a seek (a star join does
// thousands), so while the quads fit in Options.MemoryBudget a Store also
// keeps them as a memSnapshot: the same sorted 16-byte ID-tuple arrays,
// one per index order, that back MemStore. Open fills it from the SPOG
// index (one sequential scan) and sorts the other orders in memory; every
// Apply and bulk commit publishes the next snapshot after its Pebble commit
// and before it returns, under wmu, so a reader sees a write exactly when
// it is durable. Reads (Match, ScanQuads, Count, has) use the snapshot when
// there is one and Pebble otherwise.
//
// The snapshot is derived state: open maps it from the side files a bulk
// load wrote (sidefile.go) when no write has happened since, and otherwise
// the first read rebuilds it from Pebble, so it cannot disagree with what
// survived a crash.

// bytesPerQuad is what one quad costs the read side: a 16-byte key in
// each of the six orders.
const bytesPerQuad = 16 * numOrders

// DefaultMemoryBudget is the read side's default limit (Options.MemoryBudget
// zero): about 22M quads.
const DefaultMemoryBudget = 2 << 30

// memBudget returns the budget in bytes, or 0 when the read side is off.
func (o Options) memBudget() int64 {
	switch {
	case o.MemoryBudget < 0:
		return 0
	case o.MemoryBudget == 0:
		return DefaultMemoryBudget
	}
	return o.MemoryBudget
}

// fitsBudget reports whether n quads (and the dictionary's IDs) fit the
// read side.
func (s *Store) fitsBudget(n int64) bool {
	return s.budget > 0 && n*bytesPerQuad <= s.budget && fitsKey32(s.dict.limit())
}

// buildReadSide fills the read side from Pebble when the store fits the
// budget. It is called by open, before the store is shared.
func (s *Store) buildReadSide(ctx context.Context) error {
	if !s.fitsBudget(s.counts.quads) {
		return nil
	}
	keys, err := s.readKeys(ctx)
	if err != nil || keys == nil {
		return err // nil: not representable, stay on Pebble
	}
	empty := newCounters()
	var next *memSnapshot
	if len(keys) == 0 {
		next = &memSnapshot{counts: &empty}
	} else {
		// Keys come in SPOG order from the SPOG index.
		next = (&memSnapshot{counts: &empty}).withSorted(sortOrders(keys, make([]key32, len(keys))))
	}
	s.mem.Store(next)
	return nil
}

// readKeys reads every stored quad from the SPOG index, in SPOG order; nil
// (and no error) when an ID does not fit 32 bits.
func (s *Store) readKeys(ctx context.Context) ([]key32, error) {
	keys := make([]key32, 0, s.counts.quads)
	it, err := s.newIter([]byte{prefixIndex}, []byte{prefixIndex + 1})
	if err != nil {
		return nil, err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if len(keys)&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				_ = s.release(it)
				return nil, err
			}
		}
		q, err := decodeIndexKey(0, it.Key())
		if err != nil {
			_ = s.release(it)
			return nil, err
		}
		if uint64(q.S|q.P|q.O|q.G) >= 1<<32 {
			return nil, s.release(it) // not representable
		}
		keys = append(keys, key32{uint32(q.S), uint32(q.P), uint32(q.O), uint32(q.G)})
	}
	if err := it.Error(); err != nil {
		_ = s.release(it)
		return nil, fmt.Errorf("native: %w", err)
	}
	return keys, s.release(it)
}

// readSide returns the current snapshot, or nil when reads go to Pebble.
// The first read of a store opened with a budget builds it (the write
// paths never do: a bulk load with no reader pays nothing for it). Callers
// holding wmu use s.mem.Load() instead.
func (s *Store) readSide() *memSnapshot {
	if m := s.mem.Load(); m != nil || (!s.memPending.Load() && !s.partial.Load()) {
		return m
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.memPending.Swap(false) && !s.closed.Load() {
		// On failure reads simply stay on Pebble, which holds the truth
		// (once partial below has its indexes built).
		_ = s.buildReadSide(context.Background())
	}
	if s.mem.Load() == nil && s.partial.Load() && !s.closed.Load() {
		s.readFromPartial(context.Background())
	}
	return s.mem.Load()
}

// applyReadSide publishes the read side after a committed Apply whose net
// changes were add and remove. Past the budget reads go to Pebble, once
// the delta log is folded into it. The caller holds wmu.
func (s *Store) applyReadSide(ctx context.Context, add, remove []kb.Quad) {
	cur := s.mem.Load()
	if cur == nil {
		return
	}
	if s.logOps == 0 && !s.fitsBudget(cur.counts.quads+int64(len(add))) {
		s.mem.Store(nil) // past the budget: reads go to Pebble
		return
	}
	if next := cur.withDelta(add, remove); next != nil {
		s.mem.Store(next)
	}
	s.dropPastBudget(ctx)
}

// bulkReadSide publishes the read side after a committed bulk load of
// sorted, the new quads in every order. The caller holds wmu.
func (s *Store) bulkReadSide(ctx context.Context, sorted [numOrders][]key32) {
	cur := s.mem.Load()
	if cur == nil {
		return
	}
	if s.logOps == 0 && !s.fitsBudget(cur.counts.quads+int64(len(sorted[0]))) {
		s.mem.Store(nil)
		return
	}
	s.mem.Store(cur.withSortedDelta(sorted))
	s.dropPastBudget(ctx)
}

// dropPastBudget drops a read side that no longer fits the budget, after
// folding the delta log (reads from Pebble see only the base). The caller
// holds wmu.
func (s *Store) dropPastBudget(ctx context.Context) {
	if cur := s.mem.Load(); cur != nil && !s.fitsBudget(cur.counts.quads) && s.foldBeforeDrop(ctx) {
		s.mem.Store(nil)
	}
}

// dropReadSide switches reads to Pebble for good (a write the read side
// cannot follow). The caller holds wmu.
func (s *Store) dropReadSide() { s.mem.Store(nil) }

// scanSnapshot is ScanQuads on the read side.
func scanSnapshot(ctx context.Context, m *memSnapshot, p kb.Pattern, fn func(kb.Quad) bool) error {
	var r memRange
	m.ranges(p, &r)
	return emitRange(ctx, &r, fn)
}

// emitRange calls fn on each quad of r until it returns false, looking at
// ctx every 1,024 quads so that a long scan stops with its request.
func emitRange(ctx context.Context, r *memRange, fn func(kb.Quad) bool) error {
	n := 0
	for r.next() {
		n++
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !fn(r.quad()) {
			return nil
		}
	}
	return nil
}

// matchSnapshot is Match on the read side.
func matchSnapshot(m *memSnapshot, p kb.Pattern) kb.QuadIterator {
	it := &memIterator{}
	m.ranges(p, &it.memRange)
	return it
}

// countSnapshot counts p's matches on the read side, exactly.
func countSnapshot(m *memSnapshot, p kb.Pattern) int64 {
	var r memRange
	m.ranges(p, &r)
	return int64(len(r.base) - len(r.dels) + len(r.adds))
}

// SetMemoryBudget changes the read side's budget (same meaning as
// Options.MemoryBudget): a store that no longer fits reads from Pebble, one
// that fits now and had no read side builds it (a scan of the SPOG index).
func (s *Store) SetMemoryBudget(ctx context.Context, budget int64) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.budget = Options{MemoryBudget: budget}.memBudget()
	s.memPending.Store(false)
	s.cmu.RLock()
	n := s.counts.quads
	s.cmu.RUnlock()
	switch {
	case !s.fitsBudget(n):
		if err := s.foldLog(ctx); err != nil {
			return err // the log stays readable from the read side
		}
		s.dropReadSide()
		return nil
	case s.mem.Load() == nil:
		if err := s.buildReadSide(ctx); err != nil {
			return err
		}
	}
	// Without this a store opened with no budget (the CLI's store.Open)
	// decodes every term through a cache map, a fifth of the CPU of a
	// GROUP BY over 30,000 values.
	return s.loadDictionary(ctx)
}

// ReadsFromMemory reports whether reads are answered by the read side.
func (s *Store) ReadsFromMemory() bool { return s.readSide() != nil }

// bytesPerTerm is a rough cost of one term held in the dictionary's arena
// and hash table, for the budget.
const bytesPerTerm = 80

// loadDictionary reads every stored term into the dictionary's arena, in
// ID order, when it fits the budget beside the quads. The dictionary is
// then complete: TermOf and Lookup answer from memory for every ID, and
// Intern never probes Pebble for a term it does not hold. It is called by
// open, before the store is shared, and by SetMemoryBudget (a server turns
// the read side on after open), where terms interned since open are kept
// after the stored ones with their IDs and saved marks.
func (s *Store) loadDictionary(ctx context.Context) error {
	if s.side != nil {
		// The mapped dictionary (sidefile.go) already decodes every
		// stored ID from memory without a copy on the heap.
		return nil
	}
	d := &s.dict
	d.mu.RLock()
	next, fresh := d.base, d.fresh()
	d.mu.RUnlock()
	if s.budget <= 0 || next <= 1 || int64(next-1+kb.ID(fresh))*bytesPerTerm+s.counts.quads*bytesPerQuad > s.budget {
		return nil
	}
	it, err := s.newIter([]byte{prefixID}, []byte{prefixID + 1})
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	next = d.base
	// The terms interned since open (IDs next, next+1, …): their bytes
	// stay in the old chunks, which these slices keep alive.
	freshTerms := make([][]byte, d.fresh())
	for i := range freshTerms {
		freshTerms[i] = d.encoded(i) // nil for a hole
	}
	persisted, savedFrom, savedBits, stored := d.persisted, d.savedFrom, d.savedBits, d.stored
	d.init(1)
	var onDisk int64
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()
		if len(key) != 9 {
			_ = s.release(it)
			return errCorruptKey
		}
		id := kb.ID(binary.BigEndian.Uint64(key[1:]))
		if id >= next {
			break // saved since open: already among the fresh terms
		}
		if id < d.limitLocked() {
			_ = s.release(it)
			return errCorruptKey
		}
		if d.limitLocked()&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				_ = s.release(it)
				return err
			}
		}
		for d.limitLocked() < id {
			d.addHole() // an ID issued and never stored
		}
		enc := it.Value()
		d.add(enc, maphash.Bytes(d.seed, enc))
		onDisk++
	}
	if err := it.Error(); err != nil {
		_ = s.release(it)
		return fmt.Errorf("native: %w", err)
	}
	for d.limitLocked() < next {
		d.addHole()
	}
	for _, enc := range freshTerms {
		if enc == nil {
			d.addHole()
		} else {
			d.add(enc, maphash.Bytes(d.seed, enc))
		}
	}
	// Terms below next were counted as next-1 (an upper bound) until now.
	d.persisted, d.savedFrom, d.savedBits = persisted, savedFrom, savedBits
	d.stored = onDisk + stored - int64(next-1)
	return s.release(it)
}

// MemoryLookups implements kb.MemoryLookups: true while reads come from
// the read side.
func (s *Store) MemoryLookups() bool { return s.readSide() != nil }

// MemoryLookups implements kb.MemoryLookups: an in-memory store always
// answers lookups from sorted arrays.
func (m *MemStore) MemoryLookups() bool { return true }

// GraphLast implements kb.GraphLast: a pattern with the graph unbound is
// answered from SPOG, POSG or OSPG (plans), in key order, from Pebble or
// from the read side alike.
func (s *Store) GraphLast() bool { return true }

// GraphLast implements kb.GraphLast, as for Store.
func (m *MemStore) GraphLast() bool { return true }
