package pg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
)

// TestDropGraphPartition: DROP GRAPH of a graph with a partition of its
// own drops the partition (the table is gone, not emptied); a failure
// after the drop inside the same transaction leaves the graph attached
// and whole; removing part of such a graph, or dropping a graph in the
// shared partition, deletes rows. After each step the store holds what
// the reference store given the same updates holds.
func TestDropGraphPartition(t *testing.T) {
	ctx := context.Background()
	ds := newStore(t)
	ref := kbtest.NewMemory()
	gen := func(seed uint64, triples int64) []byte {
		var buf bytes.Buffer
		if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 1, Triples: triples, Seed: seed, Format: sample.NTriples}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	load := func(data []byte, g string) {
		for _, target := range []kb.Dataset{ds, ref} {
			if _, err := rdfio.Load(ctx, target, bytes.NewReader(data), rdfio.LoadOptions{Format: rdfio.NTriples, Graph: kb.IRI(g)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	load(gen(1, 20000), "http://e/big1")
	load(gen(2, 20000), "http://e/big2")
	load(gen(3, 1500), "http://e/small")
	partition := func(g string) (exists, attached bool) {
		id, ok, err := ds.Lookup(ctx, kb.IRI(g))
		if err != nil || !ok {
			t.Fatalf("Lookup(%s): %v %v", g, ok, err)
		}
		name := fmt.Sprintf("%s.quads_g%d", ds.Schema(), id)
		if err := pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL, EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1))", name).Scan(&exists, &attached); err != nil {
			t.Fatal(err)
		}
		return exists, attached
	}
	if _, att := partition("http://e/big1"); !att {
		t.Fatal("big1 has no partition of its own after its load")
	}
	update := func(target kb.Dataset, u string) error {
		_, err := query.Update(ctx, target, u, query.Options{})
		return err
	}
	check := func(step string) {
		t.Helper()
		sameQuads(t, step, ds, ref)
		st, err := ds.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rst, err := ref.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Quads != rst.Quads || len(st.ByGraph) != len(rst.ByGraph) {
			t.Errorf("%s: Stats %d quads in %d graphs; the reference %d in %d", step, st.Quads, len(st.ByGraph), rst.Quads, len(rst.ByGraph))
		}
	}

	// A failure after the partition is dropped rolls it all back.
	errInjected := errors.New("injected after the partition drop")
	pg.SetAfterPartitionDrop(func() error { return errInjected })
	t.Cleanup(func() { pg.SetAfterPartitionDrop(nil) })
	if err := update(ds, `DROP GRAPH <http://e/big1>`); !errors.Is(err, errInjected) {
		t.Fatalf("DROP GRAPH with a failure injected: %v; want the injected error", err)
	}
	pg.SetAfterPartitionDrop(nil)
	if ex, att := partition("http://e/big1"); !ex || !att {
		t.Errorf("after a failed DROP GRAPH big1's partition exists %v, attached %v; want both", ex, att)
	}
	check("failed DROP GRAPH")

	// Part of a partitioned graph: rows go, the partition stays.
	part := `DELETE WHERE { GRAPH <http://e/big2> { ?m <http://www.par.univie.ac.at/project/scalea/perfonto#hasMetricValue> ?v } }`
	for _, target := range []kb.Dataset{ds, ref} {
		if err := update(target, part); err != nil {
			t.Fatal(err)
		}
	}
	if _, att := partition("http://e/big2"); !att {
		t.Error("removing part of big2 dropped its partition")
	}
	check("DELETE part of a partitioned graph")

	for _, u := range []string{`DROP GRAPH <http://e/big1>`, `CLEAR GRAPH <http://e/big2>`, `DROP GRAPH <http://e/small>`} {
		for _, target := range []kb.Dataset{ds, ref} {
			if err := update(target, u); err != nil {
				t.Fatalf("%s: %v", u, err)
			}
		}
		check(u)
	}
	for _, g := range []string{"http://e/big1", "http://e/big2"} {
		if ex, _ := partition(g); ex {
			t.Errorf("%s's partition table is still there after it was dropped", g)
		}
	}
	// The graph can be loaded again, into a new partition.
	load(gen(1, 20000), "http://e/big1")
	if _, att := partition("http://e/big1"); !att {
		t.Error("big1 loaded again has no partition of its own")
	}
	check("big1 loaded again")
}
