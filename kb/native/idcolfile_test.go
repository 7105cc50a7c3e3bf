package native

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

const testColName = "test.col"

// testQuads is the size of the test stores: two pages of IDs.
const testQuads = 8000

// colValue is the test column's value of a term: a hash of its text, so
// a value kept for another term reads as wrong.
func colValue(t kb.Term) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t.String()))
	return h.Sum64()
}

// sideStore loads quads into a new store in dir and reopens it from its
// side files.
func sideStore(t *testing.T, dir string, tq []kb.TermQuad) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	bulkTerms(t, s, tq)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return reopenSide(t, dir)
}

func reopenSide(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !sideMapped(s) {
		t.Fatal("store does not read its side files")
	}
	return s
}

// fillColumn stores every term's value for IDs 1..upto the way the query
// evaluator does: Put after a miss.
func fillColumn(t *testing.T, s *Store, upto kb.ID) {
	t.Helper()
	col := s.IDColumn(testColName)
	for id := kb.ID(1); id <= upto; id++ {
		if _, _, ok := col.Get(id); ok {
			continue
		}
		if term, ok := s.TermOf(id); ok {
			col.Put(id, colValue(term), 1)
		}
	}
}

// checkColumn fails on a value that is not its term's and returns how
// many IDs up to upto had one.
func checkColumn(t *testing.T, s *Store, upto kb.ID) int {
	t.Helper()
	col := s.IDColumn(testColName)
	n := 0
	for id := kb.ID(1); id <= upto; id++ {
		w, _, ok := col.Get(id)
		if !ok {
			continue
		}
		n++
		term, tok := s.TermOf(id)
		if !tok || w != colValue(term) {
			t.Fatalf("ID %d: kept value %x, its term %v has %x", id, w, term, colValue(term))
		}
	}
	return n
}

func storeLimit(t *testing.T, s *Store) kb.ID {
	t.Helper()
	_, limit, ok := s.keptSide(s.readSide())
	if !ok {
		t.Fatal("no side files")
	}
	return limit
}

func closeStore(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// A column's values are kept at close and read back by the next process
// of the same store.
func TestKeptColumn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s := sideStore(t, dir, genTermQuads(0, testQuads))
	limit := storeLimit(t, s)
	fillColumn(t, s, limit)
	closeStore(t, s)
	if _, err := os.Stat(filepath.Join(dir, colFileName(testColName))); err != nil {
		t.Fatalf("no kept column file: %v", err)
	}
	s = reopenSide(t, dir)
	defer closeStore(t, s)
	if n := checkColumn(t, s, limit); n != int(limit) {
		t.Fatalf("reopened column holds %d of %d values", n, limit)
	}
	if f := s.IDColumn(testColName).Fresh(); f != 0 {
		t.Fatalf("reading the kept values counted %d fresh ones", f)
	}
}

// The kept values never answer for a term they were not computed from.
func TestKeptColumnGuards(t *testing.T) {
	tests := []struct {
		name string
		// after gets the directory of a store whose column file holds
		// every value (the store closed), changes it, and returns the
		// store to check, reopened.
		after func(t *testing.T, dir string) *Store
		// wantKept: the values must (still) be read from the file.
		wantKept bool
	}{
		{"unchanged", func(t *testing.T, dir string) *Store { return reopenSide(t, dir) }, true},
		{"another store's file", func(t *testing.T, dir string) *Store {
			other := filepath.Join(t.TempDir(), "other")
			o := sideStore(t, other, genTermQuads(70000, testQuads))
			closeStore(t, o)
			copyFile(t, filepath.Join(dir, colFileName(testColName)), filepath.Join(other, colFileName(testColName)))
			return reopenSide(t, other)
		}, false},
		{"store loaded again in its directory", func(t *testing.T, dir string) *Store {
			keep := filepath.Join(t.TempDir(), "col")
			copyFile(t, filepath.Join(dir, colFileName(testColName)), keep)
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			o := sideStore(t, dir, genTermQuads(70000, testQuads))
			closeStore(t, o)
			copyFile(t, keep, filepath.Join(dir, colFileName(testColName)))
			return reopenSide(t, dir)
		}, false},
		{"small load since (delta log)", func(t *testing.T, dir string) *Store {
			s := reopenSide(t, dir)
			bulkTerms(t, s, genTermQuads(90000, 500))
			closeStore(t, s)
			return reopenSide(t, dir)
		}, true},
		{"large load since (side files rebuilt)", func(t *testing.T, dir string) *Store {
			s := reopenSide(t, dir)
			bulkTerms(t, s, genTermQuads(90000, 3*testQuads))
			closeStore(t, s)
			return reopenSide(t, dir)
		}, false},
		{"torn file", func(t *testing.T, dir string) *Store {
			path := filepath.Join(dir, colFileName(testColName))
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, st.Size()-colPageBytes/2); err != nil {
				t.Fatal(err)
			}
			return reopenSide(t, dir)
		}, false},
		{"changed value", func(t *testing.T, dir string) *Store {
			// Every value's first byte, in every page: a page whose
			// bytes changed must not be read.
			editColFile(t, dir, func(b []byte) {
				pages := len(b) - len(b)/colPageBytes*colPageBytes
				for off := pages; off < len(b); off += 16 {
					b[off] ^= 0x55
				}
			})
			return reopenSide(t, dir)
		}, false},
		{"changed name", func(t *testing.T, dir string) *Store {
			editColFile(t, dir, func(b []byte) {
				b[colHeaderSize] ^= 1
			})
			return reopenSide(t, dir)
		}, false},
		{"changed directory", func(t *testing.T, dir string) *Store {
			// The first two pages' numbers swapped: each page's own
			// checksum still holds, at the other's IDs.
			editColFile(t, dir, func(b []byte) {
				at := colHeaderSize + (len(testColName)+7)&^7
				if binary.NativeEndian.Uint64(b[32:]) < 2 {
					t.Fatal("the test needs two pages")
				}
				x, y := b[at:at+4], b[at+8:at+12]
				for i := range x {
					x[i], y[i] = y[i], x[i]
				}
			})
			return reopenSide(t, dir)
		}, false},
		{"temporary file of a crashed writer", func(t *testing.T, dir string) *Store {
			path := filepath.Join(dir, colFileName(testColName))
			if err := os.Rename(path, path+".123.tmp"); err != nil {
				t.Fatal(err)
			}
			return reopenSide(t, dir)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			s := sideStore(t, dir, genTermQuads(0, testQuads))
			limit := storeLimit(t, s)
			fillColumn(t, s, limit)
			closeStore(t, s)
			s = tt.after(t, dir)
			defer closeStore(t, s)
			upto := storeLimit(t, s)
			n := checkColumn(t, s, upto)
			if tt.wantKept && n != int(limit) {
				t.Fatalf("%d of %d values read from the file (limit now %d)", n, limit, upto)
			}
			if !tt.wantKept && n != 0 {
				t.Fatalf("%d values read from a file that does not describe the store", n)
			}
		})
	}
}

// An ID issued past the side files' IDs (a write to the delta log) is
// never answered from the file: a write the log loses in a crash may give
// its ID to another term.
func TestKeptColumnPastLimit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s := sideStore(t, dir, genTermQuads(0, testQuads))
	limit := storeLimit(t, s)
	fillColumn(t, s, limit)
	// The values a process computed for IDs a lost write had issued.
	col := s.IDColumn(testColName)
	for id := limit + 1; id <= limit+50; id++ {
		col.Put(id, 0xbad, 1)
	}
	closeStore(t, s)

	s = reopenSide(t, dir)
	defer closeStore(t, s)
	extra := addFresh(t, s)
	if !sideMapped(s) || storeLimit(t, s) != limit {
		t.Fatal("the write did not go to the delta log over the same side files")
	}
	past := 0
	for _, q := range extra {
		for _, id := range []kb.ID{q.S, q.P, q.O} {
			if id > limit {
				past++
			}
		}
	}
	if past == 0 {
		t.Fatal("the write issued no ID past the side files'")
	}
	if n := checkColumn(t, s, limit+50); n != int(limit) {
		t.Fatalf("%d values read, want the %d of the side files' IDs", n, limit)
	}
}

// A file that holds values past the limit it names (no writer of this
// package makes one) has them ignored.
func TestKeptColumnFilePastLimit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s := sideStore(t, dir, genTermQuads(0, testQuads))
	limit := storeLimit(t, s)
	build, _, _ := s.keptSide(s.readSide())
	fillColumn(t, s, limit)
	col := s.IDColumn(testColName)
	for id := limit + 1; id <= limit+50; id++ {
		col.Put(id, 0xbad, 1)
	}
	closeStore(t, s) // keeps the column as its writer does
	if err := writeColFile(dir, testColName, build, limit+50, col); err != nil {
		t.Fatal(err)
	}
	// Name the store's limit in the header, with its checksum.
	editColFile(t, dir, func(b []byte) {
		binary.NativeEndian.PutUint64(b[24:], uint64(limit))
		n := binary.NativeEndian.Uint64(b[32:])
		dirEnd := colHeaderSize + (len(testColName)+7)&^7 + int(n)*8
		binary.NativeEndian.PutUint32(b[48:], crc32.Update(crc32.Checksum(b[:48], derivedCRC), derivedCRC, b[colHeaderSize:dirEnd]))
	})

	s = reopenSide(t, dir)
	defer closeStore(t, s)
	addFresh(t, s)
	if n := checkColumn(t, s, limit+50); n != int(limit) {
		t.Fatalf("%d values read, want the %d of the side files' IDs", n, limit)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editColFile rewrites the test column's file in dir with edit applied
// to its bytes.
func editColFile(t *testing.T, dir string, edit func(b []byte)) {
	t.Helper()
	path := filepath.Join(dir, colFileName(testColName))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// addFresh writes 20 quads of new terms into s, so that the delta log
// issues IDs past the side files' last, and returns them.
func addFresh(t *testing.T, s *Store) []kb.Quad {
	t.Helper()
	ctx := context.Background()
	extra, err := kb.InternQuads(ctx, s, genTermQuads(80000, 20))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: extra}); err != nil {
		t.Fatal(err)
	}
	return extra
}
