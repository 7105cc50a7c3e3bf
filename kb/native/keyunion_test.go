package native

import (
	"math/rand"
	"slices"
	"testing"
)

// TestKeyUnion checks keyUnion's runs and first index against a list
// merged by sorting the concatenation.
func TestKeyUnion(t *testing.T) {
	cmpKey32 := func(x, y key32) int {
		switch {
		case lessKey(x, y):
			return -1
		case lessKey(y, x):
			return 1
		}
		return 0
	}
	k := func(s uint32, o uint32) key32 { return key32{s, 1, o, 1} }
	r := rand.New(rand.NewSource(7))
	var ra, rb []key32
	for i := range 2000 {
		q := k(uint32(r.Intn(300)+1), uint32(i))
		if r.Intn(5) == 0 {
			ra = append(ra, q)
		} else {
			rb = append(rb, q)
		}
	}
	slices.SortFunc(ra, cmpKey32)
	slices.SortFunc(rb, cmpKey32)
	cases := []struct {
		name string
		a, b []key32
	}{
		{"both empty", nil, nil},
		{"a only", []key32{k(1, 1), k(3, 1)}, nil},
		{"b only", nil, []key32{k(2, 1), k(2, 2), k(9, 1)}},
		{"a before b", []key32{k(1, 1), k(1, 2)}, []key32{k(4, 1), k(5, 1)}},
		{"b before a", []key32{k(7, 1)}, []key32{k(1, 1), k(2, 1)}},
		{"interleaved", []key32{k(1, 2), k(3, 1), k(3, 3), k(8, 1)}, []key32{k(1, 1), k(3, 2), k(5, 1), k(9, 9)}},
		{"same subjects", []key32{k(4, 1), k(4, 3)}, []key32{k(4, 2), k(4, 4)}},
		{"random", ra, rb},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := append(slices.Clone(tc.a), tc.b...)
			slices.SortFunc(want, cmpKey32)
			u := keyUnion{a: tc.a, b: tc.b}
			var got []key32
			if err := u.runs(func(run []key32) error {
				if len(run) == 0 {
					t.Fatal("empty run")
				}
				got = append(got, run...)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("runs give %v, want %v", got, want)
			}
			if k := u.keys(); !slices.Equal(k, want) && len(k)+len(want) > 0 {
				t.Fatalf("keys give %v, want %v", k, want)
			}
			if u.len() != len(want) {
				t.Fatalf("len %d, want %d", u.len(), len(want))
			}
			if len(want) > 0 && u.last() != want[len(want)-1] {
				t.Fatalf("last %v, want %v", u.last(), want[len(want)-1])
			}
			// firstIndex(want) by the definition: keys with subject < id.
			if f := u.firstIndex(); len(want) == 0 {
				if f != nil {
					t.Fatalf("first index of nothing: %v", f)
				}
			} else {
				top := want[len(want)-1][0]
				if len(f) != int(top)+2 {
					t.Fatalf("first index has %d entries, want %d", len(f), top+2)
				}
				for id := range f {
					n := 0
					for _, q := range want {
						if q[0] < uint32(id) {
							n++
						}
					}
					if f[id] != uint32(n) {
						t.Fatalf("first[%d] = %d, want %d", id, f[id], n)
					}
				}
			}
		})
	}
}
