package native

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// Derived side files: what a process computes on first use from the
// mapped side files, kept beside them so that the next process reads a
// few kilobytes instead of paging the whole of what they were computed
// from. At 10M quads the planner's per-predicate statistics (predStats)
// read the whole SPOG and POSG arrays (320 MB of mapped pages, ~0.15
// CPU-s) and the dictionary's kind summary (HoldsKind) every term's tag
// byte (the 225 MB dictionary file): a server pays that once, a one-shot
// `perfkb query` paid it on every run, ten times what a selective star
// costs, and a fresh server on its first such query. The write delta over
// the base is counted in memory as before.
//
//   - readside-stats: predStats of the mapped base;
//   - readside-kinds: which encoding tags the side dictionary's terms
//     carry (kindSummary), for the IDs it holds;
//   - readside-kindcounts: the object-kind counts (ObjectKindCount) of
//     the mapped base, each under its cache key (a pass over all of
//     O-S-P-G each); a write delta over the base adjusts them in memory.
//
// The files are derived state that no write path needs to know about:
// each names the build number of the side files it describes, so once a
// write replaces or removes them it no longer matches and is ignored,
// then rewritten by the next process that computes it. A file is written
// under a temporary name and renamed into place, with a checksum over its
// contents, so that one torn by a crash is rejected rather than trusted.
// Any process with the store open writes them, read-only opens included
// (readers exclude writers, so none can replace the side files
// meanwhile); where the directory cannot be written they are not.
//
// Layout (native byte order, like the side files): a 32-byte header
// (derivedMagic, sideEndian, the side files' build, the payload's length
// as a uint32 and its CRC-32C), then the payload. readside-stats' payload
// is the base's quad count (uint64), then per predicate in ascending ID
// order its ID, four bytes of padding, and its distinct subjects and
// objects as 64-bit counts; readside-kinds' is the number of IDs it
// covers (uint64), then one byte per encoding tag (1: some term has it);
// readside-kindcounts' is per count its key's length (uint16), the key
// and the count (int64).

const (
	derivedMagic      = "PKBDERV1"
	derivedHeaderSize = 32
	statsFileName     = "readside-stats"
	kindsFileName     = "readside-kinds"
	countsFileName    = "readside-kindcounts"
	statsEntrySize    = 24
)

// statsSPOG and statsPOSG are the orders the statistics are counted
// from (the indexes predStats reads).
const statsSPOG, statsPOSG = 0, 1

var derivedCRC = crc32.MakeTable(crc32.Castagnoli)

// mappedBuild returns the build number of the side files m's base is
// mapped from, or false when its base is not exactly the mapped base (no
// side files, or a base rebuilt on the heap since).
func (m *memSnapshot) mappedBuild() (uint64, bool) {
	if m == nil || m.pin == nil {
		return 0, false
	}
	for _, k := range [2]int{statsSPOG, statsPOSG} {
		b := m.pin.maps[k]
		if len(b) < sideHeaderSize {
			return 0, false
		}
		n := binary.NativeEndian.Uint64(b[24:])
		if uint64(len(m.base[k])) != n {
			return 0, false
		}
		if n > 0 && unsafe.Pointer(&m.base[k][0]) != unsafe.Pointer(&b[sideHeaderSize]) {
			return 0, false
		}
	}
	return binary.NativeEndian.Uint64(m.pin.maps[statsSPOG][16:]), true
}

// sidePredStats returns m's planner statistics with the base's part read
// from the statistics file in dir (computed and written there when it is
// missing or describes other side files) and the write delta's counted in
// memory; nil when m's base is not mapped from side files.
func sidePredStats(m *memSnapshot, dir string) *predStats {
	build, ok := m.mappedBuild()
	if dir == "" || !ok {
		return nil
	}
	quads := int64(len(m.base[statsSPOG]))
	base, err := readStatsFile(dir, build, quads)
	if err != nil {
		base = (&memSnapshot{base: m.base, counts: &counters{quads: quads}}).predStats()
		// Best effort: a directory that cannot be written only costs
		// the next process the same computation.
		_ = writeStatsFile(dir, build, base)
	}
	if len(m.adds[statsSPOG]) == 0 && len(m.adds[statsPOSG]) == 0 {
		return &predStats{quads: m.counts.quads, by: base.by}
	}
	delta := (&memSnapshot{adds: m.adds, counts: &counters{}}).predStats()
	st := &predStats{quads: m.counts.quads, by: make(map[uint32]predShape, len(base.by)+len(delta.by))}
	for p, sh := range base.by {
		st.by[p] = sh
	}
	for p, sh := range delta.by {
		cur := st.by[p]
		st.by[p] = predShape{subjects: cur.subjects + sh.subjects, objects: cur.objects + sh.objects}
	}
	return st
}

// errDerivedFile reports a derived file that is torn or for other side
// files.
var errDerivedFile = errors.New("native: derived side file does not match the side files")

// readDerived returns the payload of the derived file name in dir,
// written for the side files of build.
func readDerived(dir, name string, build uint64) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	body, fileBuild, err := checkDerived(b)
	if err != nil || fileBuild != build {
		return nil, errDerivedFile
	}
	return body, nil
}

// checkDerived checks a derived file's header and checksum and returns
// its payload and the build it names.
func checkDerived(b []byte) (body []byte, build uint64, err error) {
	if len(b) < derivedHeaderSize || string(b[:8]) != derivedMagic || binary.NativeEndian.Uint32(b[8:]) != sideEndian {
		return nil, 0, errDerivedFile
	}
	body = b[derivedHeaderSize:]
	if uint64(len(body)) != uint64(binary.NativeEndian.Uint32(b[24:])) || crc32.Checksum(body, derivedCRC) != binary.NativeEndian.Uint32(b[28:]) {
		return nil, 0, errDerivedFile
	}
	return body, binary.NativeEndian.Uint64(b[16:]), nil
}

// writeDerived writes payload as the derived file name of dir for the
// side files of build: under a temporary name, then renamed.
func writeDerived(dir, name string, build uint64, payload []byte) (err error) {
	if len(payload) >= 1<<32 {
		return errors.New("native: derived side file too large")
	}
	b := make([]byte, derivedHeaderSize, derivedHeaderSize+len(payload))
	copy(b, derivedMagic)
	binary.NativeEndian.PutUint32(b[8:], sideEndian)
	binary.NativeEndian.PutUint64(b[16:], build)
	binary.NativeEndian.PutUint32(b[24:], uint32(len(payload)))
	binary.NativeEndian.PutUint32(b[28:], crc32.Checksum(payload, derivedCRC))
	b = append(b, payload...)
	f, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return fmt.Errorf("native: derived side file: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	// CreateTemp makes the file private; the side files beside it are
	// readable by whoever may read the store.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("native: derived side file: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("native: derived side file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("native: derived side file: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("native: derived side file: %w", err)
	}
	return nil
}

// readStatsFile reads the statistics of the base of build, quads quads.
func readStatsFile(dir string, build uint64, quads int64) (*predStats, error) {
	body, err := readDerived(dir, statsFileName, build)
	if err != nil {
		return nil, err
	}
	if len(body) < 8 || int64(binary.NativeEndian.Uint64(body)) != quads || (len(body)-8)%statsEntrySize != 0 {
		return nil, errDerivedFile
	}
	st := &predStats{quads: quads, by: make(map[uint32]predShape, (len(body)-8)/statsEntrySize)}
	for e := body[8:]; len(e) > 0; e = e[statsEntrySize:] {
		st.by[binary.NativeEndian.Uint32(e)] = predShape{
			subjects: int64(binary.NativeEndian.Uint64(e[8:])),
			objects:  int64(binary.NativeEndian.Uint64(e[16:])),
		}
	}
	return st, nil
}

// writeStatsFile writes st, the statistics of the base of build, as the
// statistics file of dir.
func writeStatsFile(dir string, build uint64, st *predStats) error {
	preds := make([]uint32, 0, len(st.by))
	for p := range st.by {
		preds = append(preds, p)
	}
	slices.Sort(preds)
	b := make([]byte, 8+len(preds)*statsEntrySize)
	binary.NativeEndian.PutUint64(b, uint64(st.quads))
	for i, p := range preds {
		e := b[8+i*statsEntrySize:]
		binary.NativeEndian.PutUint32(e, p)
		binary.NativeEndian.PutUint64(e[8:], uint64(st.by[p].subjects))
		binary.NativeEndian.PutUint64(e[16:], uint64(st.by[p].objects))
	}
	return writeDerived(dir, statsFileName, build, b)
}

// seedKinds fills s.kinds, when it is still empty, with the kind summary
// of the side dictionary's IDs (below base, the first ID not stored
// there): from the kinds file when it describes the mapped dictionary,
// else by reading every term's tag byte and writing the file. HoldsKind
// then reads only the IDs issued since.
func (s *Store) seedKinds(base kb.ID) {
	d := s.side
	if d == nil || d.pin == nil || len(d.pin.maps[sideDictFile]) < sideHeaderSize || len(d.off) < 2 {
		return
	}
	build := binary.NativeEndian.Uint64(d.pin.maps[sideDictFile][16:])
	limit := min(kb.ID(len(d.off)-1), base)
	k := &s.kinds
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.upTo > 0 {
		return
	}
	var has [len(k.has)]bool
	body, err := readDerived(s.dir, kindsFileName, build)
	if err == nil && len(body) == 8+len(has) && kb.ID(binary.NativeEndian.Uint64(body)) == limit {
		for i := range has {
			has[i] = body[8+i] != 0
		}
	} else {
		for id := kb.ID(1); id < limit; id++ {
			if enc := d.encoded(id); len(enc) > 0 && int(enc[0]) < len(has) {
				has[enc[0]] = true
			}
		}
		b := make([]byte, 8+len(has))
		binary.NativeEndian.PutUint64(b, uint64(limit))
		for i, h := range has {
			if h {
				b[8+i] = 1
			}
		}
		// Best effort, as for the statistics.
		_ = writeDerived(s.dir, kindsFileName, build, b)
	}
	k.has, k.upTo = has, limit
}

// mappedBase returns the build of the side files when order k's base in
// m is the one mapped from them (a write delta may lie over it).
func (m *memSnapshot) mappedBase(k int) (uint64, bool) {
	build, ok := m.mappedBuild()
	if !ok {
		return 0, false
	}
	b := m.pin.maps[k]
	if len(b) < sideHeaderSize || uint64(len(m.base[k])) != binary.NativeEndian.Uint64(b[24:]) ||
		(len(m.base[k]) > 0 && unsafe.Pointer(&m.base[k][0]) != unsafe.Pointer(&b[sideHeaderSize])) {
		return 0, false
	}
	return build, true
}

// countsFileMu serializes this process's read-modify-write of kind-count
// files (another process's write may still replace ours: a count lost
// that way is only counted again).
var countsFileMu sync.Mutex

// storedKindCount returns the kind count under key kept in dir for m
// for the base of order k (false when that base is not the mapped one, or
// none is kept).
func storedKindCount(dir string, m *memSnapshot, k int, key string) (int64, bool) {
	build, ok := m.mappedBase(k)
	if dir == "" || !ok {
		return 0, false
	}
	countsFileMu.Lock()
	defer countsFileMu.Unlock()
	n, ok := readKindCounts(dir, build)[key]
	return n, ok
}

// storeKindCount keeps n, a count over m's base of order k alone, under
// key in dir's kind-count file when that base is the mapped one (best
// effort).
func storeKindCount(dir string, m *memSnapshot, k int, key string, n int64) {
	build, ok := m.mappedBase(k)
	if dir == "" || !ok || len(key) >= 1<<16 {
		return
	}
	countsFileMu.Lock()
	defer countsFileMu.Unlock()
	counts := readKindCounts(dir, build)
	counts[key] = n
	keys := slices.Sorted(maps.Keys(counts))
	var b []byte
	for _, k := range keys {
		b = binary.NativeEndian.AppendUint16(b, uint16(len(k)))
		b = append(b, k...)
		b = binary.NativeEndian.AppendUint64(b, uint64(counts[k]))
	}
	_ = writeDerived(dir, countsFileName, build, b)
}

// readKindCounts returns the counts kept for build (empty when none are,
// or the file is torn).
func readKindCounts(dir string, build uint64) map[string]int64 {
	out := map[string]int64{}
	body, err := readDerived(dir, countsFileName, build)
	if err != nil {
		return out
	}
	for len(body) > 0 {
		if len(body) < 2 {
			return map[string]int64{}
		}
		n := int(binary.NativeEndian.Uint16(body))
		if len(body) < 2+n+8 {
			return map[string]int64{}
		}
		out[string(body[2:2+n])] = int64(binary.NativeEndian.Uint64(body[2+n:]))
		body = body[2+n+8:]
	}
	return out
}
