package pg_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// termQuadSet resolves every quad of ds.
func termQuadSet(t *testing.T, ds kb.Dataset) map[kb.TermQuad]bool {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[kb.TermQuad]bool, len(quads))
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatalf("ResolveQuad(%+v): %v", q, err)
		}
		out[tq] = true
	}
	return out
}

// TestLargeLoads runs the bulk paths that only loads larger than the
// kbtest fixtures take (indexes dropped and rebuilt, terms copied straight
// into the dictionary, quads deduplicated before the copy) and checks each
// load's result against the reference store fed the same loads.
func TestLargeLoads(t *testing.T) {
	ctx := context.Background()
	gen := func(seed uint64, triples int64) []byte {
		var buf bytes.Buffer
		if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: triples, Seed: seed, Format: sample.NQuads}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	a, b := gen(1, 30000), gen(2, 40000)
	steps := []struct {
		name string
		data []byte
	}{
		{"into the empty store", a},   // indexes rebuilt, quads copied straight in
		{"a larger one on top", b},    // indexes rebuilt, quads merged by SQL
		{"the first again", a},        // ON CONFLICT: every quad exists
		{"a small one", gen(3, 2000)}, // below the rebuild threshold
		{"duplicates in one load", append(append([]byte(nil), b...), b...)},
	}
	ds := newStore(t)
	ref := kbtest.NewMemory()
	for _, st := range steps {
		for _, target := range []kb.Dataset{ds, ref} {
			if _, err := rdfio.Load(ctx, target, bytes.NewReader(st.data), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
				t.Fatalf("%s: Load into %T: %v", st.name, target, err)
			}
		}
		got, want := termQuadSet(t, ds), termQuadSet(t, ref)
		if len(got) != len(want) {
			t.Errorf("%s: the store holds %d quads; the reference %d", st.name, len(got), len(want))
		}
		missing := 0
		for q := range want {
			if !got[q] {
				if missing++; missing <= 3 {
					t.Errorf("%s: missing %v", st.name, q)
				}
			}
		}
		st1, err := ds.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st1.Quads != int64(len(want)) {
			t.Errorf("%s: Stats.Quads = %d; want %d", st.name, st1.Quads, len(want))
		}
	}
}
