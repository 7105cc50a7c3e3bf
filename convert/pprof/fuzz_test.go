package pprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the profile reader: it may reject
// them with an error naming the file, never panic, and what it accepts
// has sample types and samples that fit them.
func FuzzRead(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "bad", "*"))
	names = append(names, filepath.Join("testdata", "cpu.pb.gz"))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if raw, err := io.ReadAll(zr); err == nil {
				f.Add(raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(data, "fuzz.pb")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("fuzz.pb")) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(p.SampleType) == 0 {
			t.Fatal("accepted a profile without sample types")
		}
		for _, s := range p.Sample {
			if len(s.Value) != len(p.SampleType) {
				t.Fatal("accepted a sample that does not fit the sample types")
			}
		}
	})
}
