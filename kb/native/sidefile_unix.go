//go:build unix

package native

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// mapFile maps a file read-only (nil for an empty one).
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("native: side file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("native: side file: %w", err)
	}
	if st.Size() == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("native: side file: mmap: %w", err)
	}
	return b, nil
}

// mapPrivate maps path copy-on-write: the process may write to the
// mapping, and its writes never reach the file.
func mapPrivate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("native: mmap: %w", err)
	}
	return b, nil
}

// unmap releases the mappings now.
func (m *sideMapping) unmap() {
	for k, b := range m.maps {
		if b != nil {
			_ = syscall.Munmap(b)
			m.maps[k] = nil
		}
	}
}

// newSideCleanup unmaps m's files of the orders once m is unreachable.
// The dictionary's stays mapped for the life of the process: TermOf hands
// out strings that point into it, and a caller may keep them past the
// store.
func newSideCleanup(m *sideMapping) {
	var maps [numOrders][]byte
	copy(maps[:], m.maps[:numOrders])
	runtime.AddCleanup(m, func(maps [numOrders][]byte) {
		for _, b := range maps {
			if b != nil {
				_ = syscall.Munmap(b)
			}
		}
	}, maps)
}

// keepMapped keeps b mapped while m is reachable: the snapshots that point
// into b (the log side file's arrays) hold m as their pin.
func keepMapped(m *sideMapping, b []byte) {
	if b == nil {
		return
	}
	runtime.AddCleanup(m, func(b []byte) { _ = syscall.Munmap(b) }, b)
}
