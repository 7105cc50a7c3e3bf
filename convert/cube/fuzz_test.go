package cube

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
)

type discard struct{}

func (discard) Add(context.Context, kb.TermQuad) error { return nil }
func (discard) Close(context.Context, error) error     { return nil }

// FuzzConvert feeds arbitrary bytes to the converter as a .cubex file: it
// may reject them, always with a positioned invalid-input error naming the
// file, and never panics.
func FuzzConvert(f *testing.F) {
	dir := f.TempDir()
	seed, err := os.ReadFile(scalasca().write(f, dir, "seed/scout.cubex"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	if b, err := os.ReadFile(filepath.Join("testdata", "cube-values_example.cubex")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.cubex")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := New(path, base, Options{}).Convert(context.Background(), discard{})
		if err == nil {
			return
		}
		var ce *convert.Error
		if !errors.As(err, &ce) || !ce.InvalidInput() || ce.Source != path {
			t.Fatalf("error is not a positioned invalid-input error of %s: %v", path, err)
		}
	})
}
