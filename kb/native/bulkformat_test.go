package native

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/perfkb/perfkb/kb"
)

// TestIndexTableFormat writes index tables the way a bulk load does and
// reads them back with Pebble's own sstable reader: each is in the row-block
// format the bulk path chooses (bulkTableFormat) and holds exactly the keys
// it was given, in order.
func TestIndexTableFormat(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	many := make([]key32, 0, 20000) // several data blocks
	for i := uint32(0); i < 20000; i++ {
		many = append(many, key32{1 + i/7, 300 + i%7, 1<<20 + i*131, 1 << 24})
	}
	cases := []struct {
		name  string
		order int
		keys  []key32
	}{
		{"one key", 0, []key32{{1, 2, 3, 4}}},
		{"ID widths 1 to 4 bytes", 3, []key32{{0, 0, 0, 0}, {0, 255, 256, 65535}, {7, 65536, 1 << 24, 1<<32 - 1}}},
		{"many blocks", 5, many},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, err := s.writeIndexTable32(tc.order, keyUnion{a: tc.keys})
			if err != nil {
				t.Fatal(err)
			}
			defer os.Remove(path)
			f, err := vfs.Default.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			readable, err := sstable.NewSimpleReadable(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sstable.NewReader(context.Background(), readable, sstable.ReaderOptions{Comparer: s.pebbleOpt.Comparer})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got, err := r.TableFormat(); err != nil || got != sstable.TableFormatPebblev2 {
				t.Fatalf("table format %v (%v), want %v", got, err, sstable.TableFormatPebblev2)
			}
			it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles)
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			i := 0
			for kv := it.First(); kv != nil; kv = it.Next() {
				if i == len(tc.keys) {
					t.Fatalf("more than %d keys", len(tc.keys))
				}
				q := tc.keys[i]
				want := []byte{prefixIndex + byte(tc.order)}
				for _, id := range q {
					want = appendID(want, kb.ID(id))
				}
				if !bytes.Equal(kv.K.UserKey, want) {
					t.Fatalf("key %d: %x, want %x", i, kv.K.UserKey, want)
				}
				i++
			}
			if i != len(tc.keys) {
				t.Fatalf("%d keys, want %d", i, len(tc.keys))
			}
		})
	}
}
