package cayleyqs_test

import (
	"context"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/graphtest"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyadapter"
	"github.com/perfkb/perfkb/kb/cayleyqs"
)

// plain hides every optional interface of the dataset it wraps, so that
// the adapter takes its generic paths (checks by Count under its own lock,
// nodes collected from all quads).
type plain struct{ kb.Dataset }

// TestConformanceGeneric runs Cayley's backend conformance suite on the
// adapter over a dataset that implements kb.Dataset alone: Cayley's
// memstore behind kb/cayleyadapter. (The native and PostgreSQL stores,
// which implement the optional interfaces, run it in their packages.)
func TestConformanceGeneric(t *testing.T) {
	t.Chdir("testdata/cayley")
	graphtest.TestAll(t, func(t testing.TB) (graph.QuadStore, graph.Options, func()) {
		ds, err := cayleyadapter.Open(context.Background(), cayleyadapter.Memstore, "", cayleyadapter.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		qs := cayleyqs.New(plain{ds}, cayleyqs.Options{Owned: true})
		return qs, nil, func() { qs.Close() }
	}, &graphtest.Config{})
}
