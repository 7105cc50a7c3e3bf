package native

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// Side files: the read side (the six sorted ID-tuple arrays and their
// first-field indexes, memSnapshot.base and .first) written beside
// Pebble's files, one file per order, so an open maps them instead of
// rebuilding them from a scan of the SPOG index and five in-memory sorts
// (15 s and a heap the size of the store at 10M quads). A command that
// opens the store for one query then reads the same arrays as a server,
// and pages only what the query touches.
//
// The files are derived state: they describe the six indexes (the base),
// and are valid only while no write has changed those since they were
// written; writes to the delta log (deltalog.go) do not, and open replays
// the log over the mapped files. Two rules keep that true across crashes:
//
//   - every write that changes the indexes (Apply's batch, a bulk
//     ingest, a fold of the log) first removes the files and syncs the
//     directory, then commits;
//   - a bulk load or a fold writes the files of the store as it will be
//     under temporary names, and renames them into place (then syncs the
//     directory) only after its ingest has committed.
//
// A crash between the two steps of either leaves no side files (or some
// of the six, which open rejects and removes), and the next read builds
// the read side from Pebble as before. The six files share a random
// build number and the quad count, which open checks against each other
// and against Pebble's counters less the log's net additions.

const (
	sideMagic      = "PKBSIDE1"
	sideHeaderSize = 64
	sideEndian     = 0x01020304
)

// sideDictFile is the index of the side file of the dictionary; files
// 0..numOrders-1 are the orders'.
const sideDictFile = numOrders

// sideName is side file k's name (tmp: its name while written).
func sideName(k int, tmp bool) string {
	if tmp {
		return fmt.Sprintf("readside-%d.tmp", k)
	}
	return fmt.Sprintf("readside-%d", k)
}

// sideBuild returns a fresh build number for one set of side files.
func sideBuild() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}

// writeSideTmp writes order k's keys and first index to its temporary
// file, synced.
func writeSideTmp(dir string, k int, build uint64, keys keyUnion, first []uint32) (err error) {
	f, err := os.Create(filepath.Join(dir, sideName(k, true)))
	if err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("native: side file: %w", cerr)
		}
	}()
	var h [sideHeaderSize]byte
	copy(h[:8], sideMagic)
	binary.NativeEndian.PutUint32(h[8:], sideEndian)
	binary.NativeEndian.PutUint32(h[12:], uint32(k))
	binary.NativeEndian.PutUint64(h[16:], build)
	binary.NativeEndian.PutUint64(h[24:], uint64(keys.len()))
	binary.NativeEndian.PutUint64(h[32:], uint64(len(first)))
	if _, err := f.Write(h[:]); err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	if err := keys.runs(func(run []key32) error {
		_, err := f.Write(unsafe.Slice((*byte)(unsafe.Pointer(&run[0])), len(run)*16))
		return err
	}); err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	if len(first) > 0 {
		if _, err := f.Write(unsafe.Slice((*byte)(unsafe.Pointer(&first[0])), len(first)*4)); err != nil {
			return fmt.Errorf("native: side file: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	return nil
}

// commitSide renames the temporary side files into place. The caller
// holds wmu, after the write they describe has committed.
func (s *Store) commitSide() error {
	for k := 0; k <= sideDictFile; k++ {
		if err := os.Rename(filepath.Join(s.dir, sideName(k, true)), filepath.Join(s.dir, sideName(k, false))); err != nil {
			return fmt.Errorf("native: side file: %w", err)
		}
	}
	s.sideOn = true
	return syncDir(s.dir)
}

// removeSide removes the side files (tmp: the temporary ones) and syncs
// the directory.
func removeSide(dir string, tmp bool) error {
	if err := removeLogSide(dir, tmp); err != nil {
		return err
	}
	for k := 0; k <= sideDictFile; k++ {
		if err := os.Remove(filepath.Join(dir, sideName(k, tmp))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("native: side file: %w", err)
		}
	}
	return syncDir(dir)
}

// dropSide removes the side files before a write changes the quads: after
// it the files would describe a store that no longer exists. The caller
// holds wmu; an error aborts the write.
func (s *Store) dropSide() error {
	if !s.sideOn {
		return nil
	}
	if err := removeSide(s.dir, false); err != nil {
		return err
	}
	s.sideOn = false
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	return nil
}

// sideMapping holds the mapped side files; the snapshots and ranges over
// them keep it reachable, and it is unmapped once none does.
type sideMapping struct {
	maps  [sideDictFile + 1][]byte
	build uint64 // the files' build number
}

// sideDict is the mapped dictionary: the stored encoding of ID i is
// blob[off[i]:off[i+1]] (empty for an ID never stored), and table is an
// open-addressing hash table of the IDs by their encoding's termHash
// (linear probing, 0 empty, a power of two long).
type sideDict struct {
	off   []uint64
	blob  []byte
	table []uint32
	pin   *sideMapping
}

// termHash is FNV-1a over an encoded term: a hash that is the same in
// every process, as the mapped table needs.
func termHash(enc []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range enc {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// lookup returns the ID stored for an encoded term.
func (d *sideDict) lookup(enc []byte) (kb.ID, bool) {
	mask := uint64(len(d.table) - 1)
	for slot := termHash(enc) & mask; ; slot = (slot + 1) & mask {
		id := d.table[slot]
		if id == 0 {
			return 0, false
		}
		if bytes.Equal(d.encoded(kb.ID(id)), enc) {
			return kb.ID(id), true
		}
	}
}

// encoded returns id's stored encoding, or nil.
func (d *sideDict) encoded(id kb.ID) []byte {
	if d == nil || uint64(id)+1 >= uint64(len(d.off)) {
		return nil
	}
	lo, hi := d.off[id], d.off[id+1]
	if lo >= hi || hi > uint64(len(d.blob)) {
		return nil
	}
	return d.blob[lo:hi:hi]
}

// writeSideDictTmp writes the dictionary's side file from the stored
// id → term entries (prefixID), in ID order. The caller holds wmu, after
// the ingest that stored the last of them.
func (s *Store) writeSideDictTmp(ctx context.Context, build uint64) (err error) {
	it, err := s.newIter([]byte{prefixID}, []byte{prefixID + 1})
	if err != nil {
		return err
	}
	defer func() {
		if rerr := s.release(it); err == nil {
			err = rerr
		}
	}()
	var sd sideDictBuilder
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if err := sd.add(it.Key(), it.Value()); err != nil {
			return err
		}
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	return sd.write(s.dir, build)
}

// sideDictBuilder collects the id → term entries (prefixID keys and their
// values, in key order) of the dictionary's side file.
type sideDictBuilder struct {
	base uint64 // the ID of off[0]: a part's builder starts at its range
	off  []uint64
	blob []byte
}

// add appends one prefixID entry; keys must come in ascending order, from
// b.base on.
func (b *sideDictBuilder) add(key, value []byte) error {
	if len(key) != 9 {
		return errCorruptKey
	}
	id := binary.BigEndian.Uint64(key[1:])
	if id < b.base || uint64(len(b.off)) > id-b.base {
		return errCorruptKey
	}
	for uint64(len(b.off)) <= id-b.base {
		b.off = append(b.off, uint64(len(b.blob)))
	}
	b.blob = append(b.blob, value...)
	return nil
}

// appendPart appends the entries of part, a builder of the IDs from
// part.base on, which must be past every ID of b (b.base is 0).
func (b *sideDictBuilder) appendPart(part *sideDictBuilder) error {
	if uint64(len(b.off)) > part.base {
		return errCorruptKey
	}
	for uint64(len(b.off)) < part.base {
		b.off = append(b.off, uint64(len(b.blob)))
	}
	shift := uint64(len(b.blob))
	for _, o := range part.off {
		b.off = append(b.off, o+shift)
	}
	b.blob = append(b.blob, part.blob...)
	return nil
}

// write writes the collected entries, with their hash table, as the
// dictionary's temporary side file, synced.
func (b *sideDictBuilder) write(dir string, build uint64) (err error) {
	off, blob := append(b.off, uint64(len(b.blob))), b.blob
	if uint64(len(off)) >= 1<<32 {
		return errors.New("native: side file: IDs past 32 bits")
	}
	terms := 0
	for i := 1; i < len(off); i++ {
		if off[i] > off[i-1] {
			terms++
		}
	}
	size := 1024
	for size < 2*terms {
		size *= 2
	}
	table := make([]uint32, size)
	dict := &sideDict{off: off, blob: blob, table: table}
	for id := 1; id+1 < len(off); id++ {
		enc := dict.encoded(kb.ID(id))
		if enc == nil {
			continue
		}
		slot := termHash(enc) & uint64(size-1)
		for table[slot] != 0 {
			slot = (slot + 1) & uint64(size-1)
		}
		table[slot] = uint32(id)
	}
	pad := make([]byte, (4-len(blob)%4)%4)
	f, err := os.Create(filepath.Join(dir, sideName(sideDictFile, true)))
	if err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("native: side file: %w", cerr)
		}
	}()
	var h [sideHeaderSize]byte
	copy(h[:8], sideMagic)
	binary.NativeEndian.PutUint32(h[8:], sideEndian)
	binary.NativeEndian.PutUint32(h[12:], uint32(sideDictFile))
	binary.NativeEndian.PutUint64(h[16:], build)
	binary.NativeEndian.PutUint64(h[24:], uint64(len(off)))
	binary.NativeEndian.PutUint64(h[32:], uint64(len(blob)))
	binary.NativeEndian.PutUint64(h[40:], uint64(len(table)))
	for _, b := range [][]byte{h[:], unsafe.Slice((*byte)(unsafe.Pointer(&off[0])), len(off)*8), blob, pad,
		unsafe.Slice((*byte)(unsafe.Pointer(&table[0])), len(table)*4)} {
		if _, err := f.Write(b); err != nil {
			return fmt.Errorf("native: side file: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("native: side file: %w", err)
	}
	return nil
}

// mapSide returns the read side from the side files when all six are
// present, agree with each other and hold quads quads (the base's: the
// counters' less the delta log's net additions, deltalog.go); nil
// (and the files removed, on a writable store) otherwise. It is called by
// open, before the store is shared.
func (s *Store) mapSide(quads int64) *memSnapshot {
	if s.memory {
		return nil
	}
	present := 0
	for k := 0; k <= sideDictFile; k++ {
		if _, err := os.Stat(filepath.Join(s.dir, sideName(k, false))); err == nil {
			present++
		}
	}
	if present == 0 {
		return nil
	}
	s.sideOn = true
	snap, err := s.mapSideFiles(quads)
	if err != nil || snap == nil {
		if !s.readOnly && s.dropSide() == nil {
			s.sideOn = false
		}
		return nil
	}
	return snap
}

// errSideInvalid reports side files that do not belong together or to
// the store.
var errSideInvalid = errors.New("native: side files do not match the store")

func (s *Store) mapSideFiles(quads int64) (*memSnapshot, error) {
	m := &sideMapping{}
	ok := false
	defer func() {
		if !ok {
			m.unmap()
		}
	}()
	next := &memSnapshot{pin: m}
	var build uint64
	for k := 0; k < numOrders; k++ {
		b, err := mapFile(filepath.Join(s.dir, sideName(k, false)))
		if err != nil {
			return nil, err
		}
		m.maps[k] = b
		if len(b) < sideHeaderSize || string(b[:8]) != sideMagic ||
			binary.NativeEndian.Uint32(b[8:]) != sideEndian || binary.NativeEndian.Uint32(b[12:]) != uint32(k) {
			return nil, errSideInvalid
		}
		bk := binary.NativeEndian.Uint64(b[16:])
		n := binary.NativeEndian.Uint64(b[24:])
		nf := binary.NativeEndian.Uint64(b[32:])
		if (k > 0 && bk != build) || int64(n) != quads || uint64(len(b)) != sideHeaderSize+n*16+nf*4 {
			return nil, errSideInvalid
		}
		build = bk
		if n > 0 {
			next.base[k] = unsafe.Slice((*key32)(unsafe.Pointer(&b[sideHeaderSize])), n)
		}
		if nf > 0 {
			next.first[k] = unsafe.Slice((*uint32)(unsafe.Pointer(&b[sideHeaderSize+n*16])), nf)
		}
	}
	b, err := mapFile(filepath.Join(s.dir, sideName(sideDictFile, false)))
	if err != nil {
		return nil, err
	}
	m.maps[sideDictFile] = b
	if len(b) < sideHeaderSize || string(b[:8]) != sideMagic ||
		binary.NativeEndian.Uint32(b[8:]) != sideEndian || binary.NativeEndian.Uint32(b[12:]) != uint32(sideDictFile) ||
		binary.NativeEndian.Uint64(b[16:]) != build {
		return nil, errSideInvalid
	}
	noff, nblob, ntab := binary.NativeEndian.Uint64(b[24:]), binary.NativeEndian.Uint64(b[32:]), binary.NativeEndian.Uint64(b[40:])
	tabAt := sideHeaderSize + noff*8 + nblob + (4-nblob%4)%4
	if noff == 0 || ntab == 0 || ntab&(ntab-1) != 0 || uint64(len(b)) != tabAt+ntab*4 {
		return nil, errSideInvalid
	}
	s.side = &sideDict{
		off:   unsafe.Slice((*uint64)(unsafe.Pointer(&b[sideHeaderSize])), noff),
		blob:  b[sideHeaderSize+noff*8 : sideHeaderSize+noff*8+nblob],
		table: unsafe.Slice((*uint32)(unsafe.Pointer(&b[tabAt])), ntab),
		pin:   m,
	}
	next.counts = s.counts.clone()
	m.build = build
	ok = true
	newSideCleanup(m)
	return next, nil
}
