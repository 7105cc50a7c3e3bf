package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"
)

// The delta log. While a store has a read side (readside.go), a write
// smaller than the store does not touch the six index keyspaces: its net
// changes (the quads it added that were absent, the quads it removed that
// were present) are appended to the log, one entry per write under a
// sequence number one past the last, as 16-byte SPOG keys in chunks of
// logChunk. Keys that only ever grow at the end of their own keyspace
// never overlap what is stored, so Pebble places an ingested entry in the
// bottom level and a flushed one never drags the six index keyspaces into
// a compaction: a stream of medium writes into a large store no longer
// rewrites its base. The dictionary entries and the (predicate, graph)
// counters are written with the entry as before, in the same batch or
// ingest, so an entry is durable and atomic exactly as Apply was.
//
// What is stored is then the base (the six index keyspaces, which the side
// files mirror when present) with the log replayed over it in sequence
// order. Reads never see the split: the read side holds base and log, and
// open replays the log over the mapped side files (or the SPOG index)
// before the store is shared. The log is folded into a new base (the six
// index tables, dictionary and counters of the whole store, side files
// beside them) by one IngestAndExcise of the whole key space, which also
// removes the log, so a kill -9 leaves either base and log or the new
// base:
//
//   - when its entries reach logFoldRatio times the base (and at least
//     logFoldMin quads), so that open stays cheap;
//   - before the read side goes away (the store outgrows Options.
//     MemoryBudget, SetMemoryBudget lowers it, IDs outgrow 32 bits),
//     since reads from Pebble see only the base;
//   - when a write is as large as the store (it rewrites the store anyway,
//     see rewrite.go).
//
// A store with a log is format version 2: older binaries, which would
// ignore the log, refuse it.

// logChunk is the number of keys in one log value (64 KiB).
const logChunk = 4096

// logFoldMin and logFoldRatio bound the log: it is folded once its
// entries hold logFoldMin quads and logFoldRatio times the base's.
// Variables for the crash test, which folds after every entry.
var (
	logFoldMin   int64 = 1 << 20
	logFoldRatio int64 = 1
)

// Log value kinds: the first byte of a chunk.
const (
	logAdd    = 'a'
	logRemove = 'r'
)

// logKey returns the key of chunk c of log entry seq.
func logKey(seq uint64, c uint32) []byte {
	k := make([]byte, 13)
	k[0] = prefixLog
	binary.BigEndian.PutUint64(k[1:], seq)
	binary.BigEndian.PutUint32(k[9:], c)
	return k
}

// logChunks calls fn with the key and value of each chunk of one entry:
// adds, then removes (disjoint, so their order does not matter).
func logChunks(seq uint64, adds, removes []key32, fn func(k, v []byte) error) error {
	c := uint32(0)
	for _, part := range []struct {
		kind byte
		keys []key32
	}{{logAdd, adds}, {logRemove, removes}} {
		for i := 0; i < len(part.keys); i += logChunk {
			run := part.keys[i:min(i+logChunk, len(part.keys))]
			v := make([]byte, 1, 1+16*len(run))
			v[0] = part.kind
			for _, k := range run {
				v = binary.LittleEndian.AppendUint32(v, k[0])
				v = binary.LittleEndian.AppendUint32(v, k[1])
				v = binary.LittleEndian.AppendUint32(v, k[2])
				v = binary.LittleEndian.AppendUint32(v, k[3])
			}
			if err := fn(logKey(seq, c), v); err != nil {
				return err
			}
			c++
		}
	}
	return nil
}

// decodeLogValue calls fn on each key of one chunk.
func decodeLogValue(v []byte, fn func(add bool, k key32)) error {
	if len(v) < 1 || (len(v)-1)%16 != 0 || (v[0] != logAdd && v[0] != logRemove) {
		return errCorruptKey
	}
	add := v[0] == logAdd
	for b := v[1:]; len(b) > 0; b = b[16:] {
		fn(add, key32{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]),
			binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:])})
	}
	return nil
}

// logging reports whether a write goes to the log: the store is on disk,
// has a read side to answer reads over base and log, and either keeps it
// by choice (a memory budget; a store opened without one, as the CLI
// opens it, drops a mapped read side at its first write and writes the
// indexes) or already has a log, which a write to the indexes would
// contradict. The caller holds wmu.
func (s *Store) logging(mem *memSnapshot) bool {
	// Folding the log needs an excise that waits for the memtable.
	return mem != nil && !s.memory && !s.readOnly && (s.budget > 0 || s.logOps > 0) &&
		s.db.FormatMajorVersion() >= pebble.FormatFlushableIngestExcises
}

// useLogFormat marks the store as one that may hold a log (format
// version 2) before its first entry is written. The caller holds wmu.
func (s *Store) useLogFormat() error {
	if s.format >= formatVersionLog {
		return nil
	}
	var buf [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(buf[:], formatVersionLog)
	if err := s.db.Set(metaVersionKey, buf[:n], pebble.Sync); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	s.format = formatVersionLog
	return nil
}

// logged records a committed entry of n quads. The caller holds wmu.
func (s *Store) logged(n int) {
	s.logSeq++
	s.logOps += int64(n)
}

// baseChanged records a commit that replaced the base and removed the
// log (a rewrite or a fold). The caller holds wmu.
func (s *Store) baseChanged() {
	s.logOps = 0
	s.logSideOps = 0 // the log side file went with the side files
	s.cmu.RLock()
	s.logBase = s.counts.quads
	s.cmu.RUnlock()
}

// maybeFold folds the log when it has grown past its bound. A failed fold
// leaves base and log as they were (the write before it is committed
// either way); the next write tries again. The caller holds wmu.
func (s *Store) maybeFold(ctx context.Context) {
	if s.logOps >= logFoldMin && s.logOps >= logFoldRatio*s.logBase {
		_ = s.foldLog(ctx)
	}
}

// foldLog writes the store as the read side holds it as a new base (six
// index tables, the dictionary, counters and side files) and replaces
// everything with it in one IngestAndExcise, which also removes the log.
// The caller holds wmu.
func (s *Store) foldLog(ctx context.Context) error {
	if s.logOps == 0 {
		return nil
	}
	m := s.mem.Load()
	if m == nil {
		return errors.New("native: delta log without a read side")
	}
	if !s.canRewrite() {
		return errors.New("native: cannot fold the delta log: the store cannot be rewritten")
	}
	all := m.merged()
	var firsts [numOrders][]uint32
	parallelOrders(func(k int, _ []key32) {
		if len(m.adds[k])+len(m.dels[k]) == 0 && m.first[k] != nil {
			firsts[k] = m.first[k]
		} else {
			firsts[k] = firstIndex(all[k])
		}
	}, 0)
	build := sideBuild()
	dict := s.startDictionaryTables(nil, true, build)
	var paths [numOrders]string
	var errs, sideErrs [numOrders]error
	var waits []func()
	for half := 0; half < 2; half++ {
		waits = append(waits, fork(func() {
			for k := half * 3; k < half*3+3; k++ {
				if err := ctx.Err(); err != nil {
					errs[k] = err
					return
				}
				sideErrs[k] = writeSideTmp(s.dir, k, build, keyUnion{a: all[k]}, firsts[k])
				paths[k], errs[k] = s.writeIndexTable32(k, keyUnion{a: all[k]})
				if errs[k] != nil {
					return
				}
			}
		}))
	}
	for _, wait := range waits {
		wait()
	}
	dt := <-dict
	err := s.ingestTables(ctx, paths[:], errs[:], nil, dt, ingestRewrite)
	if err == nil && errors.Join(sideErrs[:]...) == nil && dt.sideErr == nil && dt.sideDone {
		if s.commitSide() != nil {
			_ = s.dropSide()
		}
	} else {
		_ = removeSide(s.dir, true)
	}
	if err != nil {
		return err
	}
	s.baseChanged()
	s.mem.Store(&memSnapshot{base: all, first: firsts, counts: m.counts, pin: m.pin})
	return nil
}

// foldBeforeDrop folds the log before the read side is dropped: reads
// from Pebble see only the base. It reports whether the read side may go;
// when the fold fails it stays, past its budget, so that reads stay
// right. The caller holds wmu.
func (s *Store) foldBeforeDrop(ctx context.Context) bool {
	if s.logOps == 0 {
		return true
	}
	return s.foldLog(ctx) == nil
}

// writeLogTable writes entry seq of sorted adds as an sstable to ingest.
func (s *Store) writeLogTable(seq uint64, adds []key32) (string, error) {
	w, path, err := s.newTable(false)
	if err != nil {
		return "", err
	}
	if err := logChunks(seq, adds, nil, func(k, v []byte) error { return w.Set(k, v) }); err != nil {
		w.Close()
		return path, fmt.Errorf("native: %w", err)
	}
	if err := w.Close(); err != nil {
		return path, fmt.Errorf("native: %w", err)
	}
	return path, nil
}

// logIngest writes keys (sorted SPOG, none of them stored) as one log
// entry with one atomic ingest of its table, the new dictionary entries
// and the changed counters, and publishes them to the read side. The
// caller holds wmu.
func (s *Store) logIngest(ctx context.Context, keys []key32) error {
	return s.commitLogEntry(ctx, keys, s.startDictionaryTables(s.dict.unsavedIDs(keyIDs32(keys)), false, 0), nil)
}

// commitLogEntry is logIngest given the dictionary tables (dict yields
// them; they are removed on failure) and, when sorted is not nil, keys
// already sorted in every order. The caller holds wmu.
func (s *Store) commitLogEntry(ctx context.Context, keys []key32, dict <-chan dictionaryTables, sorted *[numOrders][]key32) error {
	if err := s.useLogFormat(); err != nil {
		s.discardDictionaryTables(<-dict)
		return err
	}
	delta := make(map[[2]kb.ID]int64)
	for _, k := range keys {
		delta[[2]kb.ID{kb.ID(k[1]), kb.ID(k[3])}]++
	}
	path, werr := s.writeLogTable(s.logSeq, keys)
	if err := s.ingestTables(ctx, []string{path}, []error{werr}, delta, <-dict, ingestLog); err != nil {
		return err
	}
	s.logged(len(keys))
	if sorted == nil {
		all := sortOrders(keys, make([]key32, len(keys)))
		sorted = &all
	}
	s.bulkReadSide(ctx, *sorted)
	s.maybeFold(ctx)
	return nil
}

// logEntries is the log as open finds it: the net state of every quad it
// touches (last entry wins) and how many quads its entries hold.
type logEntries struct {
	state map[key32]bool
	ops   int64
	net   int64 // quads added minus quads removed over all entries
	next  uint64
}

// readLog reads the whole log in sequence order. The caller is open,
// before the store is shared.
func (s *Store) readLog(ctx context.Context) (logEntries, error) {
	return s.readLogRange(ctx, []byte{prefixLog}, 1)
}

// readLogRange reads the log from key lower on; next is the sequence
// number it reports when it finds no entry.
func (s *Store) readLogRange(ctx context.Context, lower []byte, next uint64) (logEntries, error) {
	out := logEntries{next: next}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: []byte{prefixLog + 1}})
	if err != nil {
		return out, fmt.Errorf("native: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != 13 {
			return out, errCorruptKey
		}
		if out.state == nil {
			out.state = make(map[key32]bool)
		}
		out.next = binary.BigEndian.Uint64(k[1:]) + 1
		if err := decodeLogValue(it.Value(), func(add bool, q key32) {
			out.state[q] = add
			out.ops++
			if add {
				out.net++
			} else {
				out.net--
			}
		}); err != nil {
			return out, err
		}
		if out.ops&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return out, err
			}
		}
	}
	if err := it.Error(); err != nil {
		return out, fmt.Errorf("native: %w", err)
	}
	return out, nil
}

// replay returns base with the log's net changes applied and counts set
// to the stored counters (which include the log).
func (s *Store) replay(base *memSnapshot, l logEntries) (*memSnapshot, error) {
	var add, remove []kb.Quad
	for k, present := range l.state {
		if present {
			add = append(add, k.quad())
		} else {
			remove = append(remove, k.quad())
		}
	}
	next := base.withDelta(add, remove)
	if next == nil {
		next = base
	}
	if n := int64(len(next.base[0]) - len(next.dels[0]) + len(next.adds[0])); n != s.counts.quads {
		return nil, fmt.Errorf("native: store %s: the delta log and the counters disagree (%d quads against %d)", s.dir, n, s.counts.quads)
	}
	next.counts = s.counts.clone()
	return next, nil
}

// openLog replays a non-empty log at open into the read side, which a
// store with a log always has (reads from Pebble would see only the base):
// over the mapped side files when open found them, else over the SPOG
// index. A writable store that does not fit a positive memory budget
// folds the log and reads from Pebble instead.
func (s *Store) openLog(ctx context.Context, l logEntries, mapped *memSnapshot) (*memSnapshot, error) {
	s.logSeq = l.next
	s.logOps = l.ops
	s.logBase = s.counts.quads - l.net
	if l.ops == 0 {
		return mapped, nil
	}
	base := mapped
	if base != nil && s.side != nil {
		if err := s.loadDictionaryTail(ctx); err != nil {
			return nil, err
		}
	}
	if base == nil {
		if !fitsKey32(s.dict.limit()) {
			return nil, fmt.Errorf("native: store %s: a delta log beside IDs past 32 bits", s.dir)
		}
		keys, err := s.readKeys(ctx)
		if err != nil {
			return nil, err
		}
		if keys == nil {
			return nil, fmt.Errorf("native: store %s: a delta log beside IDs past 32 bits", s.dir)
		}
		c := newCounters()
		base = &memSnapshot{counts: &c}
		if len(keys) > 0 {
			base = base.withSorted(sortOrders(keys, make([]key32, len(keys))))
		}
	}
	snap, err := s.replay(base, l)
	if err != nil {
		return nil, err
	}
	s.mem.Store(snap)
	if !s.readOnly && s.budget > 0 && !s.fitsBudget(s.counts.quads) {
		if err := s.foldLog(ctx); err != nil {
			return nil, err
		}
		s.mem.Store(nil)
	}
	return s.mem.Load(), nil
}

// loadDictionaryTail reads the terms stored since the mapped dictionary
// was written (the delta log's, IDs from its limit on) into the in-memory
// dictionary, marked stored: the mapped one answers for the IDs below,
// these for the rest, so that a term missing from both is new. It is
// called by open, before the store is shared.
func (s *Store) loadDictionaryTail(ctx context.Context) error {
	from := kb.ID(len(s.side.off) - 1)
	d := &s.dict
	next := d.base
	if from >= next {
		return nil
	}
	lower := idKey(from)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: []byte{prefixID + 1}})
	if err != nil {
		return fmt.Errorf("native: %w", err)
	}
	defer it.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.init(from)
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()
		if len(key) != 9 {
			return errCorruptKey
		}
		id := kb.ID(binary.BigEndian.Uint64(key[1:]))
		if id < d.limitLocked() || id >= next {
			return errCorruptKey
		}
		if id&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for d.limitLocked() < id {
			d.addHole()
		}
		enc := it.Value()
		d.add(enc, maphash.Bytes(d.seed, enc))
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	for d.limitLocked() < next {
		d.addHole()
	}
	// Every ID below next is stored or a hole, as init(next) would say.
	d.persisted, d.savedFrom, d.savedBits, d.stored = next, next, nil, int64(next-1)
	return nil
}
