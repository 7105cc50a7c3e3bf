package pg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestPartitionLoads: a load into a graph the store holds nothing of gets
// a partition of its own (built beside the load's transaction and attached
// in it); a load into a graph that has one goes through the ordinary path;
// a load that fails after building its partition leaves the store, and its
// tables, as they were. After each step the store must hold what the
// reference store fed the same successful loads holds.
func TestPartitionLoads(t *testing.T) {
	ctx := context.Background()
	gen := func(seed uint64, triples int64) []byte {
		var buf bytes.Buffer
		if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 1, Triples: triples, Seed: seed, Format: sample.NTriples}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	g1, g2, g3 := kb.IRI("http://e/g1"), kb.IRI("http://e/g2"), kb.IRI("http://e/g3")
	errInjected := errors.New("injected before attach")
	steps := []struct {
		name      string
		data      []byte
		graph     kb.Term
		fail      bool
		partition bool // the graph has a partition of its own afterwards
	}{
		{"a new graph", gen(1, 30000), g1, false, true},
		{"more into that graph", gen(2, 20000), g1, false, true},
		{"a new graph, failing before attach", gen(3, 20000), g2, true, false},
		{"that graph again", gen(3, 20000), g2, false, true},
		{"a small new graph", gen(4, 2000), g3, false, false},
	}
	ds := newStore(t)
	ref := kbtest.NewMemory()
	tables := func() []string {
		rows, err := pool.Query(ctx, "SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind IN ('r', 'p') ORDER BY relname", ds.Schema())
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	t.Cleanup(func() { pg.SetBeforeAttach(nil) })
	for _, st := range steps {
		before := tables()
		if st.fail {
			pg.SetBeforeAttach(func() error { return errInjected })
		}
		_, err := rdfio.Load(ctx, ds, bytes.NewReader(st.data), rdfio.LoadOptions{Format: rdfio.NTriples, Graph: st.graph})
		pg.SetBeforeAttach(nil)
		if st.fail {
			if !errors.Is(err, errInjected) {
				t.Fatalf("%s: Load = %v; want the injected error", st.name, err)
			}
			if after := tables(); !slices.Equal(after, before) {
				t.Errorf("%s: the schema's tables went from %v to %v", st.name, before, after)
			}
		} else {
			if err != nil {
				t.Fatalf("%s: Load: %v", st.name, err)
			}
			if _, err := rdfio.Load(ctx, ref, bytes.NewReader(st.data), rdfio.LoadOptions{Format: rdfio.NTriples, Graph: st.graph}); err != nil {
				t.Fatal(err)
			}
		}
		id, ok, err := ds.Lookup(ctx, st.graph)
		if err != nil {
			t.Fatal(err)
		}
		var attached bool
		if ok {
			if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1))",
				fmt.Sprintf("%s.quads_g%d", ds.Schema(), id)).Scan(&attached); err != nil {
				t.Fatal(err)
			}
		}
		if attached != st.partition {
			t.Errorf("%s: graph %v has a partition of its own: %v; want %v", st.name, st.graph, attached, st.partition)
		}
		sameQuads(t, st.name, ds, ref)
		stats, err := ds.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		refStats, err := ref.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Quads != refStats.Quads {
			t.Errorf("%s: Stats.Quads = %d; the reference %d", st.name, stats.Quads, refStats.Quads)
		}
		// Per graph, by term (the two stores number terms differently).
		perGraph := func(ds kb.Dataset, st kb.Stats) map[kb.Term]int64 {
			out := map[kb.Term]int64{}
			for g, n := range st.ByGraph {
				term, err := ds.Resolve(ctx, g)
				if err != nil {
					t.Fatal(err)
				}
				out[term] = n
			}
			return out
		}
		if a, b := perGraph(ds, stats), perGraph(ref, refStats); !maps.Equal(a, b) {
			t.Errorf("%s: quads per graph %v; the reference %v", st.name, a, b)
		}
	}
}
