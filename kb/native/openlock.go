package native

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Read-only opens of one store share it. Pebble locks a store's LOCK file
// with an exclusive POSIX record lock for every open, read-only ones
// included, so two `perfkb query` processes (or a query beside `perfkb
// stats`) could not read one store at once. A read-only open takes a
// shared lock on the same file instead (readLock) and hands it to Pebble
// as Options.Lock: read-only opens coexist, and a writer's exclusive lock
// and a reader's shared one still exclude each other, so no reader sees a
// store that a writer is changing and no writer starts under a reader.

// sharedLockFS is vfs.Default with Lock taking a shared lock.
type sharedLockFS struct{ vfs.FS }

func (sharedLockFS) Lock(name string) (io.Closer, error) {
	// O_RDONLY: a read lock needs only read access, and a store opened
	// read-only must exist already (its LOCK file with it).
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if err := readLock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// A process's POSIX record locks on a file all go when it closes any
// descriptor of that file, so a read-only open must not even open the
// LOCK file of a store that this process holds open for writing (Pebble's
// lock of that writer would go with it). writers lists those stores.
var writers struct {
	sync.Mutex
	dirs map[string]int
}

func lockKey(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// addWriter records a read-write open of dir by this process before
// Pebble locks it; the returned func forgets it again.
func addWriter(dir string) func() {
	k := lockKey(dir)
	writers.Lock()
	defer writers.Unlock()
	if writers.dirs == nil {
		writers.dirs = map[string]int{}
	}
	writers.dirs[k]++
	return func() {
		writers.Lock()
		defer writers.Unlock()
		if writers.dirs[k]--; writers.dirs[k] <= 0 {
			delete(writers.dirs, k)
		}
	}
}

// lockShared takes the shared lock of the store in dir for a read-only
// open, or returns nil where the platform has no shared lock that
// conflicts with Pebble's exclusive one (Pebble then locks as usual).
func lockShared(dir string) (*pebble.Lock, error) {
	if !sharedLocks {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "LOCK")); err != nil {
		// No store there (or not one Pebble made): Pebble's open says so.
		return nil, nil
	}
	writers.Lock()
	defer writers.Unlock()
	if writers.dirs[lockKey(dir)] > 0 {
		return nil, errors.New("lock held by current process")
	}
	return pebble.LockDirectory(dir, sharedLockFS{vfs.Default})
}

func closeLock(l *pebble.Lock) {
	if l != nil {
		_ = l.Close()
	}
}

// lockError words an open refused by the store's lock.
func lockError(dir string, err error) error {
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || strings.Contains(err.Error(), "lock held by current process") {
		// Another process (or another read-write Open in this one) has
		// the store open for writing, or this open writes and others
		// read it.
		return fmt.Errorf("native: open %s: the store is in use by another perfkb process (perfkb serve or demo?) or is already open; stop it, or query it over HTTP: %w", dir, err)
	}
	return fmt.Errorf("native: open %s: %w", dir, err)
}
