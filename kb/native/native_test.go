package native

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/ontology"
)

func openDisk(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDatasetDisk(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return openDisk(t) })
}

func TestDatasetMemory(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return OpenMemory() })
}

// TestDatasetReopened runs the suite on a store that was closed and
// reopened with data in it, so the dictionary is read back from disk
// rather than held complete in memory.
func TestDatasetReopened(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset {
		ctx := context.Background()
		dir := filepath.Join(t.TempDir(), "db")
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Intern(ctx, []kb.Term{kb.IRI("urn:x-test:warmup")}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err = Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestIDEncodingOrder(t *testing.T) {
	ids := []kb.ID{1, 2, 127, 128, 255, 256, 65535, 65536, 1 << 24, 1<<32 - 1, 1 << 32, 1<<56 + 3, 1<<64 - 1}
	var prev []byte
	for _, id := range ids {
		enc := appendID(nil, id)
		if prev != nil && string(prev) >= string(enc) {
			t.Errorf("encoding of %d (%x) does not sort after the previous one (%x)", id, enc, prev)
		}
		got, rest, err := readID(enc)
		if err != nil || got != id || len(rest) != 0 {
			t.Errorf("readID(appendID(%d)) = %d, %x, %v", id, got, rest, err)
		}
		prev = enc
	}
}

func TestTermEncodingRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		term kb.Term
	}{
		{"iri", kb.IRI("http://example.org/a")},
		{"blank", kb.Blank("b0")},
		{"string", kb.String("hello\x00world")},
		{"empty string", kb.String("")},
		{"lang", kb.LangLiteral("bonjour", "FR-be")},
		{"integer", kb.Literal("007", ontology.XSDInteger)},
		{"double", kb.Literal("1.5e3", ontology.XSDDouble)},
		{"custom type", kb.Literal("x", "http://example.org/type")},
		{"dir lang", kb.DirLangLiteral("x", "ar", "rtl")},
		{"dir lang, empty", kb.DirLangLiteral("", "en", "ltr")},
		{"triple term", kb.TripleTerm(kb.Blank("b"), kb.IRI("http://e/p"), kb.DirLangLiteral("x", "en", "ltr"))},
		{"nested triple term", kb.TripleTerm(kb.TripleTerm(kb.IRI("http://e/s"), kb.IRI("http://e/p"), kb.String("o")), kb.IRI("http://e/p"), kb.IRI("http://e/o"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := appendTerm(nil, tc.term)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeTerm(enc)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.term {
				t.Errorf("decodeTerm(appendTerm(%v)) = %#v; want %#v", tc.term, got, tc.term)
			}
			if shared, ok := decodeTermShared(enc); !ok || shared != tc.term {
				t.Errorf("decodeTermShared(appendTerm(%v)) = %#v, %v; want %#v", tc.term, shared, ok, tc.term)
			}
		})
	}
}

func TestPlansUseExactPrefixes(t *testing.T) {
	for mask := 0; mask < 16; mask++ {
		n := 0
		for i := 0; i < 4; i++ {
			if mask&(1<<i) != 0 {
				n++
			}
		}
		if got := plans[mask].prefix; got != n {
			t.Errorf("mask %04b: index %s binds %d leading positions; want all %d bound ones",
				mask, orderNames[plans[mask].order], got, n)
		}
	}
}

// TestReopen checks that data, counters and the dictionary survive Close
// and Open, and that IDs issued after reopening do not collide.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	quads := genTermQuads(0, 500)
	ids, err := kb.InternQuads(ctx, s, quads[:250])
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	bulkIDs, err := kb.InternQuads(ctx, s, quads[250:])
	if err != nil {
		t.Fatal(err)
	}
	bw, err := s.BeginBulk(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.Add(ctx, bulkIDs); err != nil {
		t.Fatal(err)
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	unused, err := s.Intern(ctx, []kb.Term{kb.IRI("urn:x-test:interned-only")})
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Quads != int64(len(quads)) || after.Quads != before.Quads || len(after.ByPredicateGraph) != len(before.ByPredicateGraph) {
		t.Errorf("after reopen: %d quads, %d (p,g) counters; before: %d, %d; want %d quads",
			after.Quads, len(after.ByPredicateGraph), before.Quads, len(before.ByPredicateGraph), len(quads))
	}
	// Interning stored terms after reopening finds their IDs on disk.
	again, err := kb.InternQuads(ctx, s, append(slices.Clone(quads), quads[:20]...))
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range again {
		if got, err := kb.ResolveQuad(ctx, s, q); err != nil || got != quads[i%len(quads)] {
			t.Fatalf("re-interned quad %d resolves to %v, %v; want %v", i, got, err, quads[i%len(quads)])
		}
	}
	if n, err := s.Count(ctx, kb.Pattern{}, true); err != nil || n != int64(len(quads)) {
		t.Errorf("Count after re-interning = %d, %v; want %d", n, err, len(quads))
	}
	if err := s.Apply(ctx, kb.Delta{Add: again}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(ctx, kb.Pattern{}, true); err != nil || n != int64(len(quads)) {
		t.Errorf("re-adding stored quads changed the count to %d, %v; want %d", n, err, len(quads))
	}
	for _, tq := range quads {
		var q kb.Quad
		for i, term := range []kb.Term{tq.S, tq.P, tq.O, tq.G} {
			id, ok, err := s.Lookup(ctx, term)
			if err != nil || !ok {
				t.Fatalf("Lookup(%v) after reopen = %d, %v, %v", term, id, ok, err)
			}
			set(&q, uint8(i), id)
		}
		got, err := kb.Collect(s.Match(ctx, kb.Pattern(q)))
		if err != nil || len(got) != 1 {
			t.Fatalf("Match(%v) after reopen = %v, %v; want the quad", tq, got, err)
		}
		back, err := kb.ResolveQuad(ctx, s, q)
		if err != nil || back != tq {
			t.Fatalf("ResolveQuad after reopen = %v, %v; want %v", back, err, tq)
		}
	}
	// A term no stored quad uses is not stored (dictsave.go): after a
	// reopen it is unknown, and its ID may be issued again.
	if term, err := s.Resolve(ctx, unused[0]); !errors.Is(err, kb.ErrUnknownID) {
		t.Errorf("Resolve(interned-only term) after reopen = %v, %v; want kb.ErrUnknownID", term, err)
	}
	if _, ok, err := s.Lookup(ctx, kb.IRI("urn:x-test:interned-only")); ok || err != nil {
		t.Errorf("Lookup(interned-only term) after reopen = %v, %v; want not found", ok, err)
	}
	fresh, err := s.Intern(ctx, []kb.Term{kb.IRI("urn:x-test:after-reopen")})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range append(ids, bulkIDs...) {
		if fresh[0] <= id.S || fresh[0] <= id.P || fresh[0] <= id.O || fresh[0] <= id.G {
			t.Fatalf("ID issued after reopen %d does not follow the stored IDs (quad %v)", fresh[0], id)
		}
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := kb.InternQuads(ctx, s, genTermQuads(0, 10))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n, err := ro.Count(ctx, kb.Pattern{}, true); err != nil || n != 10 {
		t.Errorf("Count on read-only store = %d, %v; want 10", n, err)
	}
	if err := ro.Apply(ctx, kb.Delta{Add: ids}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Apply on read-only store = %v; want ErrReadOnly", err)
	}
}

// TestBulkIntoNonEmpty checks that a bulk load into a store with data keeps
// exact counts when it repeats stored quads.
func TestBulkIntoNonEmpty(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		open func(t testing.TB) *Store
	}{
		{"disk", openDisk},
		{"memory", func(testing.TB) *Store { return OpenPebbleMemory() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.open(t)
			defer s.Close()
			all, err := kb.InternQuads(ctx, s, genTermQuads(0, 3000))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(ctx, kb.Delta{Add: all[:1000]}); err != nil {
				t.Fatal(err)
			}
			bw, err := s.BeginBulk(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range [][]kb.Quad{all[500:2000], all[1500:3000], all[:10]} {
				if err := bw.Add(ctx, chunk); err != nil {
					t.Fatal(err)
				}
			}
			if n, _ := s.Count(ctx, kb.Pattern{}, true); n != 1000 {
				t.Errorf("before Commit: %d quads visible; want 1000", n)
			}
			if err := bw.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			got, err := kb.Collect(s.Match(ctx, kb.Pattern{}))
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(all)
			slices.SortFunc(want, cmpQuad)
			slices.SortFunc(got, cmpQuad)
			if !slices.Equal(got, want) {
				t.Errorf("after bulk: %d quads; want %d", len(got), len(want))
			}
			st, err := s.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Quads != 3000 {
				t.Errorf("Stats.Quads = %d; want 3000", st.Quads)
			}
			for p, n := range st.ByPredicate {
				c, err := kb.Collect(s.Match(ctx, kb.Pattern{P: p}))
				if err != nil || int64(len(c)) != n {
					t.Errorf("predicate %d: counter %d, %d matches (%v)", p, n, len(c), err)
				}
			}
		})
	}
}

func TestIndexKeyRoundTrip(t *testing.T) {
	q := kb.Quad{S: 1, P: 300, O: 1 << 40, G: 70000}
	for k := 0; k < numOrders; k++ {
		got, err := decodeIndexKey(k, appendIndexKey(nil, k, q))
		if err != nil || got != q {
			t.Errorf("index %s: decode(encode(%v)) = %v, %v", orderNames[k], q, got, err)
		}
	}
	if _, err := decodeIndexKey(0, []byte{prefixIndex, 9}); err == nil {
		t.Error("decodeIndexKey accepted a corrupt key")
	}
}

// genTermQuads generates PERFONTO-like quads: experiments (one graph each)
// with runs, each run with metric measurements on processes. Every quad is
// distinct.
func genTermQuads(start, n int) []kb.TermQuad {
	const (
		po  = "http://perfkb.org/ontology#"
		dat = "http://perfkb.org/data/"
		rdf = ontology.RDFType
	)
	metrics := []string{"TIME", "PAPI_FP_OPS", "PAPI_L2_DCM", "MPI_Wait", "bytes_sent", "visits"}
	out := make([]kb.TermQuad, 0, n)
	for i := start; len(out) < n; i++ {
		exp := i / 100000
		g := kb.IRI(fmt.Sprintf("%sexperiment/%d", dat, exp))
		m := kb.IRI(fmt.Sprintf("%sexperiment/%d/measurement/%d", dat, exp, i))
		run := kb.IRI(fmt.Sprintf("%sexperiment/%d/run/%d", dat, exp, i/1000))
		proc := kb.IRI(fmt.Sprintf("%sexperiment/%d/run/%d/process/%d", dat, exp, i/1000, i%64))
		event := kb.IRI(fmt.Sprintf("%sevent/%d", dat, i%500))
		rows := []kb.TermQuad{
			{S: m, P: kb.IRI(rdf), O: kb.IRI(po + "Measurement"), G: g},
			{S: m, P: kb.IRI(po + "inRun"), O: run, G: g},
			{S: m, P: kb.IRI(po + "onProcess"), O: proc, G: g},
			{S: m, P: kb.IRI(po + "ofEvent"), O: event, G: g},
			{S: m, P: kb.IRI(po + "metric"), O: kb.IRI(po + metrics[i%len(metrics)]), G: g},
			{S: m, P: kb.IRI(po + "value"), O: kb.Literal(fmt.Sprintf("%d.%03d", i%9973, i%1000), ontology.XSDDouble), G: g},
			{S: m, P: kb.IRI(po + "label"), O: kb.LangLiteral(fmt.Sprintf("measurement %d", i), "en"), G: g},
			{S: m, P: kb.IRI(po + "rank"), O: kb.Literal(fmt.Sprint(i%64), ontology.XSDInteger), G: g},
			{S: m, P: kb.IRI(po + "region"), O: kb.String(fmt.Sprintf("region_%d", i%500)), G: kb.DefaultGraph},
			{S: m, P: kb.IRI(po + "note"), O: kb.String(fmt.Sprintf("sample %d", i)), G: g},
		}
		for _, r := range rows {
			if len(out) == n {
				break
			}
			out = append(out, r)
		}
	}
	return out
}

// TestPooledIteratorsSeeWrites checks that iterators reused from the pool
// never show a state older than the last acknowledged write, and that an
// open iterator keeps its snapshot.
func TestPooledIteratorsSeeWrites(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		open func(t testing.TB) *Store
	}{
		{"disk", openDisk},
		{"memory", func(testing.TB) *Store { return OpenPebbleMemory() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.open(t)
			defer s.Close()
			ids, err := kb.InternQuads(ctx, s, genTermQuads(0, 40))
			if err != nil {
				t.Fatal(err)
			}
			p := kb.Pattern{P: ids[0].P}
			held := s.Match(ctx, p) // open across the writes below: a snapshot of nothing
			for i, q := range ids {
				if i%10 != 0 {
					continue
				}
				for j := 0; j < 3; j++ { // fill the pool
					if _, err := kb.Collect(s.Match(ctx, p)); err != nil {
						t.Fatal(err)
					}
				}
				if i%20 == 0 {
					err = s.Apply(ctx, kb.Delta{Add: []kb.Quad{q}})
				} else {
					var bw kb.BulkWriter
					if bw, err = s.BeginBulk(ctx); err == nil {
						if err = bw.Add(ctx, []kb.Quad{q}); err == nil {
							err = bw.Commit(ctx)
						}
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := kb.Collect(s.Match(ctx, p))
				if err != nil {
					t.Fatal(err)
				}
				if want := i/10 + 1; len(got) != want {
					t.Fatalf("after write %d: %d matches; want %d", i/10+1, len(got), want)
				}
				if ok, err := s.has(q); err != nil || !ok {
					t.Fatalf("has(%v) after writing it = %v, %v", q, ok, err)
				}
			}
			if got, err := kb.Collect(held); err != nil || len(got) != 0 {
				t.Errorf("iterator opened before the writes saw %d quads (%v); want its snapshot (0)", len(got), err)
			}
		})
	}
}
