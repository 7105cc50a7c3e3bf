package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/perfkb/perfkb/kb"
)

// Options tune a native store. The zero value is a good default.
type Options struct {
	// CacheSize is the size of Pebble's block cache in bytes (default 128 MiB).
	CacheSize int64
	// MemTableSize is the size of one Pebble memtable in bytes (default 64 MiB).
	MemTableSize uint64
	// NoSync makes Apply return before its batch reaches stable storage.
	// Faster, but a crash may lose acknowledged batches (never half of one).
	NoSync bool
	// ReadOnly opens an existing store without write access.
	ReadOnly bool
	// MemoryBudget bounds the memory-resident read side (see readside.go)
	// in bytes: while the quads fit (96 bytes each), reads come from
	// sorted ID arrays in memory instead of Pebble. Zero means
	// DefaultMemoryBudget; negative builds no read side from Pebble (a
	// store with side files still reads them, and keeps them across
	// writes, under DefaultMemoryBudget).
	MemoryBudget int64
}

// Store is perfkb's native store: a dictionary-encoded quad store on Pebble
// implementing kb.Dataset at the ID level. It is safe for any number of
// concurrent readers and writers; writes are serialised internally.
type Store struct {
	db        *pebble.DB
	fs        vfs.FS
	dir       string
	memory    bool
	readOnly  bool
	lock      *pebble.Lock // a read-only open's shared lock (openlock.go)
	forget    func()       // drops a read-write open from writers (openlock.go)
	writeOpts *pebble.WriteOptions
	pebbleOpt *pebble.Options

	closed atomic.Bool
	wmu    ctxMutex // serialises Apply, bulk commits and Close
	// bmu serialises large writes' builds, done outside wmu
	// (largewrite.go).
	bmu    ctxMutex
	tmpSeq atomic.Uint64

	dict  dictionary
	iters iterPool

	cmu    sync.RWMutex
	counts counters

	budget int64                       // read-side budget in bytes; 0: off
	mem    atomic.Pointer[memSnapshot] // the read side, or nil: see readside.go
	// sideOn: side files (sidefile.go) may exist; guarded by wmu.
	sideOn bool
	// side is the mapped dictionary of the side files found at open, or
	// nil. IDs are never reissued and terms never change, so it stays
	// right for the IDs it holds after writes remove the files.
	side *sideDict
	// kinds: which term kinds the dictionary holds (kinds.go).
	kinds kindSummary
	// derived: values built from a predicate's objects (objorder.go).
	derived derivedCache
	// idcols: per-ID columns the query evaluator fills (idcolumns.go).
	idcols idColumns
	// memPending: the read side is to be built by the first read.
	memPending atomic.Bool
	// partial: Pebble holds only the SPOG index (partial.go); the other
	// orders are built before any read goes to Pebble.
	partial atomic.Bool
	// noPartial: every load writes all six indexes (the Cayley backend
	// reads Pebble's indexes directly).
	noPartial bool
	predStats predStatsCache // planner statistics of the read side
	// Group commit (write.go): gmu guards queue, the Apply calls waiting
	// for the next commit, and leading, whether a leader is committing.
	gmu     sync.Mutex
	queue   []*applyReq
	leading bool
	commits atomic.Int64 // Apply batches committed (tests)
	// The delta log (deltalog.go), guarded by wmu: the format version
	// stored, the next entry's sequence number, the quads the entries
	// hold and the quads in the base they apply to.
	format  uint64
	logSeq  uint64
	logOps  int64
	logBase int64
	// logSideOps: the quads of the log that its side file holds
	// (logside.go); guarded by wmu.
	logSideOps int64
}

var _ kb.Dataset = (*Store)(nil)

// Open opens the native store in directory path, creating it if needed.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, errors.New("native: empty store path")
	}
	if !opts.ReadOnly {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("native: %w", err)
		}
	}
	return open(ctx, path, vfs.Default, false, opts)
}

// OpenPebbleMemory returns an empty Pebble-backed native store held in
// memory. It runs the same code as an on-disk store on an in-memory file
// system, without a WAL. OpenMemory is the faster in-memory store.
func OpenPebbleMemory() *Store {
	s, err := open(context.Background(), "", vfs.NewMem(), true, Options{})
	if err != nil {
		// An in-memory file system cannot fail to open an empty store.
		panic(fmt.Sprintf("native: opening in-memory store: %v", err))
	}
	return s
}

func open(ctx context.Context, dir string, fs vfs.FS, memory bool, opts Options) (*Store, error) {
	cacheSize := opts.CacheSize
	if cacheSize <= 0 {
		cacheSize = 128 << 20
	}
	memtable := opts.MemTableSize
	if memtable == 0 {
		memtable = 64 << 20
	}
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref()
	po := &pebble.Options{
		FS:                          fs,
		Cache:                       cache,
		MemTableSize:                memtable,
		MemTableStopWritesThreshold: 4,
		// Writes smaller than the store go to the delta log (deltalog.go)
		// and leave only their new terms' term → ID keys overlapping the
		// base. Compacting L0 after every few such writes rewrote the whole
		// term keyspace each time; sixteen sublevels let it be rewritten
		// once per many writes (a term is read with Get, through bloom
		// filters, so more L0 files cost little).
		L0CompactionThreshold:      16,
		L0StopWritesThreshold:      1000,
		LBaseMaxBytes:              256 << 20,
		CompactionConcurrencyRange: func() (int, int) { return 1, 2 },
		DisableWAL:                 memory,
		ReadOnly:                   opts.ReadOnly,
		FormatMajorVersion:         pebble.FormatNewest,
		Logger:                     quietLogger{},
		EventListener:              &pebble.EventListener{BackgroundError: backgroundError},
	}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	po.EnsureDefaults()
	if !memory && !opts.ReadOnly {
		// Temporary sstables of a bulk load interrupted by a crash.
		if stale, err := filepath.Glob(filepath.Join(dir, "bulk-*.sst.tmp")); err == nil {
			for _, f := range stale {
				_ = os.Remove(f)
			}
		}
	}
	var lock *pebble.Lock
	if !memory && opts.ReadOnly && fs == vfs.Default {
		var err error
		if lock, err = lockShared(dir); err != nil {
			return nil, lockError(dir, err)
		}
		po.Lock = lock
	}
	forget := func() {}
	if !memory && !opts.ReadOnly && fs == vfs.Default {
		forget = addWriter(dir)
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		closeLock(lock)
		forget()
		return nil, lockError(dir, err)
	}
	s := &Store{
		db:        db,
		fs:        fs,
		dir:       dir,
		memory:    memory,
		readOnly:  opts.ReadOnly,
		pebbleOpt: po,
		writeOpts: pebble.Sync,
		lock:      lock,
		forget:    forget,
	}
	if opts.NoSync || memory {
		s.writeOpts = pebble.NoSync
	}
	if err := s.load(ctx); err != nil {
		db.Close()
		closeLock(lock)
		forget()
		return nil, err
	}
	if !memory {
		// OpenPebbleMemory exists to run the Pebble code; keep it there.
		s.budget = opts.memBudget()
	}
	if !memory && !opts.ReadOnly {
		// Side files of a bulk load interrupted before its ingest.
		_ = removeSide(dir, true)
	}
	var (
		log    logEntries
		mapped *memSnapshot
		fast   bool
	)
	if ls := s.mapLogSide(); ls != nil {
		mapped, log, fast, err = s.openWithLogSide(ctx, ls)
	}
	if !fast && err == nil {
		log, err = s.readLog(ctx)
	}
	if err == nil {
		if !fast {
			mapped = s.mapSide(s.counts.quads - log.net)
		}
		if mapped != nil {
			s.mem.Store(mapped)
			if s.budget <= 0 && !opts.ReadOnly {
				// Opened without a read side of its own (the CLI), the
				// store still reads its side files; its writes go to the
				// delta log as a server's do instead of dropping those
				// files, or one small write (an ontology upgrade, a rule
				// run) would send every later open back to Pebble.
				s.budget = DefaultMemoryBudget
			}
		}
		if mapped, err = s.openLog(ctx, log, mapped); err == nil {
			err = s.loadDictionary(ctx)
			s.memPending.Store(s.budget > 0 && mapped == nil && s.mem.Load() == nil)
		}
	}
	if err != nil {
		s.invalidateIters(true)
		db.Close()
		closeLock(lock)
		forget()
		return nil, err
	}
	return s, nil
}

// load checks the format version, finds the next free term ID and reads the
// counters.
func (s *Store) load(ctx context.Context) error {
	v, closer, err := s.db.Get(metaVersionKey)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		s.format = formatVersion
		if !s.readOnly {
			var buf [binary.MaxVarintLen64]byte
			n := binary.PutUvarint(buf[:], formatVersion)
			if err := s.db.Set(metaVersionKey, buf[:n], s.writeOpts); err != nil {
				return fmt.Errorf("native: %w", err)
			}
		}
	case err != nil:
		return fmt.Errorf("native: %w", err)
	default:
		got, n := binary.Uvarint(v)
		closer.Close()
		if n <= 0 || (got != formatVersion && got != formatVersionLog && got != formatVersionPartial) {
			return fmt.Errorf("native: store %s has format version %d, want %d to %d (a newer perfkb wrote it)", s.dir, got, formatVersion, formatVersionPartial)
		}
		s.format = got
		if got == formatVersionPartial {
			// Also past formatVersionLog: a delta log entry leaves the
			// version as it is.
			s.partial.Store(true)
			s.format = formatVersionLog
		}
	}

	// Next free ID: one past the largest stored ID.
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixID}, UpperBound: []byte{prefixID + 1}})
	if err != nil {
		return fmt.Errorf("native: %w", err)
	}
	next := kb.ID(1)
	if it.Last() {
		next = kb.ID(binary.BigEndian.Uint64(it.Key()[1:])) + 1
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	s.dict.init(next)

	s.counts = newCounters()
	it, err = s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixCounter}, UpperBound: []byte{prefixCounter + 1}})
	if err != nil {
		return fmt.Errorf("native: %w", err)
	}
	for it.First(); it.Valid(); it.Next() {
		p, g, err := decodeCounterKey(it.Key())
		if err != nil {
			it.Close()
			return err
		}
		n, w := binary.Uvarint(it.Value())
		if w <= 0 {
			it.Close()
			return errCorruptKey
		}
		s.counts.add(p, g, int64(n))
	}
	return it.Close()
}

// Close flushes the dictionary and closes the store. Iterators still open
// must be closed first.
func (s *Store) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	// Nothing to flush: every stored quad's terms were written with it
	// (dictsave.go), and unreferenced terms are meant to be dropped.
	var err error
	s.invalidateIters(true)
	s.writeLogSide(s.mem.Load())
	// Best effort: a column not kept costs the next process its values.
	s.keepColumns()
	s.mem.Store(nil)
	if cerr := s.db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("native: %w", cerr)
	}
	if s.lock != nil {
		if cerr := s.lock.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("native: %w", cerr)
		}
	}
	if s.forget != nil {
		s.forget()
	}
	return err
}

// Path returns the directory of an on-disk store ("" in memory).
func (s *Store) Path() string { return s.dir }

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return kb.ErrClosed
	}
	return nil
}

// counters are the exact quad counts kept for the planner. Only the
// (predicate, graph) counts are stored; the others are derived on load.
type counters struct {
	quads int64
	byPG  map[[2]kb.ID]int64
	byP   map[kb.ID]int64
	byG   map[kb.ID]int64
}

func newCounters() counters {
	return counters{byPG: make(map[[2]kb.ID]int64), byP: make(map[kb.ID]int64), byG: make(map[kb.ID]int64)}
}

func (c *counters) add(p, g kb.ID, n int64) {
	c.quads += n
	addOrDelete(c.byPG, [2]kb.ID{p, g}, n)
	addOrDelete(c.byP, p, n)
	addOrDelete(c.byG, g, n)
}

func addOrDelete[K comparable](m map[K]int64, k K, n int64) {
	if v := m[k] + n; v != 0 {
		m[k] = v
	} else {
		delete(m, k)
	}
}

// quietLogger drops Pebble's informational messages and keeps errors on
// stderr.
type quietLogger struct{}

func (quietLogger) Infof(format string, args ...interface{}) {}
func (quietLogger) Errorf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "native: pebble: "+format+"\n", args...)
}
func (quietLogger) Fatalf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "native: pebble: "+format+"\n", args...)
	os.Exit(3)
}

// tempPath returns a fresh path for a temporary sstable.
func (s *Store) tempPath() string {
	name := fmt.Sprintf("bulk-%d.sst.tmp", s.tmpSeq.Add(1))
	if s.dir == "" {
		return name
	}
	return filepath.Join(s.dir, name)
}

var _ io.Closer = (*Store)(nil)
