package trace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadText feeds arbitrary bytes to the text trace reader and what it
// accepts to the checker and the summarizer: errors name the input and a
// line, nothing panics.
func FuzzReadText(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.trace"))
	more, _ := filepath.Glob(filepath.Join("testdata", "check", "*"))
	for _, name := range append(seeds, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadText(bytes.NewReader(data), "fuzz.trace")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.trace:") {
				t.Fatalf("error does not name the input: %v", err)
			}
			return
		}
		ctx := context.Background()
		vs, err := Check(ctx, m)
		if err != nil || AnyFatal(vs) {
			return // the converter refuses such a trace before summarizing
		}
		_, _ = Summarize(ctx, m)
	})
}
