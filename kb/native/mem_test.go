package native

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"

	"github.com/perfkb/perfkb/ontology"
)

// TestDatasetPebbleMemory runs the Dataset suite on the Pebble store over
// an in-memory file system (TestDatasetMemory runs it on MemStore).
func TestDatasetPebbleMemory(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return OpenPebbleMemory() })
}

func TestKeyRange(t *testing.T) {
	a := []key32{
		{1, 1, 1, 1}, {1, 1, 2, 1}, {1, 2, 1, 1}, {2, 1, 1, 1},
		{2, 1, 1, 2}, {2, 1, 3, 1}, {3, 0, 0, 0}, {3, 1<<32 - 1, 1<<32 - 1, 1<<32 - 1},
	}
	const top = 1<<32 - 1
	for _, tc := range []struct {
		name           string
		lo, hi         key32
		wantLo, wantHi int
	}{
		{"everything", key32{}, key32{top, top, top, top}, 0, 8},
		{"first field 1", key32{1, 0, 0, 0}, key32{1, top, top, top}, 0, 3},
		{"first field 2", key32{2, 0, 0, 0}, key32{2, top, top, top}, 3, 6},
		{"prefix 2,1,1", key32{2, 1, 1, 0}, key32{2, 1, 1, top}, 3, 5},
		{"exact key", key32{2, 1, 3, 1}, key32{2, 1, 3, 1}, 5, 6},
		{"missing key", key32{2, 1, 2, 1}, key32{2, 1, 2, 1}, 5, 5},
		{"below all", key32{0, 0, 0, 0}, key32{0, top, top, top}, 0, 0},
		{"above all", key32{4, 0, 0, 0}, key32{4, top, top, top}, 8, 8},
		{"max IDs", key32{3, 0, 0, 0}, key32{3, top, top, top}, 6, 8},
		{"max key exactly", key32{3, top, top, top}, key32{3, top, top, top}, 7, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keyRange(a, tc.lo, tc.hi)
			want := a[tc.wantLo:tc.wantHi]
			if !slices.Equal(got, want) {
				t.Errorf("keyRange(%v, %v) = %v; want %v", tc.lo, tc.hi, got, want)
			}
		})
	}
	if got := keyRange(nil, key32{}, key32{top, top, top, top}); len(got) != 0 {
		t.Errorf("keyRange(nil) = %v; want empty", got)
	}
}

func TestMergeSorted(t *testing.T) {
	k := func(i uint32) key32 { return key32{i, 0, 0, 0} }
	for _, tc := range []struct {
		name          string
		old, ins, rem []key32
		want          []key32
		wantSameAsOld bool
	}{
		{"nothing", []key32{k(1), k(2)}, nil, nil, []key32{k(1), k(2)}, true},
		{"insert around", []key32{k(2), k(4)}, []key32{k(1), k(3), k(5)}, nil, []key32{k(1), k(2), k(3), k(4), k(5)}, false},
		{"remove", []key32{k(1), k(2), k(3)}, nil, []key32{k(1), k(3)}, []key32{k(2)}, false},
		{"remove all", []key32{k(1)}, nil, []key32{k(1)}, nil, false},
		{"both", []key32{k(1), k(3)}, []key32{k(2), k(4)}, []key32{k(3)}, []key32{k(1), k(2), k(4)}, false},
		{"into empty", nil, []key32{k(7)}, nil, []key32{k(7)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeSorted(tc.old, tc.ins, tc.rem)
			if !slices.Equal(got, tc.want) {
				t.Errorf("mergeSorted = %v; want %v", got, tc.want)
			}
			if same := len(got) > 0 && len(tc.old) > 0 && &got[0] == &tc.old[0]; same != tc.wantSameAsOld {
				t.Errorf("result shares old's array: %v; want %v", same, tc.wantSameAsOld)
			}
		})
	}
}

// memModel is the reference the randomized test compares MemStore with.
type memModel map[kb.Quad]bool

func (mm memModel) matches(p kb.Pattern) []kb.Quad {
	var out []kb.Quad
	for q := range mm {
		if p.Matches(q) {
			out = append(out, q)
		}
	}
	slices.SortFunc(out, cmpQuad)
	return out
}

// checkAgainstModel compares every pattern drawn from sample quads (all 16
// binding masks) and the statistics with the model.
func checkAgainstModel(t *testing.T, m *MemStore, mm memModel, sample []kb.Quad) {
	t.Helper()
	ctx := context.Background()
	for _, q := range sample {
		for mask := 0; mask < 16; mask++ {
			var p kb.Pattern
			for pos := uint8(0); pos < 4; pos++ {
				if mask&(1<<pos) != 0 {
					set((*kb.Quad)(&p), pos, at(q, pos))
				}
			}
			want := mm.matches(p)
			got, err := kb.Collect(m.Match(ctx, p))
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, cmpQuad)
			if !slices.Equal(got, want) {
				t.Fatalf("Match(%+v): %d quads; want %d", p, len(got), len(want))
			}
			n, err := m.Count(ctx, p, true)
			if err != nil || n != int64(len(want)) {
				t.Fatalf("Count(%+v) = %d, %v; want %d", p, n, err, len(want))
			}
			var scanned int
			if err := m.ScanQuads(ctx, p, func(kb.Quad) bool { scanned++; return true }); err != nil || scanned != len(want) {
				t.Fatalf("ScanQuads(%+v) saw %d, %v; want %d", p, scanned, err, len(want))
			}
		}
	}
	st, err := m.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byPG := map[[2]kb.ID]int64{}
	for q := range mm {
		byPG[[2]kb.ID{q.P, q.G}]++
	}
	if st.Quads != int64(len(mm)) || !maps2Equal(st.ByPredicateGraph, byPG) {
		t.Fatalf("Stats: %d quads, %d (p,g) pairs; want %d, %d", st.Quads, len(st.ByPredicateGraph), len(mm), len(byPG))
	}
}

func maps2Equal[K comparable](a, b map[K]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMemStoreAgainstModel applies random deltas and bulk loads and
// compares the store with a map after each step.
func TestMemStoreAgainstModel(t *testing.T) {
	ctx := context.Background()
	m := OpenMemory()
	defer m.Close()
	var terms []kb.Term
	for i := 0; i < 40; i++ {
		terms = append(terms, kb.IRI("http://example.org/t"+string(rune('A'+i))))
	}
	ids, err := m.Intern(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	randQuad := func() kb.Quad {
		// Few predicates and graphs, as in real data.
		return kb.Quad{S: ids[rng.IntN(40)], P: ids[rng.IntN(5)], O: ids[rng.IntN(40)], G: ids[35+rng.IntN(3)]}
	}
	randQuads := func(n int) []kb.Quad {
		out := make([]kb.Quad, n)
		for i := range out {
			out[i] = randQuad()
		}
		return out
	}
	mm := memModel{}
	for step := 0; step < 30; step++ {
		// Applies only at first, so the delta outgrows its limit and is
		// folded into the base; then bulk loads in between.
		switch {
		case step < 12 || step%3 != 2:
			d := kb.Delta{Remove: randQuads(rng.IntN(3000)), Add: randQuads(rng.IntN(3000))}
			if err := m.Apply(ctx, d); err != nil {
				t.Fatal(err)
			}
			for _, q := range d.Remove {
				delete(mm, q)
			}
			for _, q := range d.Add {
				mm[q] = true
			}
		default:
			bw, err := m.BeginBulk(ctx)
			if err != nil {
				t.Fatal(err)
			}
			add := randQuads(rng.IntN(5000))
			for i := 0; i < len(add); i += 700 {
				if err := bw.Add(ctx, add[i:min(i+700, len(add))]); err != nil {
					t.Fatal(err)
				}
			}
			if err := bw.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			for _, q := range add {
				mm[q] = true
			}
		}
		checkAgainstModel(t, m, mm, randQuads(8))
	}
}

// TestMemStoreSnapshots checks that an iterator keeps the snapshot of its
// Match call across Applies, bulk commits and Close, and that readers
// running beside a writer always see whole batches (run with -race).
func TestMemStoreSnapshots(t *testing.T) {
	ctx := context.Background()
	m := OpenMemory()
	ids, err := kb.InternQuads(ctx, m, genTermQuads(0, 20_000))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(ctx, kb.Delta{Add: ids[:1000]}); err != nil {
		t.Fatal(err)
	}
	held := m.Match(ctx, kb.Pattern{})
	const batch = 1000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := 0
				it := m.Match(ctx, kb.Pattern{})
				for it.Next() {
					n++
				}
				it.Close()
				if n%batch != 0 {
					t.Errorf("a reader saw %d quads: part of a batch", n)
					return
				}
			}
		}()
	}
	for i := 1000; i < len(ids); i += batch {
		if i%(2*batch) == 0 {
			err = m.Apply(ctx, kb.Delta{Add: ids[i : i+batch]})
		} else {
			var bw kb.BulkWriter
			if bw, err = m.BeginBulk(ctx); err == nil {
				if err = bw.Add(ctx, ids[i:i+batch]); err == nil {
					err = bw.Commit(ctx)
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Apply(ctx, kb.Delta{Remove: ids[:batch]}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if n, _ := m.Count(ctx, kb.Pattern{}, true); n != int64(len(ids)-batch) {
		t.Errorf("Count = %d; want %d", n, len(ids)-batch)
	}
	m.Close()
	got, err := kb.Collect(held)
	if err != nil || len(got) != 1000 {
		t.Errorf("iterator opened after the first Apply saw %d quads (%v); want its snapshot (1000)", len(got), err)
	}
}

// TestMemStoreTermOf checks the allocation-free decoding against Resolve
// for every term shape.
func TestMemStoreTermOf(t *testing.T) {
	ctx := context.Background()
	m := OpenMemory()
	defer m.Close()
	terms := []kb.Term{
		kb.IRI("http://example.org/a"), kb.Blank("b0"), kb.String(""), kb.String("plain"),
		kb.LangLiteral("hallo", "DE-at"), kb.Literal("42", ontology.XSDInteger),
		kb.Literal("x", "http://example.org/custom#type"), kb.Literal("", ontology.XSDDouble),
	}
	ids, err := m.Intern(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		got, ok := m.TermOf(id)
		if !ok || got != terms[i] {
			t.Errorf("TermOf(%d) = %v, %v; want %v", id, got, ok, terms[i])
		}
	}
	for _, id := range []kb.ID{0, ids[len(ids)-1] + 1, 1 << 40} {
		if _, ok := m.TermOf(id); ok {
			t.Errorf("TermOf(%d) found a term; want none", id)
		}
	}
	allocs := testing.AllocsPerRun(100, func() { m.TermOf(ids[4]) })
	if allocs != 0 {
		t.Errorf("TermOf allocates %v times; want 0", allocs)
	}
}

// TestSortOrders checks the counting-sort passes against a comparison sort
// of every order, with narrow IDs (one pass per field) and wide ones (two
// passes of 16-bit digits).
func TestSortOrders(t *testing.T) {
	for _, tc := range []struct {
		name string
		span uint32 // IDs are drawn from [1, span]
	}{
		{"narrow", 50},
		{"one graph", 0},
		{"wide", 1<<32 - 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(tc.span)))
			id := func() uint32 { return 1 + rng.Uint32N(max(tc.span, 1)) }
			keys := make([]key32, 5000)
			for i := range keys {
				keys[i] = key32{id(), id() % 7, id(), id() % 3}
				if tc.span == 0 {
					keys[i] = key32{uint32(i % 97), 5, uint32(i % 13), 9}
				}
			}
			want := slices.Clone(keys)
			var sc sortScratch
			spog, free := sortSPOG(keys, make([]key32, len(keys)), &sc)
			got := sortOrders(spog, free)
			for k := 0; k < numOrders; k++ {
				w := permuted(want, k)
				if k == 0 {
					slices.SortFunc(w, cmpKey)
				}
				if !slices.Equal(got[k], w) {
					t.Errorf("order %s differs from a comparison sort", orderNames[k])
				}
			}
		})
	}
}

// TestRangeQuad checks the spelt-out inverse permutations of memRange.quad
// against the orders.
func TestRangeQuad(t *testing.T) {
	q := kb.Quad{S: 1, P: 2, O: 3, G: 4}
	for k := 0; k < numOrders; k++ {
		r := memRange{order: k}
		keys := []key32{{1, 2, 3, 4}}
		out := make([]key32, 1)
		permuteCopy(out, keys, k)
		r.cur = out[0]
		if got := r.quad(); got != q {
			t.Errorf("order %s: quad() = %v; want %v", orderNames[k], got, q)
		}
	}
}
