package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"
)

// ErrReadOnly is returned by writes to a store opened read-only.
var ErrReadOnly = errors.New("native: store is read-only")

// checkIDs reports kb.ErrUnknownID when a quad holds an ID the dictionary
// never issued.
func (s *Store) checkIDs(quads []kb.Quad, limit kb.ID) error {
	for _, q := range quads {
		if q.S == 0 || q.P == 0 || q.O == 0 || q.G == 0 ||
			q.S >= limit || q.P >= limit || q.O >= limit || q.G >= limit {
			return fmt.Errorf("native: quad %v: %w", q, kb.ErrUnknownID)
		}
	}
	return nil
}

// Apply implements kb.Dataset: removals, then additions, written with every
// index entry, the counters they change and any new dictionary entries in
// one Pebble batch, synced before Apply returns (unless Options.NoSync). A
// delta of bulkApplyMin or more additions and no removals is written as
// BeginBulk's Commit writes a load: sorted sstables, ingested at once.
//
// Concurrent Apply calls commit together (group commit): the first caller
// to find no commit under way becomes the leader, takes every delta queued
// so far, computes each one's net effect against the state including the
// deltas before it in the group, and commits them all in one batch with
// one fsync, then wakes the others. A delta that fails its checks fails
// alone; a failed commit fails the whole group, and none of it is stored.
// Every Apply still returns only once its delta is durable (or refused).
//
// A request waits for its group with ctx in view: when ctx ends while the
// request is still queued (or its caller waits, as the next leader, for the
// writer lock), it leaves the queue unapplied and Apply returns ctx's
// error. A request already taken into a committing group stays in it and
// Apply returns that commit's outcome.
func (s *Store) Apply(ctx context.Context, d kb.Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.readOnly {
		return ErrReadOnly
	}
	if large, err := s.applyLarge(ctx, d, nil); large {
		return err
	}
	req := &applyReq{ctx: ctx, d: d, wake: make(chan struct{}, 1)}
	s.gmu.Lock()
	s.queue = append(s.queue, req)
	if !s.leading {
		s.leading = true
		req.lead = true
	}
	lead := req.lead
	s.gmu.Unlock()
	if !lead {
		select {
		case <-req.wake:
		case <-ctx.Done():
			if left, err := s.leaveQueue(req, ctx.Err()); left {
				return err
			}
			<-req.wake // taken into a group, or handed the lead
		}
		s.gmu.Lock()
		done := req.done
		s.gmu.Unlock()
		if done {
			return req.err
		}
		// Woken as the next leader; req is still queued.
	}
	s.leadGroup(req)
	return req.err
}

// applyReq is one Apply waiting for a group commit. done, err, taken and
// lead are written under gmu: done and err by the leader that committed
// it, before wake.
type applyReq struct {
	ctx  context.Context
	d    kb.Delta
	err  error
	done bool
	// taken: a leader has taken the request into the group it commits.
	taken bool
	// lead: the request's caller is (or is woken to become) the leader.
	lead bool
	wake chan struct{}
	// changes, when not nil, receives the quads the delta changed (see
	// ApplyChanges); only for a group of one.
	changes *kb.Delta
}

// leaveQueue takes req out of the queue with err when no leader has taken
// it yet, handing the lead on when req held it, and reports whether it
// left. It returns req's own outcome when req is already done.
func (s *Store) leaveQueue(req *applyReq, err error) (bool, error) {
	s.gmu.Lock()
	if req.done {
		s.gmu.Unlock()
		return true, req.err
	}
	if req.taken {
		s.gmu.Unlock()
		return false, nil
	}
	if i := slices.Index(s.queue, req); i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
	}
	req.err, req.done = err, true
	var next *applyReq
	if req.lead {
		req.lead = false
		if len(s.queue) > 0 {
			next = s.queue[0]
			next.lead = true
		} else {
			s.leading = false
		}
	}
	s.gmu.Unlock()
	if next != nil {
		next.wake <- struct{}{}
	}
	return true, err
}

// bulkApplyMin is the size from which an Apply of additions alone is
// written as sorted sstables and ingested (as BeginBulk's Commit does)
// instead of through a batch: a batch that large goes through the
// memtable and the WAL and is then flushed and compacted, which costs
// several times more than writing the sorted runs once. A variable for the
// crash test, which takes the path with small batches.
var bulkApplyMin = 16384

// ApplyChanges implements kb.ChangeReporter: Apply, returning the quads it
// added that were not stored and the quads it removed that were.
func (s *Store) ApplyChanges(ctx context.Context, d kb.Delta) (kb.Delta, error) {
	if err := ctx.Err(); err != nil {
		return kb.Delta{}, err
	}
	if s.readOnly {
		return kb.Delta{}, ErrReadOnly
	}
	var changes kb.Delta
	if large, err := s.applyLarge(ctx, d, &changes); large {
		if err != nil {
			return kb.Delta{}, err
		}
		return changes, nil
	}
	if err := s.wmu.LockCtx(ctx); err != nil {
		return kb.Delta{}, err
	}
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		return kb.Delta{}, err
	}
	r := &applyReq{ctx: ctx, d: d, changes: &changes}
	s.applyGroupLocked([]*applyReq{r})
	if r.err != nil {
		return kb.Delta{}, r.err
	}
	return changes, nil
}

// leadGroup commits every queued request as one group, then hands the
// lead to the oldest request queued meanwhile (or gives it up) and wakes
// the group. The caller is the leader and its own request, req, is queued;
// when req's context ends before the writer lock is free, req leaves the
// queue and the lead passes on without a commit.
func (s *Store) leadGroup(req *applyReq) {
	if err := s.wmu.LockCtx(req.ctx); err != nil {
		s.leaveQueue(req, err)
		return
	}
	s.gmu.Lock()
	group := s.queue
	s.queue = nil
	for _, r := range group {
		r.taken = true
	}
	s.gmu.Unlock()
	if err := s.checkOpen(); err != nil {
		for _, r := range group {
			r.err = err
		}
	} else {
		s.applyGroupLocked(group)
	}
	s.wmu.Unlock()
	s.gmu.Lock()
	for _, r := range group {
		r.done = true
	}
	var next *applyReq
	if len(s.queue) > 0 {
		next = s.queue[0] // leads the next group
		next.lead = true
	} else {
		s.leading = false
	}
	s.gmu.Unlock()
	for _, r := range group {
		r.wake <- struct{}{} // the leader's own buffered wake is never read
	}
	if next != nil {
		next.wake <- struct{}{}
	}
}

// applyLocked is Apply for a caller that holds wmu: a group of one.
func (s *Store) applyLocked(ctx context.Context, d kb.Delta) error {
	r := &applyReq{ctx: ctx, d: d}
	s.applyGroupLocked([]*applyReq{r})
	return r.err
}

// applyGroupLocked applies the deltas of group in order in one batch and
// sets each request's err. The caller holds wmu.
func (s *Store) applyGroupLocked(group []*applyReq) {
	limit := s.dict.limit()
	if s.memPending.Load() && !s.readOnly && s.memPending.Swap(false) {
		// A store with a read side writes its changes to the delta log
		// (deltalog.go) instead of the six indexes: build it now rather
		// than at the first read. On failure writes stay on the indexes.
		_ = s.buildReadSide(group[0].ctx)
	}
	if !fitsKey32(limit) && s.logOps > 0 {
		// The read side cannot hold the new IDs, and without it reads
		// come from Pebble, which must then hold the log's quads too.
		if err := s.foldLog(group[0].ctx); err != nil {
			for _, r := range group {
				r.err = err
			}
			return
		}
	}
	if len(group) == 1 && len(group[0].d.Remove) == 0 && len(group[0].d.Add) >= bulkApplyMin && fitsKey32(limit) {
		s.applyBulkLocked(group[0], limit)
		return
	}
	mem := s.mem.Load()
	if !fitsKey32(limit) {
		mem = nil // keys would not fit; applyReadSide drops the read side
	}
	logging := s.logging(mem)
	var it pooledIter
	release := func() error {
		if it == (pooledIter{}) {
			return nil
		}
		err := s.release(it)
		it = pooledIter{}
		return err
	}
	defer func() { _ = release() }() // before the commit: see below
	key := make([]byte, 0, 40)
	// stored reports whether q is stored before the group.
	stored := func(q kb.Quad) (bool, error) {
		if mem != nil {
			return mem.has(key32{uint32(q.S), uint32(q.P), uint32(q.O), uint32(q.G)}), nil
		}
		if it == (pooledIter{}) {
			var err error
			if it, err = s.newIter([]byte{prefixIndex}, []byte{prefixIndex + 1}); err != nil {
				return false, err
			}
		}
		key = appendIndexKey(key[:0], 0, q)
		return it.SeekGE(key) && bytes.Equal(it.Key(), key), nil
	}
	// Per quad touched by the group: stored before it, and present after
	// the requests applied so far.
	type state struct{ before, now bool }
	touched := make(map[kb.Quad]*state)
	var order []kb.Quad // touched quads, first touch first
	ok := make([]bool, len(group))
	for i, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			continue
		}
		if err := s.checkIDs(r.d.Remove, limit); err != nil {
			r.err = err
			continue
		}
		if err := s.checkIDs(r.d.Add, limit); err != nil {
			r.err = err
			continue
		}
		// Net effect per quad: present afterwards iff added, or present
		// before and not removed.
		for pass, ql := range [2][]kb.Quad{r.d.Remove, r.d.Add} {
			present := pass == 1
			for _, q := range ql {
				st := touched[q]
				if st == nil {
					had, err := stored(q)
					if err != nil {
						for _, r := range group {
							r.err = err
						}
						return
					}
					st = &state{before: had, now: had}
					touched[q] = st
					order = append(order, q)
				}
				st.now = present
			}
		}
		ok[i] = true
	}
	if it != (pooledIter{}) {
		if err := it.Error(); err != nil {
			for _, r := range group {
				r.err = fmt.Errorf("native: %w", err)
			}
			return
		}
	}
	// Back to the pool before the commit makes it stale (and closes it).
	if err := release(); err != nil {
		for _, r := range group {
			r.err = err
		}
		return
	}
	fail := func(err error) {
		for i, r := range group {
			if ok[i] {
				r.err = err
			}
		}
	}
	// The group's net changes, written in SPOG order.
	slices.SortFunc(order, cmpQuad)
	b := s.db.NewBatch()
	defer b.Close()
	delta := make(map[[2]kb.ID]int64)
	var added, removed []kb.Quad // the net changes, for the read side
	for _, q := range order {
		st := touched[q]
		if st.before == st.now {
			continue
		}
		present := st.now
		if present {
			added = append(added, q)
			delta[[2]kb.ID{q.P, q.G}]++
		} else {
			removed = append(removed, q)
			delta[[2]kb.ID{q.P, q.G}]--
		}
		if logging {
			continue // one log entry below instead of six keys per quad
		}
		for k := 0; k < numOrders; k++ {
			key = appendIndexKey(key[:0], k, q)
			var err error
			if present {
				err = b.Set(key, nil, nil)
			} else {
				err = b.Delete(key, nil)
			}
			if err != nil {
				fail(fmt.Errorf("native: %w", err))
				return
			}
		}
	}
	logged := logging && len(added)+len(removed) > 0
	if logged {
		if err := s.useLogFormat(); err != nil {
			fail(err)
			return
		}
		if err := logChunks(s.logSeq, toKey32(nil, added), toKey32(nil, removed), func(k, v []byte) error {
			return b.Set(k, v, nil)
		}); err != nil {
			fail(fmt.Errorf("native: %w", err))
			return
		}
	}
	if err := s.commitBatch(b, delta, added, logging); err != nil {
		fail(err)
		return
	}
	if logged {
		s.logged(len(added) + len(removed))
	}
	ctx := group[0].ctx
	s.applyReadSide(ctx, added, removed)
	if logged {
		s.maybeFold(ctx)
	}
	if len(group) == 1 && group[0].changes != nil {
		*group[0].changes = kb.Delta{Add: added, Remove: removed}
	}
}

// applyBulkLocked applies r, a large delta of additions alone, with one
// atomic ingest of sorted sstables. Ingested tables are durable when
// Ingest returns, so the delta is as durable as a synced batch. The caller
// holds wmu.
func (s *Store) applyBulkLocked(r *applyReq, limit kb.ID) {
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return
	}
	if err := s.checkIDs(r.d.Add, limit); err != nil {
		r.err = err
		return
	}
	added, err := s.ingestKeys(r.ctx, toKey32(nil, r.d.Add), ingestOptions{added: r.changes != nil})
	if err != nil {
		r.err = err
		return
	}
	s.commits.Add(1)
	if r.changes != nil {
		quads := make([]kb.Quad, len(added))
		for i, k := range added {
			quads[i] = k.quad()
		}
		*r.changes = kb.Delta{Add: quads}
	}
}

// commitBatch adds the pending dictionary entries and the changed counters
// to b, commits it and publishes the new counts. A batch that changes only
// the delta log (logged) leaves the side files, which describe the base,
// in place. The caller holds wmu.
func (s *Store) commitBatch(b *pebble.Batch, delta map[[2]kb.ID]int64, added []kb.Quad, logged bool) error {
	var terms []kb.ID // the new terms added quads reference: see dictsave.go
	if !s.memory {
		terms = s.dict.unsavedIDs(quadIDs(added))
		if err := s.dict.appendTerms(b, terms); err != nil {
			return fmt.Errorf("native: %w", err)
		}
	}
	s.cmu.RLock()
	var val []byte
	for pg, n := range delta {
		if n == 0 {
			continue
		}
		newCount := s.counts.byPG[pg] + n
		key := counterKey(pg[0], pg[1])
		var err error
		if newCount == 0 {
			err = b.Delete(key, nil)
		} else {
			val = binary.AppendUvarint(val[:0], uint64(newCount))
			err = b.Set(key, val, nil)
		}
		if err != nil {
			s.cmu.RUnlock()
			return fmt.Errorf("native: %w", err)
		}
	}
	s.cmu.RUnlock()
	if b.Empty() {
		return nil
	}
	if !logged {
		if err := s.dropSide(); err != nil {
			return err
		}
	}
	if err := b.Commit(s.writeOpts); err != nil {
		return fmt.Errorf("native: commit: %w", err)
	}
	s.commits.Add(1)
	s.invalidateIters(false)
	if !s.memory {
		s.dict.markSaved(terms)
	}
	s.publish(delta)
	return nil
}

// publish adds committed count changes to the in-memory counters.
func (s *Store) publish(delta map[[2]kb.ID]int64) {
	s.cmu.Lock()
	for pg, n := range delta {
		if n != 0 {
			s.counts.add(pg[0], pg[1], n)
		}
	}
	s.cmu.Unlock()
}
