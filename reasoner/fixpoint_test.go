package reasoner

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestRunSkipsAStoreAtItsFixpoint runs programs over one store again and
// again with writes between the runs. A run of a program over a store
// that has not changed since that program reached its fixpoint must stop
// at once (UpToDate) and derive nothing; after any write outside the
// derivations graph it must reason again, and derive exactly what the
// hand-computed closure says is missing. The store is a Pebble store
// reopened before every run (the marker is read from disk) and a memory
// store; the final inferred graph must equal a fresh store's full run.
func TestRunSkipsAStoreAtItsFixpoint(t *testing.T) {
	const (
		trans   = `[trans: (?x ex:before ?y), (?y ex:before ?z) -> (?x ex:before ?z)]`
		inverse = trans + "\n" + `[inv: (?x ex:before ?y) -> (?y ex:after ?x)]`
		clock   = `[stamp: (?x ex:before ?y), now(?t) -> (?x ex:seen ex:yes)]`
	)
	g := kb.IRI("http://example.org/g")
	other := kb.IRI("http://example.org/other")
	before := ex("before")
	tr := func(s, o string) kb.TermQuad {
		return kb.TermQuad{S: ex(s), P: before, O: ex(o), G: g}
	}
	type step struct {
		name string
		// add and remove change the store before the run.
		add, remove []kb.TermQuad
		rules       string
		upToDate    bool
		derived     int64
	}
	steps := []step{
		{name: "first run", rules: trans, derived: 1}, // a<c
		{name: "unchanged", rules: trans, upToDate: true},
		{name: "asserted triple added", add: []kb.TermQuad{tr("c", "d")}, rules: trans, derived: 2}, // a<d, b<d
		{name: "unchanged after the addition", rules: trans, upToDate: true},
		// The write the shortcut must not miss: a derived triple deleted
		// from the inferred graph still follows and comes back.
		{name: "derived triple deleted", remove: []kb.TermQuad{{S: ex("a"), P: before, O: ex("c"), G: kb.InferredGraph}}, rules: trans, derived: 1},
		{name: "unchanged after the rederivation", rules: trans, upToDate: true},
		// A write the rules cannot use still makes the run reason again.
		{name: "unrelated triple added", add: []kb.TermQuad{{S: ex("x"), P: ex("label"), O: kb.Literal("x", ""), G: other}}, rules: trans},
		{name: "unchanged after the unrelated write", rules: trans, upToDate: true},
		{name: "another program", rules: inverse, derived: 6}, // ?y after ?x for each of the 6 pairs
		{name: "the first program after the other changed the store", rules: trans},
		{name: "the first program again", rules: trans, upToDate: true},
		// The first program's run changed nothing, so the other's marker
		// still holds.
		{name: "the other program again", rules: inverse, upToDate: true},
		// The same triple in another graph: the closure is the same, the
		// store is not.
		{name: "asserted triple moved to another graph", remove: []kb.TermQuad{tr("a", "b")}, add: []kb.TermQuad{{S: ex("a"), P: before, O: ex("b"), G: other}}, rules: inverse},
		// The derivations graph is not read by rules: writing there keeps
		// the fixpoint.
		{name: "derivations graph written", add: []kb.TermQuad{{S: ex("note"), P: ex("p"), O: ex("q"), G: DerivationsGraph}}, rules: inverse, upToDate: true},
		{name: "a program that reads the clock", rules: clock, derived: 3},
		{name: "a program that reads the clock, unchanged store", rules: clock},
	}
	for _, kind := range []string{"pebble", "memory"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "store")
			mem := native.OpenMemory()
			open := func() kb.Dataset {
				if kind == "memory" {
					return mem
				}
				ds, err := native.Open(ctx, dir, native.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}
			closeDS := func(ds kb.Dataset) {
				if kind == "pebble" {
					if err := ds.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
			ds := open()
			if _, err := rdfio.Load(ctx, ds, strings.NewReader("<http://example.org/a> <http://example.org/before> <http://example.org/b> .\n<http://example.org/b> <http://example.org/before> <http://example.org/c> .\n"),
				rdfio.LoadOptions{Format: rdfio.NTriples, Graph: g}); err != nil {
				t.Fatal(err)
			}
			closeDS(ds)
			for _, st := range steps {
				ds := open()
				if err := applyTermQuads(ctx, ds, st.add, st.remove); err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				sum, err := Run(ctx, ds, mustProgram(t, st.rules), Options{})
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				if sum.UpToDate != st.upToDate || sum.Derived != st.derived {
					t.Errorf("%s: UpToDate %v, derived %d; want %v, %d", st.name, sum.UpToDate, sum.Derived, st.upToDate, st.derived)
				}
				closeDS(ds)
			}
			// The closure equals a full run over the asserted data alone.
			ds = open()
			defer closeDS(ds)
			got := graphTriples(t, ds, kb.InferredGraph)
			fresh := native.OpenMemory()
			asserted := append(graphTermQuads(t, ds, g), graphTermQuads(t, ds, other)...)
			if err := applyTermQuads(ctx, fresh, asserted, nil); err != nil {
				t.Fatal(err)
			}
			for _, rules := range []string{inverse, clock} {
				if _, err := Run(ctx, fresh, mustProgram(t, rules), Options{}); err != nil {
					t.Fatal(err)
				}
			}
			if want := graphTriples(t, fresh, kb.InferredGraph); !slices.Equal(got, want) {
				t.Errorf("inferred graph after the steps:\n%s\nwant (a fresh run):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// applyTermQuads interns and applies one delta of term quads.
func applyTermQuads(ctx context.Context, ds kb.Dataset, add, remove []kb.TermQuad) error {
	var d kb.Delta
	for _, list := range []struct {
		in  []kb.TermQuad
		out *[]kb.Quad
	}{{add, &d.Add}, {remove, &d.Remove}} {
		for _, q := range list.in {
			ids, err := ds.Intern(ctx, []kb.Term{q.S, q.P, q.O, q.G})
			if err != nil {
				return err
			}
			*list.out = append(*list.out, kb.Quad{S: ids[0], P: ids[1], O: ids[2], G: ids[3]})
		}
	}
	if len(d.Add) == 0 && len(d.Remove) == 0 {
		return nil
	}
	return ds.Apply(ctx, d)
}

// graphTermQuads returns the quads of graph g as terms.
func graphTermQuads(t *testing.T, ds kb.Dataset, g kb.Term) []kb.TermQuad {
	t.Helper()
	ctx := context.Background()
	id, ok, err := ds.Lookup(ctx, g)
	if err != nil || !ok {
		t.Fatalf("graph %s: %v %v", g, ok, err)
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: id}))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]kb.TermQuad, len(quads))
	for i, q := range quads {
		if out[i], err = kb.ResolveQuad(ctx, ds, q); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// graphScans counts the Match calls that read a whole graph.
type graphScans struct {
	kb.Dataset
	n int
}

func (d *graphScans) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	if p.S == kb.Any && p.P == kb.Any && p.O == kb.Any && p.G != kb.Any {
		d.n++
	}
	return d.Dataset.Match(ctx, p)
}

// TestRunDigestsWhatItLoadsAndWrites: a run that derives triples writes
// its fixpoint marker from the digest of what it loaded and wrote, so it
// reads each graph of the store once (to load it), not a second time for
// the marker; and that marker is the store's digest as a scan computes it
// (storeDigest is the oracle), so the next run stops at once.
func TestRunDigestsWhatItLoadsAndWrites(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, rules string
		opts        Options
	}{
		{name: "closure", rules: `[t: (?x ex:next ?y), (?y ex:next ?z) -> (?x ex:next ?z)]`},
		{name: "without derivations", rules: `[t: (?x ex:next ?y), (?y ex:next ?z) -> (?x ex:next ?z)]`, opts: Options{NoDerivations: true}},
		{name: "helper graph", rules: `[h: (?x ex:next ?y) -> (?x <urn:x-perfkb:rules:near> ?y)]
[u: (?x <urn:x-perfkb:rules:near> ?y) -> (?y ex:after ?x)]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := loadTurtle(t, `ex:a ex:next ex:b . ex:b ex:next ex:c . ex:c ex:next ex:d .`)
			ds := &graphScans{Dataset: mem}
			sum, err := Run(ctx, ds, mustProgram(t, tc.rules), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Derived == 0 {
				t.Fatalf("the run derived nothing")
			}
			if ds.n != 1 {
				t.Errorf("the run read a whole graph %d times, want 1 (loading the one asserted graph)", ds.n)
			}
			derivG, _, err := mem.Lookup(ctx, DerivationsGraph)
			if err != nil {
				t.Fatal(err)
			}
			want, err := storeDigest(ctx, mem, derivG)
			if err != nil {
				t.Fatal(err)
			}
			_, ms, err := fixpointMarkers(ctx, mem)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 1 || ms[0].digest != want {
				t.Fatalf("markers %+v, want one with the store's digest %+v", ms, want)
			}
			again, err := Run(ctx, ds, mustProgram(t, tc.rules), tc.opts)
			if err != nil || !again.UpToDate {
				t.Fatalf("second run: up to date %v, err %v", again.UpToDate, err)
			}
		})
	}
}
