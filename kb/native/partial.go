package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// A bulk load that rewrites the store (rewrite.go) and writes side files
// (sidefile.go) for a result that fits the read side writes only Pebble's
// SPOG index, not the other five orders. Writing an index table is the
// largest part of a load's CPU time (about a third of a 1M-triple load,
// for six tables), and the five other orders are already on disk in the
// side files and in memory in the read side; reads go to Pebble's indexes
// only when there is no read side. SPOG alone is the durable truth: the
// read side is built from it at open when the side files are missing, and
// so are the five orders when reads must go to Pebble.
//
// Such a store stores formatVersionPartial (older binaries refuse it) and
// has Store.partial set. Before any read goes to Pebble (readSide returns
// nil: the store grew past the budget, was opened without a read side,
// or the read side could not be built), readFromPartial builds the five
// orders from the SPOG index, ingests them and stores formatVersionLog;
// a crash in between leaves the marker, and the next build writes the
// same keys again. Writes while the store is partial that touch all six
// indexes (the paths without a read side) keep each order a subset of
// SPOG, which the build completes.

// partialAllowed says whether a rewrite of n quads with side files may
// leave Pebble with only the SPOG index: when they fit the read side that
// a store with side files gets at open (DefaultMemoryBudget where it was
// opened with none, as the CLI opens it).
func (s *Store) partialAllowed(n int64) bool {
	budget := max(s.budget, DefaultMemoryBudget)
	return !s.noPartial && !s.memory && !s.readOnly && n*bytesPerQuad <= budget && fitsKey32(s.dict.limit())
}

// readFromPartial is called by readSide when reads would go to Pebble's
// indexes of a partial store: it builds the five orders, or, when it
// cannot (a read-only store, a failed write), the read side from the SPOG
// index whatever the budget. The caller holds wmu.
func (s *Store) readFromPartial(ctx context.Context) {
	if err := s.completeOrders(ctx); err == nil {
		return
	}
	if keys, err := s.readKeys(ctx); err == nil && keys != nil {
		empty := newCounters()
		next := &memSnapshot{counts: &empty}
		if len(keys) > 0 {
			next = next.withSorted(sortOrders(keys, make([]key32, len(keys))))
		}
		s.mem.Store(next)
	}
}

// completeOrders writes the five orders other than SPOG of a partial
// store from its SPOG index and clears the marker. The caller holds wmu.
func (s *Store) completeOrders(ctx context.Context) error {
	if !s.partial.Load() {
		return nil
	}
	if s.readOnly {
		return ErrReadOnly
	}
	keys, err := s.readKeys(ctx)
	if err != nil {
		return err
	}
	if keys == nil {
		return errors.New("native: a partial store holds an ID past 32 bits")
	}
	var paths [numOrders]string
	var errs [numOrders]error
	if len(keys) > 0 {
		byOrder := sortOrders(keys, make([]key32, len(keys)))
		var waits []func()
		for half := range 2 {
			waits = append(waits, fork(func() {
				for k := 1 + half; k < numOrders; k += 2 {
					if paths[k], errs[k] = s.writeIndexTable32(k, keyUnion{a: byOrder[k]}); errs[k] != nil {
						return
					}
				}
			}))
		}
		for _, wait := range waits {
			wait()
		}
	}
	var files []string
	for _, p := range paths {
		if p != "" {
			files = append(files, p)
		}
	}
	defer func() {
		for _, f := range files {
			_ = s.fs.Remove(f) // ingested files were moved; the rest are garbage
		}
	}()
	if err := errors.Join(errs[:]...); err != nil {
		return err
	}
	if len(files) > 0 {
		if err := s.db.Ingest(ctx, files); err != nil {
			return fmt.Errorf("native: ingest: %w", err)
		}
		s.invalidateIters(false)
	}
	version := binary.AppendUvarint(nil, formatVersionLog)
	if err := s.db.Set(metaVersionKey, version, pebble.Sync); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	s.partial.Store(false)
	return nil
}

// completeForCayley makes the store write, and hold, all six indexes:
// the Cayley backend reads Pebble's indexes directly.
func (s *Store) completeForCayley(ctx context.Context) error {
	if err := s.wmu.LockCtx(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	s.noPartial = true
	if !s.partial.Load() {
		return nil
	}
	if err := s.completeOrders(ctx); err != nil {
		return fmt.Errorf("native: open for Cayley: %w", err)
	}
	return nil
}
