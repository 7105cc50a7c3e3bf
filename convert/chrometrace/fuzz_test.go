package chrometrace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

// FuzzRead feeds arbitrary bytes to the Chrome trace reader: it may reject
// them with an error naming the file, never panic, and what it accepts is
// a consistent trace (CHECKTRACE finds nothing fatal) that exports and
// reads back.
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	more, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.json"))
	for _, name := range append(append(seeds, more...), filepath.Join("testdata", "perfflow-smoketest.pfw")) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := Read(data, "fuzz.json")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("fuzz.json")) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		ctx := context.Background()
		vs, err := trace.Check(ctx, m)
		if err != nil || trace.AnyFatal(vs) {
			t.Fatalf("accepted an inconsistent trace: %v %v", vs, err)
		}
		var buf bytes.Buffer
		if _, err := Write(ctx, &buf, m.Defs(), trace.Merge(ctx, m)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Read(buf.Bytes(), "export.json"); err != nil {
			t.Fatalf("the export of an accepted trace does not read back: %v\n%s", err, buf.Bytes())
		}
	})
}
