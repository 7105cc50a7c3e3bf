package cube

import (
	"context"
	"errors"
	"fmt"
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
	// Small seeds: the fuzzer minimizes every new input it finds, which
	// takes long on the real files (50-200 KB).
	tiny := &wCube{
		regions: []wRegion{{0, "main", "user"}},
		root:    &wCNode{id: 0, callee: 0},
		locs:    []wLocation{{"node n", 0, 0}},
		metrics: []*wMetric{{id: 0, uniq: "time", typ: "INCLUSIVE", dtype: "DOUBLE", zlib: true, excl: map[[2]int]float64{{0, 0}: 1}}},
	}
	for _, w := range []*wCube{tiny, scalasca()} {
		seed, err := os.ReadFile(w.write(f, dir, fmt.Sprintf("seed%d/scout.cubex", len(w.regions))))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
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
