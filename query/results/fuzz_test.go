package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReaders checks that no answer from a remote endpoint makes a results
// reader panic: federation feeds them whatever a site sends.
func FuzzReaders(f *testing.F) {
	_ = filepath.WalkDir("../../testdata/w3c/w3c-sparql", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, ext := range []string{".srj", ".srx", ".csv", ".tsv"} {
			if strings.HasSuffix(path, ext) {
				if b, err := os.ReadFile(path); err == nil && len(b) < 16<<10 {
					f.Add(ext, b)
				}
			}
		}
		return nil
	})
	f.Add(".srj", []byte(`{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"http://e/s"}}]}}`))
	f.Add(".tsv", []byte("?s\t?o\n<http://e/s>\t\"x\"@en\n"))
	f.Fuzz(func(t *testing.T, kind string, data []byte) {
		r := bytes.NewReader(data)
		switch kind {
		case ".srj":
			_, _ = ReadJSON(r)
		case ".srx":
			_, _ = ReadXML(r)
		case ".csv":
			_, _ = ReadCSV(r)
		default:
			_, _ = ReadTSV(r)
		}
	})
}
