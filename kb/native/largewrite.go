package native

import (
	"context"
	"slices"

	"github.com/perfkb/perfkb/kb"
)

// Large writes build outside the writer lock. A write of bulkApplyMin or
// more additions (Apply, ApplyChanges) and a bulk load's Commit do their
// expensive work first — sorting, dropping the quads already stored,
// sorting the read side's orders, writing the new dictionary entries'
// sstables — holding only bmu, which serialises large writes among
// themselves (each build uses both cores, and one build at a time writes
// each new term's dictionary entries once), and take the writer lock
// (wmu) only to publish: write the
// delta log entry, ingest it with the dictionary and counter tables, swap
// the read side. Small writes commit in between, so a small write never
// waits for a large one's build, only for its publication.
//
// What was built stays right across those small writes: the read side it
// was deduplicated against is compared at publication with the current
// one, and when they differ the write's quads are deduplicated again (one
// merge) and, only if that changes them, the orders are sorted again under
// the lock. The dictionary tables stay valid either way: a quad dropped
// after a small write added it needs no terms written, and one kept after
// a small write removed it had its terms stored with it. The log entry
// itself, whose key carries the next sequence number, and the counters,
// which are absolute counts, are written at publication.
//
// Only the delta log's path is built outside the lock. A write as large
// as the store (which rewrites it, rewrite.go), one into a store without
// a read side, and one whose IDs outgrow 32 bits are built under the lock
// as before: they depend on the whole stored state.

// logPrep is a large write's work done before the writer lock.
type logPrep struct {
	snap   *memSnapshot       // the read side keys was deduplicated against
	all    []key32            // the write's quads, sorted SPOG, no duplicates
	keys   []key32            // all minus the quads snap holds
	sorted [numOrders][]key32 // keys in each order, for the read side
	dict   dictionaryTables   // keys' new dictionary entries
}

// discard removes the prepared tables that will not be ingested.
func (p *logPrep) discard(s *Store) {
	if p != nil {
		s.discardDictionaryTables(p.dict)
	}
}

// ingestLarge writes keys (which it sorts in place) as one large write:
// built outside the writer lock when it goes to the delta log, else by
// locked, called with wmu held and keys sorted SPOG without duplicates.
// added, when not nil, receives the quads a delta log entry added. It
// reports whether the write went to the delta log (and locked was not
// called).
func (s *Store) ingestLarge(ctx context.Context, keys []key32, added *[]key32, locked func(keys []key32) error) (bool, error) {
	if err := s.bmu.LockCtx(ctx); err != nil {
		return false, err
	}
	defer s.bmu.Unlock()
	keys = compactKeys(sortKeys32(keys))
	prep, err := s.prepareLog(ctx, keys)
	if err != nil {
		return false, err
	}
	if err := s.wmu.LockCtx(ctx); err != nil {
		prep.discard(s)
		return false, err
	}
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		prep.discard(s)
		return false, err
	}
	if prep != nil {
		done, err := s.publishLog(ctx, prep, added)
		if done {
			return true, err
		}
	}
	return false, locked(keys)
}

// sortKeys32 sorts keys in SPOG order and returns them (in keys or in a
// new slice as long).
func sortKeys32(keys []key32) []key32 {
	return radixSortParallel(keys, make([]key32, len(keys)))
}

// prepareLog builds a large write of all (sorted SPOG, no duplicates) for
// the delta log, or returns nil when the write does not go there as the
// store stands. The caller holds bmu and not wmu.
func (s *Store) prepareLog(ctx context.Context, all []key32) (*logPrep, error) {
	if err := s.wmu.LockCtx(ctx); err != nil {
		return nil, err
	}
	if err := s.checkOpen(); err != nil {
		s.wmu.Unlock()
		return nil, err
	}
	if s.memPending.Load() && !s.readOnly && s.memPending.Swap(false) {
		// As applyGroupLocked: writes go to the delta log once the read
		// side is built. On failure they stay on the indexes.
		_ = s.buildReadSide(ctx)
	}
	mem := s.mem.Load()
	logging := s.logging(mem) && fitsKey32(s.dict.limit())
	s.cmu.RLock()
	stored := s.counts.quads
	s.cmu.RUnlock()
	s.wmu.Unlock()
	if !logging || stored <= int64(len(all)) {
		return nil, nil // perhaps a rewrite: built under the lock
	}
	p := &logPrep{snap: mem, all: all, keys: mem.dropPresent(slices.Clone(all))}
	if len(p.keys) == 0 {
		return p, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.sorted = sortOrders(p.keys, make([]key32, len(p.keys)))
	p.dict = <-s.startDictionaryTables(s.dict.unsavedIDs(keyIDs32(p.keys)), false, 0)
	if p.dict.err != nil {
		p.discard(s)
		return nil, p.dict.err
	}
	return p, nil
}

// publishLog commits a prepared large write as one delta log entry and
// reports whether it did (or failed trying); when the store has changed
// so that the write no longer goes to the log, it removes the prepared
// tables and reports false. The caller holds wmu.
func (s *Store) publishLog(ctx context.Context, p *logPrep, added *[]key32) (bool, error) {
	cur := s.mem.Load()
	if !s.logging(cur) || !fitsKey32(s.dict.limit()) {
		p.discard(s)
		return false, nil
	}
	keys := p.keys
	if cur != p.snap {
		// Writes committed since the build: deduplicate again.
		if fresh := cur.dropPresent(slices.Clone(p.all)); !slices.Equal(fresh, keys) {
			keys = fresh
			if len(keys) > 0 {
				p.sorted = sortOrders(keys, make([]key32, len(keys)))
			}
		}
	}
	s.cmu.RLock()
	stored := s.counts.quads
	s.cmu.RUnlock()
	if stored <= int64(len(keys)) {
		p.discard(s)
		return false, nil
	}
	if added != nil {
		*added = slices.Clone(keys)
	}
	if len(keys) == 0 {
		p.discard(s)
		return true, nil
	}
	ch := make(chan dictionaryTables, 1)
	ch <- p.dict
	return true, s.commitLogEntry(ctx, keys, ch, &p.sorted)
}

// applyLarge is Apply (and ApplyChanges, with changes) for a delta of
// bulkApplyMin or more additions and no removals: ingestLarge, falling
// back to the group path. It reports false when the delta is not one.
func (s *Store) applyLarge(ctx context.Context, d kb.Delta, changes *kb.Delta) (bool, error) {
	if len(d.Remove) != 0 || len(d.Add) < bulkApplyMin {
		return false, nil
	}
	limit := s.dict.limit()
	if !fitsKey32(limit) {
		return false, nil
	}
	if err := s.checkIDs(d.Add, limit); err != nil {
		return true, err
	}
	var added []key32
	logged, err := s.ingestLarge(ctx, toKey32(nil, d.Add), &added, func([]key32) error {
		r := &applyReq{ctx: ctx, d: d, changes: changes}
		s.applyGroupLocked([]*applyReq{r})
		return r.err
	})
	if err != nil || !logged {
		return true, err
	}
	s.commits.Add(1)
	if changes != nil {
		quads := make([]kb.Quad, len(added))
		for i, k := range added {
			quads[i] = k.quad()
		}
		*changes = kb.Delta{Add: quads}
	}
	return true, nil
}
