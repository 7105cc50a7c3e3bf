package hpctoolkit

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
)

// corrupted copies testdata/d.x to a temporary directory and changes one
// of its files.
func corrupted(t testing.TB, file string, change func(b []byte) []byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bad")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"meta.db", "profile.db", "cct.db"} {
		b, err := os.ReadFile(filepath.Join("testdata", "d.x", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == file {
			b = change(bytes.Clone(b))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func put64(at int, v uint64) func([]byte) []byte {
	return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[at:], v); return b }
}

// badCases are d.x with one defect each; the byte offsets are those of
// d.x's structures (see TestHandDecoded).
var badCases = []struct {
	name, file string
	change     func([]byte) []byte
	want       []string
}{
	{"truncated meta.db", "meta.db", func(b []byte) []byte { return b[:len(b)/2] },
		[]string{"meta.db: byte 904 (footer)", `no "_meta.db" footer: the file is truncated`}},
	{"not a database", "meta.db", func([]byte) []byte { return []byte("<?xml version=\"1.0\"?>\n<HPCToolkitExperiment/>\n") },
		[]string{"meta.db: byte 0 (magic)", "not an HPCToolkit database file"}},
	{"cct.db as profile.db", "profile.db", func([]byte) []byte {
		b, _ := os.ReadFile(filepath.Join("testdata", "d.x", "cct.db"))
		return b
	}, []string{"profile.db: byte 10 (format)", `format "ctxt", want "prof"`}},
	{"version 3", "meta.db", func(b []byte) []byte { b[14] = 3; return b },
		[]string{"meta.db: byte 14 (majorVersion)", "only version 4"}},
	// Entry point 1 (byte 0x440): pChildren at 0x448 pointed past the file.
	{"child pointer outside", "meta.db", put64(0x448, 1<<20),
		[]string{"meta.db: byte 1048576 (children of context 1)", "outside the Context section"}},
	// The section table's Context size (0x40) larger than the file.
	{"section past the end", "meta.db", put64(0x40, 1<<30),
		[]string{"meta.db: byte 1040 (section 4)", "run past the end of the file"}},
	// ctx 2 (byte 0x6f0) names ctx 3's child array (0x6c0) as its own:
	// a cycle.
	{"cyclic context tree", "meta.db", put64(0x6c0+8, 0x6c0),
		[]string{"meta.db: byte 1736 (context 3 pChildren)", "is another context's too"}},
	// The thread profile's value count (byte 0x70) beyond the file.
	{"value block past the end", "profile.db", put64(0x70, 1<<40),
		[]string{"profile.db: byte 120 (profile 1 pValues)", "run past the end of the file"}},
}

func TestConformance(t *testing.T) {
	var bad []converttest.BadCase
	for _, bc := range badCases {
		bad = append(bad, converttest.BadCase{Name: bc.name, Want: bc.want, New: func(t testing.TB) convert.Converter {
			return New(corrupted(t, bc.file, bc.change), base, Options{})
		}})
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			return New(filepath.Join("testdata", "issue-328"), base, Options{})
		},
		Bad: bad,
	})
}
