//go:build linux

package native

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// mappedRSS sums the resident kilobytes of this process's mappings of
// files under dir (/proc/self/smaps).
func mappedRSS(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var kib int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && strings.HasPrefix(fields[5], dir)
			continue
		}
		if in && len(fields) == 3 && fields[0] == "Rss:" {
			n, _ := strconv.ParseInt(fields[1], 10, 64)
			kib += n
		}
	}
	return kib
}

// TestReleaseMapped checks that ReleaseMapped takes the side files' pages
// out of the process's resident set (smaps) and that the store answers
// the same afterwards.
func TestReleaseMapped(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	bulkTerms(t, s, genTermQuads(0, 20000))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{ReadOnly: true, MemoryBudget: -1}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !sideMapped(s) {
		t.Fatal("the store does not map its side files")
	}
	read := func() []string {
		var out []string
		for _, p := range []kb.Pattern{{}, {P: 0}} {
			qs, err := kb.Collect(s.Match(ctx, p))
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range qs {
				tq, err := kb.ResolveQuad(ctx, s, q)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, tq.String())
			}
		}
		slices.Sort(out)
		return out
	}
	before := read()
	if len(before) < 20000 {
		t.Fatalf("read %d quads, want at least 20000", len(before))
	}
	resident := mappedRSS(t, dir)
	if resident == 0 {
		t.Fatal("no resident pages of the side files after reading every quad")
	}
	if n := s.ReleaseMapped(); n <= 0 {
		t.Fatalf("ReleaseMapped advised %d bytes", n)
	}
	if after := mappedRSS(t, dir); after*4 > resident {
		t.Errorf("resident side-file pages %d KiB after ReleaseMapped, %d KiB before", after, resident)
	}
	if again := read(); !slices.Equal(again, before) {
		t.Errorf("the store answers %d quads after ReleaseMapped, %d before", len(again), len(before))
	}
}
