package native

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// TestPredicateDerived checks PredicateDerived's keeping rules on the
// in-memory and a disk store: a value is built once per kind and state
// of its predicate's quads, again after a write that adds or removes one
// of them, not after writes to other predicates; the values kept hold at
// most derivedBytesMax bytes (a value past that is returned, not kept),
// and a write frees the room of the values it drops.
func TestPredicateDerived(t *testing.T) {
	ctx := context.Background()
	disk, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	type deriver interface {
		kb.Dataset
		PredicateDerived(p kb.ID, kind string, build func() (any, int64, error)) (any, bool, bool, error)
	}
	quad := func(p, s, o string) kb.TermQuad {
		return kb.TermQuad{S: kb.IRI("http://e/" + s), P: kb.IRI("http://e/" + p), O: kb.IRI("http://e/" + o), G: kb.IRI("http://e/g")}
	}
	for name, ds := range map[string]deriver{"memory": OpenMemory(), "disk": disk} {
		apply := func(del bool, q kb.TermQuad) {
			ids, err := kb.InternQuads(ctx, ds, []kb.TermQuad{q})
			if err != nil {
				t.Fatal(err)
			}
			d := kb.Delta{Add: ids}
			if del {
				d = kb.Delta{Remove: ids}
			}
			if err := ds.Apply(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		apply(false, quad("p", "s1", "o1"))
		apply(false, quad("q", "s1", "o1"))
		p, known, err := ds.Lookup(ctx, kb.IRI("http://e/p"))
		if err != nil || !known {
			t.Fatalf("%s: p not found: %v", name, err)
		}
		builds := 0
		get := func(kind string, bytes int64) (int, bool) {
			t.Helper()
			v, kept, ok, err := ds.PredicateDerived(p, kind, func() (any, int64, error) {
				builds++
				return builds, bytes, nil
			})
			if err != nil || !ok {
				t.Fatalf("%s: %s: ok %v, %v", name, kind, ok, err)
			}
			return v.(int), kept
		}
		const mib = 1 << 20
		steps := []struct {
			write      string // "other", "add", "del": a write, to q or p
			kind       string
			bytes      int64
			want       int // the value: the build that made it
			wantKept   bool
			wantBuilds int
		}{
			{kind: "a", bytes: 40 * mib, want: 1, wantKept: true, wantBuilds: 1},
			{kind: "a", bytes: 40 * mib, want: 1, wantKept: true, wantBuilds: 1},
			// 40 + 30 MiB is past 64: built, not kept, built again.
			{kind: "b", bytes: 30 * mib, want: 2, wantKept: false, wantBuilds: 2},
			{kind: "b", bytes: 30 * mib, want: 3, wantKept: false, wantBuilds: 3},
			{kind: "c", bytes: 24 * mib, want: 4, wantKept: true, wantBuilds: 4},
			{kind: "c", bytes: 24 * mib, want: 4, wantKept: true, wantBuilds: 4},
			// Writes to another predicate keep p's values (and use none
			// of their room).
			{write: "other"},
			{kind: "a", bytes: 40 * mib, want: 1, wantKept: true, wantBuilds: 4},
			{write: "other"},
			{kind: "c", bytes: 24 * mib, want: 4, wantKept: true, wantBuilds: 4},
			{kind: "b", bytes: 30 * mib, want: 5, wantKept: false, wantBuilds: 5},
			// A write to p: everything built again, with room for b.
			{write: "add"},
			{kind: "b", bytes: 30 * mib, want: 6, wantKept: true, wantBuilds: 6},
			{kind: "a", bytes: 40 * mib, want: 7, wantKept: false, wantBuilds: 7},
			{kind: "b", bytes: 30 * mib, want: 6, wantKept: true, wantBuilds: 7},
			// Removing one of p's quads drops them too.
			{write: "del"},
			{kind: "b", bytes: 30 * mib, want: 8, wantKept: true, wantBuilds: 8},
		}
		others := 0
		for i, st := range steps {
			switch st.write {
			case "other":
				others++
				apply(false, quad("q", fmt.Sprint("t", others), "o"))
				continue
			case "add":
				apply(false, quad("p", "s2", "o2"))
				continue
			case "del":
				apply(true, quad("p", "s1", "o1"))
				continue
			}
			v, kept := get(st.kind, st.bytes)
			if v != st.want || kept != st.wantKept || builds != st.wantBuilds {
				t.Errorf("%s step %d (%s): value %d kept %v after %d builds, want %d %v %d", name, i, st.kind, v, kept, builds, st.want, st.wantKept, st.wantBuilds)
			}
		}
		if name == "memory" {
			ds.Close()
		}
	}
}

// TestPredicateUnchanged checks the state token a value built outside
// PredicateDerived is checked against, and that a count over a whole
// graph (ObjectKindCount), which no one predicate's quads decide, follows
// a write to any predicate.
func TestPredicateUnchanged(t *testing.T) {
	ctx := context.Background()
	disk, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	type stater interface {
		kb.Dataset
		PredicateState() any
		PredicateUnchanged(state any, p kb.ID) bool
		ObjectKindCount(kind kb.TermKind, g kb.ID, hidden []kb.ID) (int64, bool, error)
	}
	for name, ds := range map[string]stater{"memory": OpenMemory(), "disk": disk} {
		add := func(p string, o kb.Term) {
			ids, err := kb.InternQuads(ctx, ds, []kb.TermQuad{{S: kb.IRI("http://e/s"), P: kb.IRI("http://e/" + p), O: o, G: kb.IRI("http://e/g")}})
			if err != nil {
				t.Fatal(err)
			}
			if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
				t.Fatal(err)
			}
		}
		id := func(p string) kb.ID {
			i, ok, err := ds.Lookup(ctx, kb.IRI("http://e/"+p))
			if err != nil || !ok {
				t.Fatalf("%s: %s: %v", name, p, err)
			}
			return i
		}
		literals := func() int64 {
			n, ok, err := ds.ObjectKindCount(kb.KindLiteral, kb.Any, nil)
			if err != nil || !ok {
				t.Fatalf("%s: ObjectKindCount: %v, %v", name, ok, err)
			}
			return n
		}
		add("p", kb.Literal("1", ""))
		add("q", kb.Literal("1", ""))
		p, q := id("p"), id("q")
		state := ds.PredicateState()
		if n := literals(); n != 2 {
			t.Errorf("%s: %d literal objects, want 2", name, n)
		}
		if !ds.PredicateUnchanged(state, p) || !ds.PredicateUnchanged(state, q) {
			t.Errorf("%s: p or q changed with no write", name)
		}
		add("q", kb.Literal("2", ""))
		if !ds.PredicateUnchanged(state, p) || ds.PredicateUnchanged(state, q) {
			t.Errorf("%s: after a write to q: p unchanged %v, q unchanged %v; want true, false", name, ds.PredicateUnchanged(state, p), ds.PredicateUnchanged(state, q))
		}
		if n := literals(); n != 3 {
			t.Errorf("%s: after a write to q: %d literal objects, want 3", name, n)
		}
		if ds.PredicateUnchanged(nil, p) {
			t.Errorf("%s: no state counts as unchanged", name)
		}
		if name == "memory" {
			ds.Close()
		}
	}
}

// TestDerivedBuildOutsideLock: a build of one derived value does not hold
// up a query reading another (the cache's lock is not held while it
// builds), and callers asking for the value under construction wait for
// that build rather than building it again.
func TestDerivedBuildOutsideLock(t *testing.T) {
	ctx := context.Background()
	ds := OpenMemory()
	defer ds.Close()
	ids, err := kb.InternQuads(ctx, ds, []kb.TermQuad{
		{S: kb.IRI("http://e/s"), P: kb.IRI("http://e/p"), O: kb.IRI("http://e/o"), G: kb.IRI("http://e/g")},
		{S: kb.IRI("http://e/s"), P: kb.IRI("http://e/q"), O: kb.IRI("http://e/o"), G: kb.IRI("http://e/g")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	p, q := ids[0].P, ids[1].P
	if _, _, _, err := ds.PredicateDerived(q, "other", func() (any, int64, error) { return "q's", 8, nil }); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	var builds atomic.Int32
	slow := func() (any, int64, error) {
		if builds.Add(1) == 1 {
			close(started)
		}
		<-release
		return "p's", 8, nil
	}
	results := make(chan any, 2)
	for range 2 {
		go func() {
			v, _, _, err := ds.PredicateDerived(p, "slow", slow)
			if err != nil {
				t.Error(err)
			}
			results <- v
		}()
	}
	<-started
	// While p's value is being built, q's kept value is read at once.
	read := make(chan any, 1)
	go func() {
		v, kept, _, _ := ds.PredicateDerived(q, "other", func() (any, int64, error) { return "rebuilt", 8, nil })
		if !kept {
			v = "not kept"
		}
		read <- v
	}()
	select {
	case v := <-read:
		if v != "q's" {
			t.Errorf("q's value read during p's build: %v, want the kept \"q's\"", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading q's kept value waited for p's build")
	}
	close(release)
	for range 2 {
		if v := <-results; v != "p's" {
			t.Errorf("p's value: %v", v)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("p's value was built %d times for two callers at once, want 1", n)
	}
}
