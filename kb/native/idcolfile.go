package native

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// Kept columns: the values of a per-ID column (idcolumns.go) for the IDs
// of the side files, kept in a file beside them so that the next process
// reads them instead of computing them again. A one-shot `perfkb query`
// of a GROUP BY over the 2M metric values of a 10M-quad store spent a
// third of its CPU decoding and parsing the numbers a server holds from
// its first query.
//
// A value is a function of its ID's term, and the side files' IDs are
// committed, never reissued, and their terms never change, so a file is
// right for every store state whose side files it names. It is read only
// when it names the build of the side files the store reads (a store
// written since, with its side files rebuilt, or another store's file
// have another build) and holds values only for the IDs those side files
// hold (the limit): an ID the write delta issued past it is computed in
// the process, and never written, as a write the log loses in a crash
// may give its ID to another term. The file is written at close by a
// process that computed values the file lacks, under a temporary name,
// synced, then renamed; its header, directory and every page carry
// checksums, and a torn or changed page is ignored (its values computed).
//
// Layout (native endianness, like the side files): a 64-byte header
// (magic, endianness mark, build, limit, page count, name length, CRC-32C
// of the header's first 48 bytes with the name and the directory), the
// column's name padded to 8 bytes, the directory (per page its number and
// its CRC-32C, 8 bytes), zeros to the next 4,096-byte boundary, then the
// pages in directory order, kb.IDColumnPage (word, tag) pairs each. The
// file is mapped copy-on-write, so the column uses a page in place and
// fills its empty slots privately.

const (
	colMagic      = "PKBCOL01"
	colHeaderSize = 64
	colAlign      = 4096
	colPageBytes  = kb.IDColumnPage * 16
	colFilePrefix = "readside-col-"
)

var errColFile = errors.New("native: kept column file does not match the side files")

// colFileName names the file of the column under name.
func colFileName(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s%016x", colFilePrefix, h.Sum64())
}

// sideLimit returns the last ID of the side dictionary m's base is
// mapped with.
func (m *memSnapshot) sideLimit() (kb.ID, bool) {
	if m == nil || m.pin == nil {
		return 0, false
	}
	b := m.pin.maps[sideDictFile]
	if len(b) < sideHeaderSize {
		return 0, false
	}
	noff := binary.NativeEndian.Uint64(b[24:])
	if noff < 2 {
		return 0, false
	}
	return kb.ID(noff - 2), true
}

// keptSide returns the build and ID limit of the side files the store
// reads from, or false when its reads do not come from them.
func (s *Store) keptSide(m *memSnapshot) (uint64, kb.ID, bool) {
	if s.dir == "" {
		return 0, 0, false
	}
	build, ok := m.mappedBuild()
	if !ok {
		return 0, 0, false
	}
	limit, ok := m.sideLimit()
	return build, limit, ok
}

// keptColumn is a mapped, checked column file.
type keptColumn struct {
	mapping []byte
	at      []int32 // page number → index in the file, -1 none
	crcs    []uint32
	pages   int // offset of the first page
	limit   kb.ID
}

// Page returns page pi of the file when its checksum holds. The column
// calls it once per page, holding its lock.
func (k *keptColumn) Page(pi int) *kb.IDColumnPageWords {
	if k == nil || pi < 0 || pi >= len(k.at) || k.at[pi] < 0 {
		return nil
	}
	i := int(k.at[pi])
	k.at[pi] = -1 // whatever happens below, the page is not offered again
	b := k.mapping[k.pages+i*colPageBytes : k.pages+(i+1)*colPageBytes]
	if crc32.Checksum(b, derivedCRC) != k.crcs[i] {
		return nil
	}
	w := (*kb.IDColumnPageWords)(unsafe.Pointer(&b[0]))
	// The writer keeps nothing past the limit; a page that holds
	// something there loses it here, so it cannot answer for an ID
	// issued since.
	for j := range w {
		if id := uint64(pi)*kb.IDColumnPage + uint64(j); id > uint64(k.limit) && w[j][1] != 0 {
			w[j] = [2]uint64{}
		}
	}
	return w
}

// readColFile maps and checks the column file of name for the side files
// of build, whose last ID is limit.
func readColFile(dir, name string, build uint64, limit kb.ID) (*keptColumn, error) {
	b, err := mapPrivate(filepath.Join(dir, colFileName(name)))
	if err != nil {
		return nil, err
	}
	k, err := checkColFile(b, name, build, limit)
	if err != nil {
		if b != nil {
			unmapBytes(b)
		}
		return nil, err
	}
	return k, nil
}

// checkColFile checks a column file's header and directory (the pages'
// checksums are checked as they are used).
func checkColFile(b []byte, name string, build uint64, limit kb.ID) (*keptColumn, error) {
	if len(b) < colHeaderSize || string(b[:8]) != colMagic || binary.NativeEndian.Uint32(b[8:]) != sideEndian {
		return nil, errColFile
	}
	fileBuild := binary.NativeEndian.Uint64(b[16:])
	fileLimit := binary.NativeEndian.Uint64(b[24:])
	n := binary.NativeEndian.Uint64(b[32:])
	nameLen := binary.NativeEndian.Uint64(b[40:])
	maxPages := uint64(limit)/kb.IDColumnPage + 1
	if fileBuild != build || fileLimit != uint64(limit) || n > maxPages || nameLen != uint64(len(name)) {
		return nil, errColFile
	}
	dirAt := colHeaderSize + (nameLen+7)&^7
	pagesAt := (dirAt + n*8 + colAlign - 1) &^ (colAlign - 1)
	if uint64(len(b)) != pagesAt+n*colPageBytes || string(b[colHeaderSize:colHeaderSize+nameLen]) != name {
		return nil, errColFile
	}
	crc := crc32.Update(crc32.Checksum(b[:48], derivedCRC), derivedCRC, b[colHeaderSize:dirAt+n*8])
	if crc != binary.NativeEndian.Uint32(b[48:]) {
		return nil, errColFile
	}
	k := &keptColumn{mapping: b, at: make([]int32, maxPages), crcs: make([]uint32, n), pages: int(pagesAt), limit: limit}
	for i := range k.at {
		k.at[i] = -1
	}
	for i := uint64(0); i < n; i++ {
		e := b[dirAt+i*8:]
		pi := uint64(binary.NativeEndian.Uint32(e))
		if pi >= maxPages || k.at[pi] >= 0 {
			return nil, errColFile
		}
		k.at[pi] = int32(i)
		k.crcs[i] = binary.NativeEndian.Uint32(e[4:])
	}
	return k, nil
}

// noKept is the kept pages of a column with no file yet: none.
type noKept struct{}

func (noKept) Page(int) *kb.IDColumnPageWords { return nil }

// attachKept gives a new column the values kept for the side files the
// store reads, and marks it as one to keep at close.
func (s *Store) attachKept(name string, col *kb.IDColumn) {
	build, limit, ok := s.keptSide(s.readSide())
	if !ok {
		return
	}
	if k, err := readColFile(s.dir, name, build, limit); err == nil {
		col.SetKept(k, limit)
		return
	}
	col.SetKept(noKept{}, limit)
}

// keepColumns writes the file of every column that holds values its file
// lacks, for the side files the store reads. The caller holds wmu.
func (s *Store) keepColumns() {
	build, limit, ok := s.keptSide(s.mem.Load())
	if !ok {
		return
	}
	s.idcols.mu.Lock()
	defer s.idcols.mu.Unlock()
	for name, col := range s.idcols.cols {
		if col.Fresh() > 0 {
			_ = writeColFile(s.dir, name, build, limit, col)
		}
	}
}

// writeColFile writes col's values for IDs up to limit as the file of
// the column under name, for the side files of build.
func writeColFile(dir, name string, build uint64, limit kb.ID, col *kb.IDColumn) (err error) {
	var nums []uint32
	var crcs []uint32
	if err := col.CopyPages(limit, func(pi int, page *kb.IDColumnPageWords) error {
		nums = append(nums, uint32(pi))
		crcs = append(crcs, crc32.Checksum(pageBytes(page), derivedCRC))
		return nil
	}); err != nil {
		return err
	}
	n := uint64(len(nums))
	nameLen := uint64(len(name))
	dirAt := colHeaderSize + (nameLen+7)&^7
	pagesAt := (dirAt + n*8 + colAlign - 1) &^ (colAlign - 1)
	head := make([]byte, pagesAt)
	copy(head, colMagic)
	binary.NativeEndian.PutUint32(head[8:], sideEndian)
	binary.NativeEndian.PutUint64(head[16:], build)
	binary.NativeEndian.PutUint64(head[24:], uint64(limit))
	binary.NativeEndian.PutUint64(head[32:], n)
	binary.NativeEndian.PutUint64(head[40:], nameLen)
	copy(head[colHeaderSize:], name)
	for i := range nums {
		binary.NativeEndian.PutUint32(head[dirAt+uint64(i)*8:], nums[i])
		binary.NativeEndian.PutUint32(head[dirAt+uint64(i)*8+4:], crcs[i])
	}
	binary.NativeEndian.PutUint32(head[48:], crc32.Update(crc32.Checksum(head[:48], derivedCRC), derivedCRC, head[colHeaderSize:dirAt+n*8]))

	f, err := os.CreateTemp(dir, colFileName(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(head); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	// The pages are copied again rather than held: a column is up to
	// 128 MiB. A value Put between the two copies changes a page's
	// checksum, so the second copy must match the first page for page.
	i := 0
	if err := col.CopyPages(limit, func(pi int, page *kb.IDColumnPageWords) error {
		b := pageBytes(page)
		if i >= len(nums) || nums[i] != uint32(pi) || crc32.Checksum(b, derivedCRC) != crcs[i] {
			return errColFile
		}
		i++
		_, err := w.Write(b)
		return err
	}); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	if i != len(nums) {
		return fmt.Errorf("native: kept column: %w", errColFile)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, colFileName(name))); err != nil {
		return fmt.Errorf("native: kept column: %w", err)
	}
	return syncDir(dir)
}

// pageBytes returns page's bytes.
func pageBytes(page *kb.IDColumnPageWords) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(page)), colPageBytes)
}
