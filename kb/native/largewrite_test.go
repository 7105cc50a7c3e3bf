package native

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/perfkb/perfkb/kb"
)

// gateFS holds the first temporary sstable a write creates after arm
// until release is closed: a barrier inside a large write's build.
type gateFS struct {
	vfs.FS
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func newGateFS() *gateFS {
	return &gateFS{FS: vfs.Default, entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gateFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	if strings.HasPrefix(filepath.Base(name), "bulk-") && g.armed.CompareAndSwap(true, false) {
		close(g.entered)
		<-g.release
	}
	return g.FS.Create(name, c)
}

// TestSmallWriteDuringLargeBuild holds a large Apply (one that goes to the
// delta log) inside its build, at the creation of its first sstable, and
// checks that small writes commit meanwhile — including ones that add a
// quad the large write adds and remove one it finds stored — and that the
// large write, released, stores exactly the union: every quad once, the
// counters right, before and after a reopen.
func TestSmallWriteDuringLargeBuild(t *testing.T) {
	defer func(n int) { bulkApplyMin = n }(bulkApplyMin)
	bulkApplyMin = 200
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	g := newGateFS()
	s, err := open(ctx, dir, g, false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	base := internAll(t, s, genTermQuads(0, 2000))
	if err := s.Apply(ctx, kb.Delta{Add: base}); err != nil {
		t.Fatal(err)
	}
	fresh := internAll(t, s, genTermQuads(5000, 500))
	small := internAll(t, s, genTermQuads(9000, 3))
	// The large write: 500 new quads and two stored ones.
	large := append(append([]kb.Quad{}, fresh...), base[1], base[2])

	g.armed.Store(true)
	done := make(chan error, 1)
	go func() { done <- s.Apply(ctx, kb.Delta{Add: large}) }()
	select {
	case <-g.entered:
	case err := <-done:
		t.Fatalf("the large Apply ended (%v) without building a table", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the large Apply never built a table")
	}
	// While it builds: a new quad, one of its own new quads, and the
	// removal of a stored quad it also adds.
	for i, d := range []kb.Delta{
		{Add: small},
		{Add: fresh[:1]},
		{Remove: base[1:2]},
	} {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := s.Apply(sctx, d)
		cancel()
		if err != nil {
			close(g.release)
			<-done
			t.Fatalf("small write %d during a large write's build: %v", i, err)
		}
	}
	if n, _ := s.Count(ctx, kb.Pattern(small[0]), true); n != 1 {
		t.Fatalf("a small write committed during the build is not visible (count %d)", n)
	}
	close(g.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.logOps == 0 {
		t.Fatal("the large write did not go to the delta log; the test does not cover the path it means to")
	}
	want := append(append(append([]kb.Quad{}, base...), fresh...), small...)
	check := func(step string) {
		t.Helper()
		for _, q := range want {
			if n, err := s.Count(ctx, kb.Pattern(q), true); err != nil || n != 1 {
				t.Fatalf("%s: quad %v: count %d, %v", step, q, n, err)
			}
		}
		if n, _ := s.Count(ctx, kb.Pattern{}, true); n != int64(len(want)) {
			t.Fatalf("%s: %d quads counted, want %d", step, n, len(want))
		}
		if got := collect(t, s, kb.Pattern{}); len(got) != len(want) {
			t.Fatalf("%s: %d quads scanned, want %d", step, len(got), len(want))
		}
	}
	check("after the large write")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	check("after a reopen")
}
