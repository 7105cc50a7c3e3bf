package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/perfkb/perfkb/kb"
)

var errBulkDone = errors.New("native: bulk load already committed or aborted")

// BeginBulk implements kb.Dataset. Quads are staged in memory; Commit sorts
// them once per index (in parallel), drops duplicates and quads already
// stored, writes one sstable per index plus the counters and new dictionary
// entries, and ingests all of them into Pebble in one atomic step. Nothing
// is visible before Commit, and a crash before it leaves the store as it
// was.
func (s *Store) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if s.readOnly {
		return nil, ErrReadOnly
	}
	return &bulkWriter{s: s}, nil
}

type bulkWriter struct {
	s  *Store
	mu sync.Mutex
	// keys: staged quads while every ID fits in 32 bits, one block per
	// Add, joined at Commit. Add runs on the load's one ordering
	// goroutine, so growing one slice there (copying it again at each
	// doubling) was serial work that no core could share.
	keys [][]key32
	n    int       // quads in keys
	wide []kb.Quad // staged quads once one does not fit
	done bool
}

// Add implements kb.BulkWriter.
func (w *bulkWriter) Add(ctx context.Context, quads []kb.Quad) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errBulkDone
	}
	limit := w.s.dict.limit()
	if err := w.s.checkIDs(quads, limit); err != nil {
		return err
	}
	if w.wide == nil && fitsKey32(limit) {
		if len(quads) > 0 {
			w.keys = append(w.keys, toKey32(make([]key32, 0, len(quads)), quads))
			w.n += len(quads)
		}
		return nil
	}
	if w.wide == nil {
		w.wide = make([]kb.Quad, 0, w.n+len(quads))
		for _, b := range w.keys {
			for _, k := range b {
				w.wide = append(w.wide, k.quad())
			}
		}
		w.keys, w.n = nil, 0
	}
	w.wide = append(w.wide, quads...)
	return nil
}

// Abort implements kb.BulkWriter.
func (w *bulkWriter) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.keys, w.n, w.wide = nil, 0, nil
	return nil
}

// Commit implements kb.BulkWriter.
func (w *bulkWriter) Commit(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errBulkDone
	}
	w.done = true
	blocks, wide := w.keys, w.wide
	keys := make([]key32, 0, w.n)
	for _, b := range blocks {
		keys = append(keys, b...)
	}
	w.keys, w.n, w.wide = nil, 0, nil
	if err := ctx.Err(); err != nil {
		return err
	}
	s := w.s
	if wide == nil {
		_, err := s.ingestLarge(ctx, keys, nil, func(keys []key32) error {
			_, err := s.ingestKeys(ctx, keys, ingestOptions{sideFiles: true, sorted: true})
			return err
		})
		return err
	}
	if err := s.wmu.LockCtx(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.ingestWide(ctx, wide)
}

// ingestOptions choose the extra work of ingestKeys.
type ingestOptions struct {
	// sideFiles: write side files (sidefile.go) when the quads already
	// stored are no more than the new ones. A bulk load does; a large
	// Apply does not, since the next write would remove them again.
	sideFiles bool
	// added: return the quads that were not stored before (SPOG order).
	added bool
	// sorted: the keys are already sorted SPOG, without duplicates.
	sorted bool
}

// ingestKeys writes the staged quads (which it reorders) with one atomic
// ingest, and returns the ones it added when opts.added asks for them. The
// caller holds wmu.
func (s *Store) ingestKeys(ctx context.Context, keys []key32, opts ingestOptions) ([]key32, error) {
	scratch := make([]key32, len(keys))
	if !opts.sorted {
		radixSort32(keys, scratch)
		keys = compactKeys(keys)
	}
	s.cmu.RLock()
	stored := s.counts.quads
	s.cmu.RUnlock()
	mem := s.mem.Load()
	logging := s.logging(mem)
	if stored > 0 {
		var err error
		if logging {
			// The read side holds base and delta log; Pebble's SPOG
			// index only the base.
			keys = mem.dropPresent(keys)
		} else if keys, err = s.dropStoredKeys(keys); err != nil {
			return nil, err
		}
	}
	// A load at least as large as the store rewrites the whole store
	// (rewrite.go), so that every table lands in the bottom level and
	// nothing is compacted after it.
	var spog []key32
	var old [numOrders][]key32
	rewrite := false
	if len(keys) > 0 && stored <= int64(len(keys)) && s.canRewrite() {
		if logging {
			old = mem.merged()
			spog, rewrite = old[0], true
		} else {
			var err error
			if spog, err = s.readKeys(ctx); err != nil {
				return nil, err
			}
			rewrite = spog != nil || stored == 0
		}
	}
	if logging && !rewrite && len(keys) > 0 {
		// Smaller than the store: one delta log entry (deltalog.go).
		var added []key32
		if opts.added {
			added = slices.Clone(keys)
		}
		return added, s.logIngest(ctx, keys)
	}
	// The dictionary tables need only the dictionary: write them while
	// the indexes are sorted (with a rewrite's side files, the
	// dictionary's one too).
	build := sideBuild()
	var dictSide uint64
	if rewrite && opts.sideFiles && !s.memory {
		dictSide = build
	}
	// keys stays as it is until the tables are taken: the goroutine
	// finds the terms to write from it.
	dict := s.startDictionaryTablesOf(func() []kb.ID { return s.dict.unsavedIDs(keyIDs32(keys)) }, rewrite, dictSide)
	var added []key32
	if opts.added {
		added = slices.Clone(keys) // keys goes to the read side below
	}
	delta := make(map[[2]kb.ID]int64)
	var paths [numOrders]string
	var errs [numOrders]error
	var sorted [numOrders][]key32  // copies for the read side
	var firsts [numOrders][]uint32 // with a rewrite, their first indexes
	capture := s.mem.Load() != nil
	// Side files (sidefile.go) of the store as the ingest leaves it, when
	// the quads already stored are no more than the new ones (reading
	// them back costs no more than the load).
	side, sideErrs := false, [numOrders]error{}
	if opts.sideFiles && !s.memory && !s.readOnly && len(keys) > 0 && stored <= int64(len(keys)) && !rewrite {
		var err error
		if spog, err = s.readKeys(ctx); err != nil {
			s.discardDictionaryTables(<-dict)
			return nil, err
		}
		side = spog != nil || stored == 0
	} else if rewrite {
		side = opts.sideFiles && !s.memory
	}
	if len(spog) > 0 && (side || rewrite) && old[0] == nil {
		old = sortOrders(spog, make([]key32, len(spog)))
	}
	// A rewrite with side files whose result fits the read side writes
	// only Pebble's SPOG index (partial.go): the other five orders are in
	// the side files and the read side, and Pebble gets them only if
	// reads ever go to it.
	partial := rewrite && side && s.partialAllowed(int64(len(old[0])+len(keys)))
	if len(keys) > 0 {
		// Every order from SPOG by one counting pass each (mem_sort.go),
		// then the side files and tables of the six orders on goroutines
		// taking the next order as each finishes: two on two cores, so
		// that the dictionary tables' goroutine beside them does not
		// leave a core idle, up to one per order where there are cores
		// for them. Each order has a buffer of its own, handed to the
		// read side as it is.
		byOrder := sortOrders(keys, scratch[:len(keys)])
		countPG(delta, byOrder[4])
		var next atomic.Int32
		var failed atomic.Bool
		var waits []func()
		for range max(2, min(numOrders, runtime.GOMAXPROCS(0)-1)) {
			waits = append(waits, fork(func() {
				for {
					k := int(next.Add(1)) - 1
					if k >= numOrders || failed.Load() {
						return
					}
					if err := ctx.Err(); err != nil {
						errs[k] = err
						return
					}
					buf := byOrder[k]
					if capture && !rewrite {
						sorted[k] = buf
					}
					table := keyUnion{a: buf}
					if side || rewrite {
						all := keyUnion{a: old[k], b: buf}
						var first []uint32
						if side || capture {
							first = all.firstIndex()
						}
						if side {
							sideErrs[k] = writeSideTmp(s.dir, k, build, all, first)
						}
						if rewrite {
							table = all
							if capture {
								// The whole store: the read side's base.
								sorted[k], firsts[k] = all.keys(), first
							}
						}
					}
					if partial && k != 0 {
						continue
					}
					if paths[k], errs[k] = s.writeIndexTable32(k, table); errs[k] != nil {
						failed.Store(true)
					}
				}
			}))
		}
		for _, wait := range waits {
			wait()
		}
	}
	dt := <-dict
	mode := ingestModeOf(rewrite)
	if partial {
		mode = ingestRewritePartial
	}
	err := s.ingestTables(ctx, paths[:], errs[:], delta, dt, mode)
	if err == nil && rewrite {
		s.baseChanged() // the excise removed the delta log
	}
	if side {
		sideDict := func() error {
			if dt.sideDone {
				return dt.sideErr
			}
			return s.writeSideDictTmp(ctx, build)
		}
		if err == nil && errors.Join(sideErrs[:]...) == nil && sideDict() == nil {
			// The load is committed whatever happens here: a failed
			// rename leaves an incomplete set, which open removes.
			if s.commitSide() != nil {
				_ = s.dropSide()
			}
		} else {
			_ = removeSide(s.dir, true)
		}
	}
	if err != nil {
		return nil, err
	}
	if capture && len(keys) > 0 {
		if rewrite {
			s.rewriteReadSide(sorted, firsts)
		} else {
			s.bulkReadSide(ctx, sorted)
		}
	}
	return added, nil
}

// countPG adds to delta the number of keys of each (predicate, graph)
// pair in gpos, keys sorted in GPOS order: one map update per run.
func countPG(delta map[[2]kb.ID]int64, gpos []key32) {
	for i := 0; i < len(gpos); {
		g, p := gpos[i][0], gpos[i][1]
		j := i + 1
		for j < len(gpos) && gpos[j][0] == g && gpos[j][1] == p {
			j++
		}
		delta[[2]kb.ID{kb.ID(p), kb.ID(g)}] += int64(j - i)
		i = j
	}
}

// rewriteReadSide publishes the read side of a store a rewrite has just
// replaced: sorted holds every stored quad in each order and firsts their
// first indexes, so the snapshot is built from them alone instead of
// merging them into the previous one (which held a subset of them).
func (s *Store) rewriteReadSide(sorted [numOrders][]key32, firsts [numOrders][]uint32) {
	if s.partial.Load() && s.budget <= 0 {
		// As open does for a store with side files: reads stay off
		// Pebble, which holds only SPOG (partial.go).
		s.budget = DefaultMemoryBudget
	}
	if !s.fitsBudget(int64(len(sorted[0]))) {
		s.mem.Store(nil)
		return
	}
	s.mem.Store(&memSnapshot{base: sorted, first: firsts, counts: countGPOS(sorted[4])})
}

// ingestWide is ingestKeys for stores whose IDs outgrew 32 bits: the same
// steps on kb.Quad with comparison sorts.
func (s *Store) ingestWide(ctx context.Context, quads []kb.Quad) error {
	// The read side cannot hold these IDs, and without it reads come
	// from Pebble, which must then hold the delta log's quads too.
	if err := s.foldLog(ctx); err != nil {
		return err
	}
	dict := s.startDictionaryTables(s.dict.unsavedIDs(quadIDs(quads)), false, 0)
	permuteSort(quads, 0)
	quads = slices.Compact(quads)
	s.cmu.RLock()
	empty := s.counts.quads == 0
	s.cmu.RUnlock()
	if !empty {
		var err error
		if quads, err = s.dropStored(quads); err != nil {
			s.discardDictionaryTables(<-dict)
			return err
		}
	}
	delta := make(map[[2]kb.ID]int64)
	for _, q := range quads {
		delta[[2]kb.ID{q.P, q.G}]++
	}
	var paths [numOrders]string
	var errs [numOrders]error
	if len(quads) > 0 {
		bufs := [2][]kb.Quad{quads, slices.Clone(quads)}
		var waits []func()
		for half := 0; half < 2; half++ {
			waits = append(waits, fork(func() {
				buf := bufs[half]
				prev := 0
				for k := half * 3; k < half*3+3; k++ {
					if err := ctx.Err(); err != nil {
						errs[k] = err
						return
					}
					repermute(buf, prev, k)
					if k != 0 {
						slices.SortFunc(buf, cmpQuad)
					}
					prev = k
					paths[k], errs[k] = s.writeIndexTable(k, buf)
					if errs[k] != nil {
						return
					}
				}
			}))
		}
		for _, wait := range waits {
			wait()
		}
	}
	if err := s.ingestTables(ctx, paths[:], errs[:], delta, <-dict, ingestAdd); err != nil {
		return err
	}
	if len(quads) > 0 {
		s.dropReadSide() // IDs past 32 bits: the read side cannot hold them
	}
	return nil
}

// sideAdd returns sd's add, or nil when sd is nil.
func sideAdd(sd *sideDictBuilder) func(k, v []byte) error {
	if sd == nil {
		return nil
	}
	return sd.add
}

// dictionaryTables are the sstables of a bulk load's new dictionary
// entries (none in memory, where the dictionary is never stored).
type dictionaryTables struct {
	idPaths   []string // key ranges in order, not overlapping
	termPaths []string // likewise
	ids       []kb.ID  // the terms written, for markSaved
	err       error
	// sideDone: the dictionary's temporary side file was written too,
	// unless sideErr says otherwise.
	sideDone bool
	sideErr  error
}

// startDictionaryTables writes the pending dictionary entries on a
// goroutine of their own, with the stored ones when whole is set (a
// rewrite); the channel yields the tables. With whole and a side-file
// build number other than 0, the goroutine also writes the dictionary's
// temporary side file from the same entries (they are then the whole
// id → term table), so that it is not read back after the ingest.
func (s *Store) startDictionaryTables(ids []kb.ID, whole bool, sideDictBuild uint64) <-chan dictionaryTables {
	return s.startDictionaryTablesOf(func() []kb.ID { return ids }, whole, sideDictBuild)
}

// startDictionaryTablesOf is startDictionaryTables with the IDs to write
// found by ids on the goroutine, so that finding them (a pass over every
// key of a bulk load) does not hold up the caller.
func (s *Store) startDictionaryTablesOf(ids func() []kb.ID, whole bool, sideDictBuild uint64) <-chan dictionaryTables {
	ch := make(chan dictionaryTables, 1)
	if s.memory {
		ch <- dictionaryTables{}
		return ch
	}
	fork(func() {
		var t dictionaryTables
		t.ids = ids()
		var sd *sideDictBuilder
		if whole && sideDictBuild != 0 {
			sd = &sideDictBuilder{}
		}
		t.idPaths, t.termPaths, t.err = s.writeDictionaryTables(t.ids, whole, sd)
		if sd != nil {
			t.sideDone = true
			if t.err == nil {
				t.sideErr = sd.write(s.dir, sideDictBuild)
			}
		}
		ch <- t
	})
	return ch
}

// discardDictionaryTables removes tables that will not be ingested.
func (s *Store) discardDictionaryTables(t dictionaryTables) {
	for _, p := range append(slices.Clone(t.idPaths), t.termPaths...) {
		if p != "" {
			_ = s.fs.Remove(p)
		}
	}
}

// ingestMode says what the tables of ingestTables are.
type ingestMode int

const (
	ingestAdd            ingestMode = iota // index tables to add to the store
	ingestRewrite                          // the whole store, replacing it (rewrite.go)
	ingestLog                              // one delta log entry (deltalog.go)
	ingestRewritePartial                   // ingestRewrite with only the SPOG index (partial.go)
)

// ingestTables adds the counter and dictionary tables to the index tables
// built for a bulk load and ingests all of them at once; it removes the
// temporary files whatever happens. With rewrite, the tables hold the
// whole store and replace it (rewrite.go).
func (s *Store) ingestTables(ctx context.Context, paths []string, errs []error, delta map[[2]kb.ID]int64, dict dictionaryTables, mode ingestMode) error {
	rewrite := mode == ingestRewrite || mode == ingestRewritePartial
	var files []string
	defer func() {
		for _, f := range files {
			_ = s.fs.Remove(f) // ingested files were moved; the rest are garbage
		}
	}()
	var firstErr error
	addFile := func(path string, err error) {
		if path != "" {
			files = append(files, path)
		}
		if firstErr == nil && err != nil {
			firstErr = err
		}
	}
	for k := range paths {
		addFile(paths[k], errs[k])
	}
	for _, p := range dict.idPaths {
		addFile(p, nil)
	}
	addFile("", dict.err)
	for _, p := range dict.termPaths {
		addFile(p, nil)
	}
	if firstErr != nil {
		return firstErr
	}
	addFile(s.writeCounterTable(delta, rewrite))
	if rewrite {
		addFile(s.writeMetaTable(mode == ingestRewritePartial))
	}
	if firstErr != nil {
		return firstErr
	}
	if len(files) == 0 {
		return nil
	}
	if mode != ingestLog {
		// A delta log entry leaves the side files, which describe the
		// base, in place.
		if err := s.dropSide(); err != nil {
			return err
		}
	}
	var err error
	if rewrite {
		_, err = s.db.IngestAndExcise(ctx, files, nil, nil, wholeStore)
	} else {
		err = s.db.Ingest(ctx, files)
	}
	if err != nil {
		return fmt.Errorf("native: ingest: %w", err)
	}
	s.invalidateIters(false)
	if rewrite {
		if mode == ingestRewritePartial {
			// The stored version is past formatVersionLog: a delta log
			// entry must not write that one over it.
			s.format = max(s.format, formatVersionLog)
		}
		s.partial.Store(mode == ingestRewritePartial)
	}
	if !s.memory {
		s.dict.markSaved(dict.ids)
	}
	s.publish(delta)
	return nil
}

// ingestModeOf is ingestRewrite for a rewrite, else ingestAdd.
func ingestModeOf(rewrite bool) ingestMode {
	if rewrite {
		return ingestRewrite
	}
	return ingestAdd
}

// dropStoredKeys removes from keys (sorted SPOG) the quads already stored.
func (s *Store) dropStoredKeys(keys []key32) ([]key32, error) {
	return dropStoredSorted(s, keys, key32.quad)
}

// dropStored removes from quads (sorted SPOG) the ones already stored,
// merging the slice with the SPOG index.
func (s *Store) dropStored(quads []kb.Quad) ([]kb.Quad, error) {
	return dropStoredSorted(s, quads, func(q kb.Quad) kb.Quad { return q })
}

// dropStoredSorted removes from items (sorted SPOG by quadOf) those whose
// quad is already stored, in one forward merge with the SPOG index; it
// filters in place and returns the kept prefix.
func dropStoredSorted[T any](s *Store, items []T, quadOf func(T) kb.Quad) ([]T, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixIndex}, UpperBound: []byte{prefixIndex + 1}})
	if err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	defer it.Close()
	out := items[:0]
	key := make([]byte, 0, 40)
	exhausted := false
	for i, item := range items {
		if exhausted {
			out = append(out, items[i:]...)
			break
		}
		key = appendIndexKey(key[:0], 0, quadOf(item))
		if it.Valid() && bytes.Compare(it.Key(), key) >= 0 || it.SeekGE(key) {
			if bytes.Equal(it.Key(), key) {
				continue
			}
		} else {
			exhausted = true
		}
		out = append(out, item)
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	return out, nil
}

// cmpQuad orders quads lexicographically by (S, P, O, G) as stored, that
// is by the fields of a permuted quad.
func cmpQuad(a, b kb.Quad) int {
	switch {
	case a.S != b.S:
		return cmpID(a.S, b.S)
	case a.P != b.P:
		return cmpID(a.P, b.P)
	case a.O != b.O:
		return cmpID(a.O, b.O)
	}
	return cmpID(a.G, b.G)
}

func cmpID(a, b kb.ID) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// permuteSort sorts quads in the key order of index k (leaving them in
// their normal form).
func permuteSort(quads []kb.Quad, k int) {
	if k == 0 {
		slices.SortFunc(quads, cmpQuad)
		return
	}
	repermute(quads, 0, k)
	slices.SortFunc(quads, cmpQuad)
	repermute(quads, k, 0)
}

// repermute rewrites quads stored permuted for index from into the
// permutation of index to (index 0 is the identity).
func repermute(quads []kb.Quad, from, to int) {
	if from == to {
		return
	}
	of, ot := &orders[from], &orders[to]
	for i := range quads {
		src := [4]kb.ID{quads[i].S, quads[i].P, quads[i].O, quads[i].G}
		var plain [4]kb.ID
		for j, pos := range of {
			plain[pos] = src[j]
		}
		quads[i] = kb.Quad{S: plain[ot[0]], P: plain[ot[1]], O: plain[ot[2]], G: plain[ot[3]]}
	}
}

// newTable creates a temporary sstable writer.
func (s *Store) newTable(filter bool) (*sstable.Writer, string, error) {
	path := s.tempPath()
	f, err := s.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, "", fmt.Errorf("native: %w", err)
	}
	opts := s.pebbleOpt.MakeWriterOptions(6, bulkTableFormat(s.db.TableFormat()))
	if !filter {
		opts.FilterPolicy = nil
	}
	if s.memory {
		opts.Compression = sstable.NoCompression
	}
	return sstable.NewWriter(objstorageprovider.NewFileWritable(f), opts), path, nil
}

// bulkTableFormat is the sstable format of a bulk load's tables: Pebble's
// plain row-block format (TableFormatPebblev2) where the store's format
// allows it. Its writer takes about half the columnar format's CPU time per
// key (no per-key block size estimates, no value-block decisions), and its
// snappy-compressed blocks of sorted, prefix-compressed keys are smaller
// (an index key has no value for value blocks or columns to help with).
// Pebble reads every format it ingests through the same iterators and
// Gets, and compactions rewrite tables in the store's own format.
func bulkTableFormat(store sstable.TableFormat) sstable.TableFormat {
	return min(store, sstable.TableFormatPebblev2)
}

// writeIndexTable writes the sorted, permuted quads as the sstable of index
// k. No index table carries a bloom filter: the store reads indexes with
// iterators, which do not consult one (only Get, on dictionary keys, does).
func (s *Store) writeIndexTable(k int, permuted []kb.Quad) (string, error) {
	w, path, err := s.newTable(false)
	if err != nil {
		return "", err
	}
	key := make([]byte, 0, 40)
	prefix := prefixIndex + byte(k)
	for _, q := range permuted {
		key = append(key[:0], prefix)
		key = appendID(key, q.S)
		key = appendID(key, q.P)
		key = appendID(key, q.O)
		key = appendID(key, q.G)
		if err := w.Set(key, nil); err != nil {
			w.Close()
			return path, fmt.Errorf("native: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return path, fmt.Errorf("native: %w", err)
	}
	return path, nil
}

// writeIndexTable32 writes sorted keys, permuted for index k, as the
// sstable of index k.
func (s *Store) writeIndexTable32(k int, keys keyUnion) (string, error) {
	w, path, err := s.newTable(false)
	if err != nil {
		return "", err
	}
	key := make([]byte, 0, 24)
	prefix := prefixIndex + byte(k)
	err = keys.runs(func(run []key32) error {
		for _, q := range run {
			key = append(key[:0], prefix)
			key = appendID(key, kb.ID(q[0]))
			key = appendID(key, kb.ID(q[1]))
			key = appendID(key, kb.ID(q[2]))
			key = appendID(key, kb.ID(q[3]))
			if err := w.Set(key, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		w.Close()
		return path, fmt.Errorf("native: %w", err)
	}
	if err := w.Close(); err != nil {
		return path, fmt.Errorf("native: %w", err)
	}
	return path, nil
}

// writeCounterTable writes the new absolute counts of the (predicate,
// graph) pairs delta changes, or of every pair when whole is set.
func (s *Store) writeCounterTable(delta map[[2]kb.ID]int64, whole bool) (string, error) {
	type kv struct{ k, v []byte }
	rows := make([]kv, 0, len(delta))
	s.cmu.RLock()
	for pg, n := range delta {
		v := binary.AppendUvarint(nil, uint64(s.counts.byPG[pg]+n))
		rows = append(rows, kv{counterKey(pg[0], pg[1]), v})
	}
	if whole {
		for pg, n := range s.counts.byPG {
			if _, ok := delta[pg]; !ok && n != 0 {
				rows = append(rows, kv{counterKey(pg[0], pg[1]), binary.AppendUvarint(nil, uint64(n))})
			}
		}
	}
	s.cmu.RUnlock()
	if len(rows) == 0 {
		return "", nil
	}
	slices.SortFunc(rows, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	w, path, err := s.newTable(false)
	if err != nil {
		return "", err
	}
	for _, r := range rows {
		if err := w.Set(r.k, r.v); err != nil {
			w.Close()
			return path, fmt.Errorf("native: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return path, fmt.Errorf("native: %w", err)
	}
	return path, nil
}

// writeDictionaryTables writes the dictionary entries of ids (ascending;
// see dictsave.go) as two sstables (ID -> term, term -> ID), merged with
// the stored entries when whole is set. It reads the entries in place:
// only a 4-byte index per entry is allocated, to sort them by encoding.
func (s *Store) writeDictionaryTables(ids []kb.ID, whole bool, side *sideDictBuilder) (idPaths, termPaths []string, err error) {
	if len(ids) == 0 && !whole {
		return nil, nil, nil
	}
	_, _, view := s.dict.pendingView()
	// The term tables (a sort by encoding, then the tables) on goroutines
	// of their own beside the ID table: they are the longest part of a
	// load's commit once Pebble gets only the SPOG index (partial.go).
	termDone := make(chan error, 1)
	fork(func() {
		var err error
		termPaths, err = s.writeTermTables(ids, whole, &view)
		termDone <- err
	})
	idPaths, err = s.writeIDTables(ids, whole, &view, side)
	err = errors.Join(err, <-termDone)
	return idPaths, termPaths, err
}

// writeIDTables writes the ID → term entries of ids (ascending; with
// whole, merged with the stored ones) as tables of ID ranges that do not
// overlap, in order, feeding side (when not nil) every entry written in ID
// order. A large table is cut into contiguous runs of ids, each written on
// a goroutine of its own with a side builder of its own, appended to side
// in order at the end.
func (s *Store) writeIDTables(ids []kb.ID, whole bool, view *dictView, side *sideDictBuilder) ([]string, error) {
	parts := min(runtime.GOMAXPROCS(0), 16, len(ids)/termTablePart)
	if parts < 2 {
		path, err := s.writeIDRange(ids, nil, nil, whole, view, sideAdd(side))
		if path == "" {
			return nil, err
		}
		return []string{path}, err
	}
	idKeyOf := func(id kb.ID) []byte {
		k := make([]byte, 9)
		k[0] = prefixID
		binary.BigEndian.PutUint64(k[1:], uint64(id))
		return k
	}
	paths := make([]string, parts)
	errs := make([]error, parts)
	sides := make([]*sideDictBuilder, parts)
	var waits []func()
	for p := 0; p < parts; p++ {
		from, to := p*len(ids)/parts, (p+1)*len(ids)/parts
		var lower, upper []byte
		var base kb.ID
		if p > 0 {
			base = ids[from]
			lower = idKeyOf(base)
		}
		if p < parts-1 {
			upper = idKeyOf(ids[to])
		}
		if side != nil {
			sides[p] = &sideDictBuilder{base: uint64(base)}
		}
		waits = append(waits, fork(func() {
			paths[p], errs[p] = s.writeIDRange(ids[from:to], lower, upper, whole, view, sideAdd(sides[p]))
		}))
	}
	for _, wait := range waits {
		wait()
	}
	if err := errors.Join(errs...); err != nil {
		return slices.DeleteFunc(paths, func(p string) bool { return p == "" }), err
	}
	if side != nil {
		for _, part := range sides {
			if err := side.appendPart(part); err != nil {
				return slices.DeleteFunc(paths, func(p string) bool { return p == "" }), err
			}
		}
	}
	return slices.DeleteFunc(paths, func(p string) bool { return p == "" }), nil
}

// writeIDRange writes the ID → term entries of ids, with whole merged with
// the stored ones in [lower, upper) (nil: the whole prefix), as one table.
func (s *Store) writeIDRange(ids []kb.ID, lower, upper []byte, whole bool, view *dictView, each func(k, v []byte) error) (string, error) {
	if lower == nil {
		lower = []byte{prefixID}
	}
	if upper == nil {
		upper = []byte{prefixID + 1}
	}
	idk := make([]byte, 9)
	idk[0] = prefixID
	i := 0
	return s.writeMergedRange(prefixID, lower, upper, whole, func() ([]byte, []byte, bool) {
		if i == len(ids) {
			return nil, nil, false
		}
		binary.BigEndian.PutUint64(idk[1:], uint64(ids[i]))
		v := view.encoded(ids[i])
		i++
		return idk, v, true
	}, each)
}

// termTablePart is the fewest terms worth a term table of their own.
// A variable so that tests cut small loads into several tables.
var termTablePart = 1 << 16

// writeTermTables writes the term → ID entries of ids (with whole, merged
// with the stored ones) as tables of key ranges that do not overlap, in
// order. A 16-core load spent its last 1.5 s on one goroutine sorting and
// writing this table, so a large one is cut at splitters drawn from an
// even sample of its keys, and each range is gathered, sorted and written
// on a goroutine of its own.
func (s *Store) writeTermTables(ids []kb.ID, whole bool, view *dictView) ([]string, error) {
	key := func(i uint32) []byte { return view.encoded(ids[i]) }
	parts := min(runtime.GOMAXPROCS(0), 16, len(ids)/termTablePart)
	if parts < 2 {
		order := make([]uint32, len(ids))
		for i := range order {
			order[i] = uint32(i)
		}
		path, err := s.writeTermRange(ids, order, key, nil, nil, whole)
		if path == "" {
			return nil, err
		}
		return []string{path}, err
	}
	// Splitters: every part-th key of a sorted even sample. Encodings are
	// unique, so equal splitters (a sample of few distinct keys) only
	// leave some ranges empty.
	const perPart = 64
	sample := make([][]byte, 0, parts*perPart)
	step := max(1, len(ids)/(parts*perPart))
	for i := 0; i < len(ids); i += step {
		sample = append(sample, key(uint32(i)))
	}
	slices.SortFunc(sample, bytes.Compare)
	splitters := make([][]byte, parts+1) // nil at both ends: unbounded
	for p := 1; p < parts; p++ {
		splitters[p] = sample[p*len(sample)/parts]
	}
	paths := make([]string, parts)
	errs := make([]error, parts)
	var waits []func()
	for p := 0; p < parts; p++ {
		waits = append(waits, fork(func() {
			lo, hi := splitters[p], splitters[p+1]
			var order []uint32
			for i := range ids {
				k := key(uint32(i))
				if (lo == nil || bytes.Compare(k, lo) >= 0) && (hi == nil || bytes.Compare(k, hi) < 0) {
					order = append(order, uint32(i))
				}
			}
			paths[p], errs[p] = s.writeTermRange(ids, order, key, lo, hi, whole)
		}))
	}
	for _, wait := range waits {
		wait()
	}
	var out []string
	for _, p := range paths {
		if p != "" {
			out = append(out, p)
		}
	}
	return out, errors.Join(errs...)
}

// writeTermRange sorts order (indexes into ids) by encoding and writes
// their term → ID entries, with whole merged with the stored ones in
// [lo, hi) (nil: unbounded), as one table.
func (s *Store) writeTermRange(ids []kb.ID, order []uint32, key func(uint32) []byte, lo, hi []byte, whole bool) (string, error) {
	sortByBytes(order, key)
	lower, upper := []byte{prefixTerm}, []byte{prefixTerm + 1}
	if lo != nil {
		lower = append([]byte{prefixTerm}, lo...)
	}
	if hi != nil {
		upper = append([]byte{prefixTerm}, hi...)
	}
	k := make([]byte, 0, 64)
	var idv [8]byte
	j := 0
	return s.writeMergedRange(prefixTerm, lower, upper, whole, func() ([]byte, []byte, bool) {
		if j == len(order) {
			return nil, nil, false
		}
		id := ids[order[j]]
		j++
		k = append(append(k[:0], prefixTerm), key(order[j-1])...)
		binary.BigEndian.PutUint64(idv[:], uint64(id))
		return k, idv[:], true
	}, nil)
}
