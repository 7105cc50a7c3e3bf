package native

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"
)

// The log's side file (readlog): the delta log's net changes as the read
// side holds them over the mapped side files (memSnapshot.adds and .dels,
// every order), written by Close when the log has grown by logSideMin
// quads since the file was last written. Without it every open decodes,
// sorts and merges the whole log again: 0.1 CPU-s for the 100k quads a
// rule run leaves on a 200k-quad store, more than a one-graph retraction
// costs. Open maps the file and replays only the entries written after
// it.
//
// The file holds the entries below its sequence number over the side
// files of its build. While those side files stand the log only grows (a
// fold or a rewrite removes the log and writes side files of a new build
// or none), so a file whose build differs from readside-0's is ignored
// and removed. It is written under a temporary name, synced and renamed,
// so a crash leaves the old file, the new one or none.

const (
	logSideMagic = "PKBSLOG1"
	// The header: magic, endian mark, build, next entry, quads logged, net
	// additions, then the lengths of the six adds and six dels arrays.
	logSideHeader = 64 + 2*numOrders*8
)

// logSideMin is the growth of the log (quads) past what the file holds
// that makes Close write it again. A variable for tests.
var logSideMin int64 = 1 << 14

// logSideName is the file's name (tmp: while written).
func logSideName(tmp bool) string {
	if tmp {
		return "readlog.tmp"
	}
	return "readlog"
}

// logSide is a mapped log side file.
type logSide struct {
	b          []byte
	build      uint64
	next       uint64 // the first log entry it does not hold
	ops, net   int64
	adds, dels [numOrders][]key32
}

// sideBuildOnDisk returns the build number of the side files in dir
// (readside-0's header), or 0.
func sideBuildOnDisk(dir string) uint64 {
	f, err := os.Open(filepath.Join(dir, sideName(0, false)))
	if err != nil {
		return 0
	}
	defer f.Close()
	var h [sideHeaderSize]byte
	if _, err := f.ReadAt(h[:], 0); err != nil || string(h[:8]) != sideMagic ||
		binary.NativeEndian.Uint32(h[8:]) != sideEndian {
		return 0
	}
	return binary.NativeEndian.Uint64(h[16:])
}

// mapLogSide maps the log side file when it belongs to the side files on
// disk; nil otherwise (and a stale file is removed from a writable
// store). It is called by open, before the store is shared.
func (s *Store) mapLogSide() *logSide {
	if s.memory {
		return nil
	}
	path := filepath.Join(s.dir, logSideName(false))
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	b, err := mapFile(path)
	if err == nil {
		if ls := parseLogSide(b); ls != nil && ls.build == sideBuildOnDisk(s.dir) {
			return ls
		}
		unmapBytes(b)
	}
	if !s.readOnly {
		_ = os.Remove(path)
	}
	return nil
}

// parseLogSide checks a mapped file's header and sizes and returns its
// arrays, or nil.
func parseLogSide(b []byte) *logSide {
	if len(b) < logSideHeader || string(b[:8]) != logSideMagic || binary.NativeEndian.Uint32(b[8:]) != sideEndian {
		return nil
	}
	ls := &logSide{
		b:     b,
		build: binary.NativeEndian.Uint64(b[16:]),
		next:  binary.NativeEndian.Uint64(b[24:]),
		ops:   int64(binary.NativeEndian.Uint64(b[32:])),
		net:   int64(binary.NativeEndian.Uint64(b[40:])),
	}
	at := uint64(logSideHeader)
	for i := 0; i < 2*numOrders; i++ {
		n := binary.NativeEndian.Uint64(b[64+8*i:])
		if n > uint64(len(b)) || at+n*16 > uint64(len(b)) {
			return nil
		}
		var keys []key32
		if n > 0 {
			keys = unsafe.Slice((*key32)(unsafe.Pointer(&b[at])), n)
		}
		if i < numOrders {
			ls.adds[i] = keys
		} else {
			ls.dels[i-numOrders] = keys
		}
		at += n * 16
	}
	if ls.build == 0 || ls.next == 0 || at != uint64(len(b)) {
		return nil
	}
	return ls
}

// openWithLogSide is open's path for a store with a log side file: it
// reads the log entries after the file, maps the side files and lays the
// file's arrays over them as the delta. ok is false when the side files
// do not take the file (nothing is changed then, and open reads the
// whole log).
func (s *Store) openWithLogSide(ctx context.Context, ls *logSide) (mapped *memSnapshot, l logEntries, ok bool, err error) {
	tail, err := s.readLogFrom(ctx, ls.next)
	if err != nil {
		unmapBytes(ls.b)
		return nil, l, false, err
	}
	l = logEntries{state: tail.state, ops: ls.ops + tail.ops, net: ls.net + tail.net, next: max(ls.next, tail.next)}
	s.sideOn = true
	snap, serr := s.mapSideFiles(s.counts.quads - l.net)
	if serr != nil || snap == nil || snap.pin.build != ls.build {
		s.sideOn = false
		if snap != nil {
			s.side = nil
		}
		unmapBytes(ls.b)
		if !s.readOnly {
			_ = os.Remove(filepath.Join(s.dir, logSideName(false)))
		}
		return nil, logEntries{}, false, nil
	}
	snap.adds, snap.dels = ls.adds, ls.dels
	keepMapped(snap.pin, ls.b)
	s.logSideOps = ls.ops
	return snap, l, true, nil
}

// readLogFrom reads the log entries from seq on, as readLog reads them
// all.
func (s *Store) readLogFrom(ctx context.Context, seq uint64) (logEntries, error) {
	return s.readLogRange(ctx, logKey(seq, 0), seq)
}

// writeLogSide writes the log side file for the read side m when the log
// has grown by logSideMin quads past the file. Errors only cost the next
// open its replay, so they are dropped. The caller holds wmu (Close).
func (s *Store) writeLogSide(m *memSnapshot) {
	if s.memory || s.readOnly || !s.sideOn || m == nil || m.pin == nil || s.logOps == 0 ||
		s.logOps-s.logSideOps < logSideMin || m.pin.build == 0 || m.pin.build != sideBuildOnDisk(s.dir) {
		return
	}
	var base [numOrders][]key32
	same := true // m's base is the mapped one: its delta is the file's
	for k := 0; k < numOrders; k++ {
		b := m.pin.maps[k]
		if len(b) < sideHeaderSize {
			return
		}
		if n := binary.NativeEndian.Uint64(b[24:]); n > 0 {
			base[k] = unsafe.Slice((*key32)(unsafe.Pointer(&b[sideHeaderSize])), n)
		}
		same = same && len(m.base[k]) == len(base[k]) && (len(base[k]) == 0 || &m.base[k][0] == &base[k][0])
	}
	adds, dels := m.adds, m.dels
	if !same {
		// The read side folded its delta into a base of its own: walk
		// it, merged with its delta, beside the mapped base, every order
		// on its own (a walk, not a sort of the diff).
		parallelOrders(func(k int, _ []key32) {
			adds[k], dels[k] = diffDelta(m.base[k], m.adds[k], m.dels[k], base[k])
		}, 0)
	}
	if err := writeLogSideFile(s.dir, m.pin.build, s.logSeq, s.logOps, s.counts.quads-int64(len(base[0])), &adds, &dels); err != nil {
		_ = os.Remove(filepath.Join(s.dir, logSideName(true)))
		_ = os.Remove(filepath.Join(s.dir, logSideName(false)))
		return
	}
	s.logSideOps = s.logOps
}

// diffDelta returns the keys of now (sorted keys nb with the sorted keys
// na added and the subset nd of nb removed) absent from base, and those of
// base absent from now, both sorted, without building now.
func diffDelta(nb, na, nd, base []key32) (adds, dels []key32) {
	// Sized for the usual case, a read side that grew past the base, so
	// that appending copies nothing.
	adds = make([]key32, 0, max(len(nb)+len(na)-len(nd)-len(base), 0)+len(nd)+256)
	dels = make([]key32, 0, len(nd)+256)
	i, j, r, b := 0, 0, 0, 0
	for {
		for i < len(nb) && r < len(nd) && !lessKey(nb[i], nd[r]) {
			if nb[i] == nd[r] {
				i++
			}
			r++
		}
		var k key32
		switch {
		case i < len(nb) && (j >= len(na) || lessKey(nb[i], na[j])):
			k = nb[i]
			i++
		case j < len(na):
			k = na[j]
			j++
		default:
			return adds, append(dels, base[b:]...)
		}
		for b < len(base) && lessKey(base[b], k) {
			dels = append(dels, base[b])
			b++
		}
		if b < len(base) && base[b] == k {
			b++
		} else {
			adds = append(adds, k)
		}
	}
}

// writeLogSideFile writes the file under its temporary name, syncs it and
// renames it into place.
func writeLogSideFile(dir string, build, next uint64, ops, net int64, adds, dels *[numOrders][]key32) (err error) {
	tmp := filepath.Join(dir, logSideName(true))
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("native: log side file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("native: log side file: %w", cerr)
		}
		if err == nil {
			err = os.Rename(tmp, filepath.Join(dir, logSideName(false)))
		}
		if err == nil {
			err = syncDir(dir)
		}
	}()
	var h [logSideHeader]byte
	copy(h[:8], logSideMagic)
	binary.NativeEndian.PutUint32(h[8:], sideEndian)
	binary.NativeEndian.PutUint64(h[16:], build)
	binary.NativeEndian.PutUint64(h[24:], next)
	binary.NativeEndian.PutUint64(h[32:], uint64(ops))
	binary.NativeEndian.PutUint64(h[40:], uint64(net))
	for k := 0; k < numOrders; k++ {
		binary.NativeEndian.PutUint64(h[64+8*k:], uint64(len(adds[k])))
		binary.NativeEndian.PutUint64(h[64+8*(numOrders+k):], uint64(len(dels[k])))
	}
	if _, err := f.Write(h[:]); err != nil {
		return fmt.Errorf("native: log side file: %w", err)
	}
	for _, keys := range append(adds[:], dels[:]...) {
		if len(keys) == 0 {
			continue
		}
		if _, err := f.Write(unsafe.Slice((*byte)(unsafe.Pointer(&keys[0])), len(keys)*16)); err != nil {
			return fmt.Errorf("native: log side file: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("native: log side file: %w", err)
	}
	return nil
}

// removeLogSide removes the log side file's temporary and (unless tmp)
// the file itself: the side files it describes are going.
func removeLogSide(dir string, tmp bool) error {
	names := []string{logSideName(true)}
	if !tmp {
		names = append(names, logSideName(false))
	}
	for _, name := range names {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("native: log side file: %w", err)
		}
	}
	return nil
}
