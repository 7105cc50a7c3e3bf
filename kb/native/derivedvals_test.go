package native

import (
	"context"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestPredicateDerived checks PredicateDerived's keeping rules on the
// in-memory and a disk store: a value is built once per kind and state
// of the store, again after a write; the values kept for one state hold
// at most derivedBytesMax bytes (a value past that is returned, not
// kept), and a write frees the room.
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
	quad := func(s, o string) kb.TermQuad {
		return kb.TermQuad{S: kb.IRI("http://e/" + s), P: kb.IRI("http://e/p"), O: kb.IRI("http://e/" + o), G: kb.IRI("http://e/g")}
	}
	for name, ds := range map[string]deriver{"memory": OpenMemory(), "disk": disk} {
		write := func(q kb.TermQuad) {
			ids, err := kb.InternQuads(ctx, ds, []kb.TermQuad{q})
			if err != nil {
				t.Fatal(err)
			}
			if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
				t.Fatal(err)
			}
		}
		write(quad("s1", "o1"))
		builds := 0
		get := func(kind string, bytes int64) (int, bool) {
			t.Helper()
			v, kept, ok, err := ds.PredicateDerived(7, kind, func() (any, int64, error) {
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
			write      bool
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
			// A write: everything built again, with room for b.
			{write: true},
			{kind: "b", bytes: 30 * mib, want: 5, wantKept: true, wantBuilds: 5},
			{kind: "a", bytes: 40 * mib, want: 6, wantKept: false, wantBuilds: 6},
			{kind: "b", bytes: 30 * mib, want: 5, wantKept: true, wantBuilds: 6},
		}
		for i, st := range steps {
			if st.write {
				write(quad("s2", "o2"))
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
