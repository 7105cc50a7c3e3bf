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
// one Pebble batch, synced before Apply returns (unless Options.NoSync).
func (s *Store) Apply(ctx context.Context, d kb.Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.readOnly {
		return ErrReadOnly
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.applyLocked(ctx, d)
}

// applyLocked is Apply for a caller that holds wmu.
func (s *Store) applyLocked(ctx context.Context, d kb.Delta) error {
	limit := s.dict.limit()
	if err := s.checkIDs(d.Remove, limit); err != nil {
		return err
	}
	if err := s.checkIDs(d.Add, limit); err != nil {
		return err
	}

	// Net effect per quad: present afterwards iff added, or present before
	// and not removed.
	want := make(map[kb.Quad]bool, len(d.Remove)+len(d.Add))
	for _, q := range d.Remove {
		want[q] = false
	}
	for _, q := range d.Add {
		want[q] = true
	}
	// Check what is stored in SPOG order with one iterator.
	quads := make([]kb.Quad, 0, len(want))
	for q := range want {
		quads = append(quads, q)
	}
	slices.SortFunc(quads, cmpQuad)
	it, err := s.newIter([]byte{prefixIndex}, []byte{prefixIndex + 1})
	if err != nil {
		return err
	}
	defer func() { _ = s.release(it) }() // before the commit: see below
	b := s.db.NewBatch()
	defer b.Close()
	delta := make(map[[2]kb.ID]int64)
	key := make([]byte, 0, 40)
	mem := s.mem.Load()
	if !fitsKey32(limit) {
		mem = nil // keys would not fit; applyReadSide drops the read side
	}
	var added, removed []kb.Quad // the net changes, for the read side
	for _, q := range quads {
		present := want[q]
		var had bool
		if mem != nil {
			had = mem.has(key32{uint32(q.S), uint32(q.P), uint32(q.O), uint32(q.G)})
		} else {
			key = appendIndexKey(key[:0], 0, q)
			had = it.SeekGE(key) && bytes.Equal(it.Key(), key)
		}
		if had == present {
			continue
		}
		if present {
			added = append(added, q)
		} else {
			removed = append(removed, q)
		}
		for k := 0; k < numOrders; k++ {
			key = appendIndexKey(key[:0], k, q)
			if present {
				err = b.Set(key, nil, nil)
			} else {
				err = b.Delete(key, nil)
			}
			if err != nil {
				return fmt.Errorf("native: %w", err)
			}
		}
		if present {
			delta[[2]kb.ID{q.P, q.G}]++
		} else {
			delta[[2]kb.ID{q.P, q.G}]--
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	// Back to the pool before the commit makes it stale (and closes it).
	err = s.release(it)
	it = pooledIter{}
	if err != nil {
		return err
	}
	if err := s.commitBatch(b, delta, added); err != nil {
		return err
	}
	s.applyReadSide(added, removed)
	return nil
}

// commitBatch adds the pending dictionary entries and the changed counters
// to b, commits it and publishes the new counts. The caller holds wmu.
func (s *Store) commitBatch(b *pebble.Batch, delta map[[2]kb.ID]int64, added []kb.Quad) error {
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
	if err := b.Commit(s.writeOpts); err != nil {
		return fmt.Errorf("native: commit: %w", err)
	}
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
