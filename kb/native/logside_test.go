package native

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestLogSideFile checks that a store reopened from its log side file
// (with log entries written after the file, and with a file that does not
// belong to its side files) holds exactly the quads written, in every
// pattern shape. The oracle is a set of quads kept by hand beside the
// writes.
func TestLogSideFile(t *testing.T) {
	defer func(v int64) { logSideMin = v }(logSideMin)
	cases := []struct {
		name string
		// spoil changes the directory between the close that writes the
		// file and the next open; fast is whether that open must use it.
		spoil func(t *testing.T, dir string)
		fast  bool
		// first is the size of the write the file holds; past
		// deltaLimit the read side folds it into a base of its own.
		first int
	}{
		{name: "file", fast: true, first: 300},
		{name: "folded read side", fast: true, first: 6000},
		{name: "other build", first: 300, spoil: func(t *testing.T, dir string) {
			setLogSideBuild(t, dir, 12345)
		}},
		{name: "truncated", first: 300, spoil: func(t *testing.T, dir string) {
			path := filepath.Join(dir, logSideName(false))
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, st.Size()-16); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "db")
			opts := Options{MemoryBudget: -1}
			s, err := Open(ctx, dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			loaded := bulkTerms(t, s, genTermQuads(0, 2000))
			want := map[kb.Quad]bool{}
			for _, q := range loaded {
				want[q] = true
			}
			reopen := func() {
				t.Helper()
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if s, err = Open(ctx, dir, opts); err != nil {
					t.Fatal(err)
				}
			}
			write := func(from, n int, remove []kb.Quad) []kb.Quad {
				t.Helper()
				add, err := kb.InternQuads(ctx, s, genTermQuads(from, n))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Apply(ctx, kb.Delta{Add: add, Remove: remove}); err != nil {
					t.Fatal(err)
				}
				for _, q := range remove {
					delete(want, q)
				}
				for _, q := range add {
					want[q] = true
				}
				return add
			}
			reopen()
			logSideMin = 1
			added := write(5000, tc.first, loaded[:40])
			if m := s.readSide(); (len(m.adds[0]) == 0) != (tc.first > 4096) {
				t.Fatalf("read side folded: %v, want %v", len(m.adds[0]) == 0, tc.first > 4096)
			}
			reopen() // writes the file: the log holds the quads above
			if _, err := os.Stat(filepath.Join(dir, logSideName(false))); err != nil {
				t.Fatalf("no log side file after a close with a log: %v", err)
			}
			if s.logSideOps == 0 {
				t.Fatal("the open did not read the log side file")
			}
			// An entry after the file: it removes quads of the base, of
			// the file's additions, and adds back a removed base quad.
			logSideMin = 1 << 40
			write(9000, 20, append(append([]kb.Quad(nil), loaded[100:110]...), added[:15]...))
			if err := s.Apply(ctx, kb.Delta{Add: loaded[:2]}); err != nil {
				t.Fatal(err)
			}
			want[loaded[0]], want[loaded[1]] = true, true
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if tc.spoil != nil {
				tc.spoil(t, dir)
			}
			if s, err = Open(ctx, dir, opts); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.logSideOps != 0; got != tc.fast {
				t.Fatalf("open read the log side file: %v, want %v", got, tc.fast)
			}
			if _, err := os.Stat(filepath.Join(dir, logSideName(false))); (err == nil) != tc.fast {
				t.Fatalf("log side file present: %v, want %v", err == nil, tc.fast)
			}
			if !sideMapped(s) {
				t.Fatal("reopened store does not read its side files")
			}
			matchesSet(t, s, want)
		})
	}
}

// setLogSideBuild overwrites the build number in the log side file's
// header.
func setLogSideBuild(t *testing.T, dir string, build uint64) {
	t.Helper()
	path := filepath.Join(dir, logSideName(false))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		b[16+i] = byte(build >> (8 * i))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// matchesSet checks that s answers the quads of want for the pattern of
// everything and, around a sample of want's quads, for each field bound
// alone and all four bound.
func matchesSet(t *testing.T, s *Store, want map[kb.Quad]bool) {
	t.Helper()
	ctx := context.Background()
	check := func(p kb.Pattern) {
		t.Helper()
		got, err := kb.Collect(s.Match(ctx, p))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[kb.Quad]bool{}
		for _, q := range got {
			if !want[q] || !p.Matches(q) || seen[q] {
				t.Fatalf("pattern %v: unexpected quad %v", p, q)
			}
			seen[q] = true
		}
		for q := range want {
			if p.Matches(q) && !seen[q] {
				t.Fatalf("pattern %v: quad %v missing", p, q)
			}
		}
	}
	check(kb.Pattern{})
	n := 0
	for q := range want {
		if n++; n > 25 {
			break
		}
		check(kb.Pattern{S: q.S})
		check(kb.Pattern{P: q.P})
		check(kb.Pattern{O: q.O})
		check(kb.Pattern{G: q.G})
		check(kb.Pattern{P: q.P, O: q.O})
		check(kb.Pattern{S: q.S, P: q.P, O: q.O, G: q.G})
	}
}

// TestDiffDelta checks the walk against differences worked out by hand.
func TestDiffDelta(t *testing.T) {
	k := func(ids ...uint32) []key32 {
		var out []key32
		for _, id := range ids {
			out = append(out, key32{id, 0, 0, 0})
		}
		return out
	}
	cases := []struct {
		name               string
		nb, na, nd, base   []key32
		wantAdds, wantDels []key32
	}{
		{name: "same", nb: k(1, 2, 3), base: k(1, 2, 3)},
		{name: "added", nb: k(1, 3), na: k(2, 4), base: k(1, 3), wantAdds: k(2, 4)},
		{name: "removed", nb: k(1, 2, 3), nd: k(1, 3), base: k(1, 2, 3), wantDels: k(1, 3)},
		{name: "folded base", nb: k(2, 3, 5), na: k(6), nd: k(3), base: k(1, 2, 3, 4), wantAdds: k(5, 6), wantDels: k(1, 3, 4)},
		{name: "added back", nb: k(2), na: k(1), base: k(1, 2), wantAdds: nil},
		{name: "empty base", nb: k(1), na: k(2), wantAdds: k(1, 2)},
		{name: "all removed", nb: k(1, 2), nd: k(1, 2), base: k(1, 2), wantDels: k(1, 2)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			adds, dels := diffDelta(tc.nb, tc.na, tc.nd, tc.base)
			if !slices.Equal(adds, tc.wantAdds) && len(adds)+len(tc.wantAdds) > 0 ||
				!slices.Equal(dels, tc.wantDels) && len(dels)+len(tc.wantDels) > 0 {
				t.Fatalf("got adds %v dels %v, want %v and %v", adds, dels, tc.wantAdds, tc.wantDels)
			}
		})
	}
}
