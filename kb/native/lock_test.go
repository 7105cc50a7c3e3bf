package native

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestOpenInUseSaysSo checks that a second open of a store that is already
// open (as when perfkb serve holds it and a CLI command tries to open it)
// explains the problem instead of only "resource temporarily unavailable".
func TestOpenInUseSaysSo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Open(ctx, dir, Options{})
	if err == nil {
		second.Close()
		t.Fatal("a second Open of a store that is open succeeded")
	}
	if !strings.Contains(err.Error(), "in use by another perfkb process") {
		t.Errorf("error does not say the store is in use: %v", err)
	}
}

// TestReadOnlyOpensShare checks the store lock step by step: read-only
// opens share a store (in this process and in another), a read-write open
// is refused while any reader holds it and a reader while a writer does,
// and the lock is free again once every reader has closed.
func TestReadOnlyOpensShare(t *testing.T) {
	if !sharedLocks {
		t.Skipf("read-only opens take Pebble's exclusive lock on %s", runtime.GOOS)
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	w, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := kb.InternQuads(ctx, w, genTermQuads(0, 10))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	// A reader while the writer is open: refused.
	if ro, err := Open(ctx, dir, Options{ReadOnly: true}); err == nil {
		ro.Close()
		t.Fatal("a read-only open beside a read-write one succeeded")
	} else if !strings.Contains(err.Error(), "in use by another perfkb process") {
		t.Errorf("refused reader: error does not say the store is in use: %v", err)
	}
	if err := child(dir, "ro"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a read-only open in another process beside a writer: %v, want refused", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	var readers []*Store
	for i := range 2 {
		ro, err := Open(ctx, dir, Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("read-only open %d beside %d others: %v", i+1, i, err)
		}
		readers = append(readers, ro)
	}
	for i, ro := range readers {
		if n, err := ro.Count(ctx, kb.Pattern{}, true); err != nil || n != 10 {
			t.Errorf("reader %d counts %d, %v; want 10", i+1, n, err)
		}
	}
	if err := child(dir, "ro"); err != nil {
		t.Errorf("a read-only open in another process beside two readers: %v", err)
	}
	if err := child(dir, "rw"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a read-write open in another process beside readers: %v, want refused", err)
	}
	// Closing one reader leaves the other's lock in place.
	if err := readers[0].Close(); err != nil {
		t.Fatal(err)
	}
	if rw, err := Open(ctx, dir, Options{}); err == nil {
		rw.Close()
		t.Fatal("a read-write open succeeded while a reader still had the store open")
	}
	if err := child(dir, "rw"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a read-write open in another process beside one reader: %v, want refused", err)
	}
	if err := readers[1].Close(); err != nil {
		t.Fatal(err)
	}
	rw, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatalf("read-write open after every reader closed: %v", err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
}

// child opens the store in dir in another process (this test binary
// running TestLockChild), read-only ("ro") or read-write ("rw"), and
// returns its error.
func child(dir, mode string) error {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PERFKB_LOCK_CHILD="+mode+":"+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

// TestLockChild is TestReadOnlyOpensShare's other process.
func TestLockChild(t *testing.T) {
	spec := os.Getenv("PERFKB_LOCK_CHILD")
	if spec == "" {
		t.Skip("runs only as TestReadOnlyOpensShare's child process (PERFKB_LOCK_CHILD unset)")
	}
	mode, dir, _ := strings.Cut(spec, ":")
	s, err := Open(context.Background(), dir, Options{ReadOnly: mode == "ro"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(context.Background(), kb.Pattern{}, true); err != nil || n != 10 {
		t.Errorf("counts %d, %v; want 10", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
