package kb_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
)

// Loading into the native stores takes Load's concurrent zero-copy path
// (they are kb.ConcurrentInterners); the result must equal a load into
// kbtest.Memory, which takes the copying path.
func TestLoadNativeMatchesMemory(t *testing.T) {
	ctx := context.Background()
	var data bytes.Buffer
	if _, err := sample.Generate(ctx, &data, sample.Options{Sites: 2, Triples: 20000, Seed: 3, Format: sample.NQuads}); err != nil {
		t.Fatal(err)
	}
	// Blank nodes and a line the native path must copy out of its buffer.
	data.WriteString("_:a <http://example.org/p> \"caf\\u00E9\"@FR _:g .\n_:a <http://example.org/p> _:b .\n")
	load := func(ds kb.Dataset) []string {
		t.Helper()
		if _, err := kb.Load(ctx, ds, bytes.NewReader(data.Bytes()), kb.LoadOptions{Format: kb.FormatNQuads}); err != nil {
			t.Fatal(err)
		}
		return termQuads(t, ds, false)
	}
	want := load(kbtest.NewMemory())
	disk, err := native.Open(ctx, filepath.Join(t.TempDir(), "db"), native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	for name, ds := range map[string]kb.Dataset{"native on disk": disk, "native in memory": native.OpenMemory()} {
		if _, ok := ds.(kb.ConcurrentInterner); !ok {
			t.Errorf("%s is not a kb.ConcurrentInterner", name)
		}
		if got := load(ds); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s holds %d quads after the load, kbtest.Memory %d, or they differ", name, len(got), len(want))
		}
	}
}
