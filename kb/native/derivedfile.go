package native

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// Derived values kept on disk: the value orders (objorder.go) and the
// per-predicate lists (derivedvals.go) the query evaluator builds from
// one predicate's quads are kept per snapshot in memory, so a server
// builds each once, but a one-shot `perfkb query` built them in every
// process: at 10M quads the value order of the metric values costs about
// a CPU-second, against 0.1 CPU-s for the server's warm answer of the
// query that needs it. A value the caller can encode is also kept as a
// derived side file beside the statistics (statsfile.go), under the same
// rules: the file names the build of the side files it was computed
// from, carries a checksum, is written to a temporary name and renamed,
// and a stale, torn or foreign file is ignored and rewritten by the next
// process that builds the value.
//
// A value of predicate p is computed from p's quads only, so a file is
// valid for a snapshot whose base is the mapped side files and whose
// write delta (the delta log's quads, deltalog.go) holds no quad of p:
// the ontology's or a few new metrics' entries in the log leave the
// other predicates' files in use.
//
// Layout: the derived header (statsfile.go), then the payload: p
// (uint64), the kind's length (uint64), the kind padded with zeros to a
// multiple of 8 bytes, then the caller's encoding. The file is named
// readside-obj-<FNV-64a of kind and p, 16 hex digits>; the stored p and
// kind are compared on read, so a collision reads as a missing file.

// objFilePrefix starts the names of the files of kept derived values.
const objFilePrefix = "readside-obj-"

// objFileName returns the file name for the value under (p, kind).
func objFileName(p kb.ID, kind string) string {
	h := fnv.New64a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write(strconv.AppendUint(nil, uint64(p), 10))
	return fmt.Sprintf("%s%016x", objFilePrefix, h.Sum64())
}

// mappedFor returns the build of the side files when the quads of p in m
// are exactly those of the mapped base: the base is mapped and the write
// delta adds or removes no quad of p.
func (m *memSnapshot) mappedFor(p kb.ID) (uint64, bool) {
	build, ok := m.mappedBuild()
	if !ok || p == 0 || p > 1<<32-1 {
		return 0, false
	}
	for _, d := range [2][]key32{m.adds[posg], m.dels[posg]} {
		// P-O-S-G keys start with the predicate.
		i, _ := slices.BinarySearchFunc(d, uint32(p), func(k key32, p uint32) int { return int(int64(k[0]) - int64(p)) })
		if i < len(d) && d[i][0] == uint32(p) {
			return 0, false
		}
	}
	return build, true
}

// readObjFile returns the caller's encoding kept for (p, kind) for the
// side files of build. The bytes are the file's mapping (mappedDerived),
// valid for the life of the process.
func readObjFile(dir string, build uint64, p kb.ID, kind string) ([]byte, error) {
	body, err := mappedDerived(dir, objFileName(p, kind), build)
	if err != nil {
		return nil, err
	}
	if len(body) < 16 || binary.NativeEndian.Uint64(body) != uint64(p) {
		return nil, errDerivedFile
	}
	n := binary.NativeEndian.Uint64(body[8:])
	padded := (n + 7) &^ 7
	if n != uint64(len(kind)) || uint64(len(body)-16) < padded || string(body[16:16+n]) != kind {
		return nil, errDerivedFile
	}
	return body[16+padded:], nil
}

// mappedFiles holds the derived files this process has mapped and
// checked, by path: a value order is tens of megabytes at 10M quads, and
// reading it into the heap (then decoding a copy) cost a one-shot query
// more than the query, where a mapping faults in only the pages a search
// touches. A decoder may keep slices into the bytes, so a mapping is
// never unmapped: like the side dictionary's it lives as long as the
// process. A file replaced since (renamed over: a new inode) is mapped
// again; the old mapping stays for the values that point into it. So a
// process maps each version of a file at most once.
var mappedFiles = struct {
	sync.Mutex
	by map[string]mappedFile
}{by: map[string]mappedFile{}}

// mappedFile is one mapped, checked derived file.
type mappedFile struct {
	size, mtime int64
	ino         uint64
	body        []byte // the payload, after the checked header
	mapping     []byte // the whole mapping (nil when the file was read)
	build       uint64
}

// mappedDerived is readDerived over a mapping of the file.
func mappedDerived(dir, name string, build uint64) ([]byte, error) {
	path := filepath.Join(dir, name)
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	ino := fileIno(st)
	mappedFiles.Lock()
	defer mappedFiles.Unlock()
	if f, ok := mappedFiles.by[path]; ok && f.size == st.Size() && f.mtime == st.ModTime().UnixNano() && f.ino == ino && ino != 0 {
		if f.build != build {
			return nil, errDerivedFile
		}
		return f.body, nil
	}
	b, err := mapFile(path)
	mapped := err == nil && len(b) > 0
	if err != nil || int64(len(b)) != st.Size() {
		// No mmap (or the file changed under us): read it.
		if mapped {
			unmapBytes(b)
		}
		mapped = false
		if b, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	body, fileBuild, err := checkDerived(b)
	if err != nil {
		if mapped {
			unmapBytes(b) // nothing points into a rejected file
		}
		return nil, err
	}
	f := mappedFile{size: st.Size(), mtime: st.ModTime().UnixNano(), ino: ino, body: body, build: fileBuild}
	if mapped {
		f.mapping = b
	}
	mappedFiles.by[path] = f
	if fileBuild != build {
		return nil, errDerivedFile
	}
	return body, nil
}

// writeObjFile keeps enc as the file of (p, kind) for the side files of
// build.
func writeObjFile(dir string, build uint64, p kb.ID, kind string, enc []byte) error {
	padded := (len(kind) + 7) &^ 7
	b := make([]byte, 16+padded, 16+padded+len(enc))
	binary.NativeEndian.PutUint64(b, uint64(p))
	binary.NativeEndian.PutUint64(b[8:], uint64(len(kind)))
	copy(b[16:], kind)
	return writeDerived(dir, objFileName(p, kind), build, append(b, enc...))
}

// DerivedCodec turns a derived value into bytes and back, for the values
// kept in derived side files. Decode must reject (with an error) bytes
// that are not a value of its kind, such as an older encoding. It is an
// alias of an interface literal, so that a caller's interface naming
// these methods with its own alias of the same literal matches them
// without importing this package.
type DerivedCodec = interface {
	EncodeDerived(v any) ([]byte, error)
	DecodeDerived(b []byte) (any, error)
}

// fromFile returns the value of (p, kind) kept in a derived file for m,
// or false.
func fromFile(dir string, m *memSnapshot, p kb.ID, kind string, codec DerivedCodec) (any, int64, bool) {
	build, ok := m.mappedFor(p)
	if dir == "" || !ok || codec == nil {
		return nil, 0, false
	}
	b, err := readObjFile(dir, build, p, kind)
	if err != nil {
		return nil, 0, false
	}
	v, err := codec.DecodeDerived(b)
	if err != nil {
		return nil, 0, false
	}
	return v, int64(len(b)), true
}

// toFile keeps v as the derived file of (p, kind) when m's quads of p
// are the mapped base's (best effort: a directory that cannot be written
// only costs the next process the build).
func toFile(dir string, m *memSnapshot, p kb.ID, kind string, codec DerivedCodec, v any) {
	build, ok := m.mappedFor(p)
	if dir == "" || !ok || codec == nil {
		return
	}
	enc, err := codec.EncodeDerived(v)
	if err != nil {
		return
	}
	_ = writeObjFile(dir, build, p, kind, enc)
}

// ObjectsDerivedStored is ObjectsDerived for a value codec can encode:
// before building, the value is read from its derived side file when one
// describes the store's current quads of p, and a value built is written
// there for the next process.
func (s *Store) ObjectsDerivedStored(p kb.ID, kind string, codec DerivedCodec, build func(objects []kb.ID) (any, error)) (v any, ok bool, err error) {
	if s.closed.Load() {
		return nil, false, kb.ErrClosed
	}
	m := s.readSide()
	if m == nil {
		return nil, false, nil
	}
	v, _, err = s.derived.build(m, derivedKey{p, kind}, func() (derivedEntry, error) {
		// The file spares the build and the walk over p's quads that
		// lists its objects.
		if v, _, ok := fromFile(s.dir, m, p, kind, codec); ok {
			return derivedEntry{v: v}, nil
		}
		v, err := build(distinctObjects(m, p))
		if err == nil {
			toFile(s.dir, m, p, kind, codec, v)
		}
		return derivedEntry{v: v}, err
	}, nil)
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// PredicateDerivedStored is PredicateDerived for a value codec can
// encode, read from and written to a derived side file as
// ObjectsDerivedStored does.
func (s *Store) PredicateDerivedStored(p kb.ID, kind string, codec DerivedCodec, build func() (any, int64, error)) (v any, kept, ok bool, err error) {
	if s.closed.Load() {
		return nil, false, false, kb.ErrClosed
	}
	m := s.readSide()
	if m == nil {
		return nil, false, false, nil
	}
	v, kept, err = s.derived.getValue(m, p, kind, func() (any, int64, error) {
		if v, n, ok := fromFile(s.dir, m, p, kind, codec); ok {
			return v, n, nil
		}
		v, n, err := build()
		// build reads the store, not m: a write published meanwhile
		// may have changed what it read.
		if err == nil && s.readSide() == m {
			toFile(s.dir, m, p, kind, codec, v)
		}
		return v, n, err
	})
	return v, kept, err == nil, err
}
