package native

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

func TestGallopKey(t *testing.T) {
	// First fields 1 3 3 5 7 9 9 9 12 (indexes 0..8).
	var a []key32
	for _, f := range []uint32{1, 3, 3, 5, 7, 9, 9, 9, 12} {
		a = append(a, key32{f})
	}
	for _, tc := range []struct {
		from int
		k    uint32
		want int
	}{
		{0, 0, 0}, {0, 1, 0}, {0, 2, 1}, {0, 3, 1}, {0, 4, 3},
		{1, 3, 1}, {1, 9, 5}, {3, 9, 5}, {5, 9, 5}, {0, 10, 8},
		{0, 12, 8}, {0, 13, 9}, {4, 13, 9}, {8, 12, 8}, {9, 20, 9},
		{2, 6, 4}, {6, 11, 8},
	} {
		if got := gallopKey(a, tc.from, key32{tc.k}); got != tc.want {
			t.Errorf("gallopKey(from %d, %d) = %d, want %d", tc.from, tc.k, got, tc.want)
		}
	}
}

// TestScanCursor probes one cursor in a sequence that moves forward,
// repeats, moves back, leaves the predicate's range, finds nothing, and
// reads a new snapshot after writes, against answers worked out from
// how the data is made: predicate 100 gives subject 10000+i the object
// 20000+i/2 (i < 5000, enough to be folded into the sorted base), so
// object 20000+j has subjects 10000+2j and 10000+2j+1; predicate 101
// gives subject 10000+i the object 20000+i for i < 4.
func TestScanCursor(t *testing.T) {
	ctx := context.Background()
	const g = 7
	var quads []kb.Quad
	for i := range kb.ID(5000) {
		quads = append(quads, kb.Quad{S: 10000 + i, P: 100, O: 20000 + i/2, G: g})
	}
	for i := range kb.ID(4) {
		quads = append(quads, kb.Quad{S: 10000 + i, P: 101, O: 20000 + i, G: g})
	}
	type probe struct {
		p    kb.Pattern
		want []kb.ID // the subjects (objects where the subject is bound), sorted
	}
	obj := func(p, o kb.ID, want ...kb.ID) probe { return probe{kb.Pattern{P: p, O: o}, want} }
	subj := func(s, p kb.ID, want ...kb.ID) probe { return probe{kb.Pattern{S: s, P: p}, want} }
	before := []probe{
		obj(100, 20000, 10000, 10001),
		obj(100, 20001, 10002, 10003),
		obj(100, 20001, 10002, 10003),
		obj(100, 20050, 10100, 10101),
		obj(100, 20051, 10102, 10103),
		obj(100, 21000, 12000, 12001),
		obj(100, 20003, 10006, 10007), // back
		obj(100, 22499, 14998, 14999),
		obj(100, 22500),               // past the last
		obj(100, 19999),               // below the first
		obj(101, 20002, 10002),        // another range
		obj(100, 20010, 10020, 10021), // back to the first
		obj(100, 20011, 10022, 10023),
		obj(101, 20001, 10001),
		obj(101, 20003, 10003),
		obj(101, 20004),
		subj(10005, 100, 20002),
		subj(10006, 100, 20003),
		subj(10003, 101, 20003),
		subj(10003, 100, 20001),
		subj(10003, 102),
	}
	// Then remove 10101's quad and add 5000's under object 20050, and
	// 10001's second object under predicate 101.
	write := kb.Delta{
		Remove: []kb.Quad{{S: 10101, P: 100, O: 20050, G: g}},
		Add:    []kb.Quad{{S: 5000, P: 100, O: 20050, G: g}, {S: 10001, P: 101, O: 20003, G: g}},
	}
	after := []probe{
		obj(100, 20049, 10098, 10099),
		obj(100, 20050, 5000, 10100),
		obj(100, 20051, 10102, 10103),
		obj(100, 20050, 5000, 10100),
		obj(101, 20003, 10001, 10003),
		subj(10001, 101, 20001, 20003),
	}
	stores := map[string]func() (kb.Dataset, interface{ NewScanCursor() kb.QuadScanner }){
		"memory": func() (kb.Dataset, interface{ NewScanCursor() kb.QuadScanner }) {
			m := OpenMemory()
			return m, m
		},
		"pebble-memory": func() (kb.Dataset, interface{ NewScanCursor() kb.QuadScanner }) {
			s := OpenPebbleMemory()
			return s, s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ds, cs := open()
			defer ds.Close()
			// The data's numbers are the terms http://ex/N, N ascending with
			// their IDs.
			var terms []kb.Term
			for n := range 22501 {
				terms = append(terms, kb.Term{Kind: kb.KindIRI, Value: "http://ex/" + strconv.Itoa(n)})
			}
			ids, err := ds.Intern(ctx, terms)
			if err != nil {
				t.Fatal(err)
			}
			num := map[kb.ID]kb.ID{}
			for n, id := range ids {
				num[id] = kb.ID(n)
			}
			toIDs := func(qs []kb.Quad) []kb.Quad {
				out := make([]kb.Quad, len(qs))
				for i, q := range qs {
					out[i] = kb.Quad{S: ids[q.S], P: ids[q.P], O: ids[q.O], G: ids[q.G]}
				}
				return out
			}
			pat := func(p kb.Pattern) kb.Pattern {
				for _, x := range []*kb.ID{&p.S, &p.P, &p.O} {
					if *x != kb.Any {
						*x = ids[*x]
					}
				}
				return p
			}
			if err := ds.Apply(ctx, kb.Delta{Add: toIDs(quads)}); err != nil {
				t.Fatal(err)
			}
			cur, counter := cs.NewScanCursor(), cs.NewScanCursor()
			check := func(step string, i int, pr probe) {
				t.Helper()
				var got []kb.ID
				p := pat(pr.p)
				err := cur.ScanQuads(ctx, p, func(q kb.Quad) bool {
					if !p.Matches(q) {
						t.Errorf("%s %d: %v does not match %+v", step, i, q, p)
					}
					if p.S == kb.Any {
						got = append(got, num[q.S])
					} else {
						got = append(got, num[q.O])
					}
					return true
				})
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if !slices.Equal(got, pr.want) {
					t.Errorf("%s probe %d %+v: got %v, want %v", step, i, pr.p, got, pr.want)
				}
				// The same lookup counted through a second cursor that
				// follows the same sequence.
				n, err := counter.(interface {
					Count(context.Context, kb.Pattern) (int64, error)
				}).Count(ctx, p)
				if err != nil || n != int64(len(pr.want)) {
					t.Errorf("%s probe %d %+v: counted %d (%v), want %d", step, i, pr.p, n, err, len(pr.want))
				}
			}
			for i, pr := range before {
				check("before", i, pr)
			}
			if err := ds.Apply(ctx, kb.Delta{Remove: toIDs(write.Remove), Add: toIDs(write.Add)}); err != nil {
				t.Fatal(err)
			}
			for i, pr := range after {
				check("after", i, pr)
			}
			// Stopping early: one quad, then the next probe still right.
			n := 0
			if err := cur.ScanQuads(ctx, pat(kb.Pattern{P: 100, O: 20060}), func(kb.Quad) bool { n++; return false }); err != nil || n != 1 {
				t.Fatalf("stopped scan: %d quads, %v", n, err)
			}
			check("after stop", 0, obj(100, 20061, 10122, 10123))
		})
	}
}
