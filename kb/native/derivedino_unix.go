//go:build unix

package native

import (
	"io/fs"
	"syscall"
)

// fileIno returns st's inode number (0 where unknown), so that a derived
// file renamed over the one a process mapped is told from it.
func fileIno(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}

// unmapBytes unmaps b, a mapping no value points into.
func unmapBytes(b []byte) { _ = syscall.Munmap(b) }

// releaseDerivedMapped gives back the resident pages of the derived files
// this process mapped (ReleaseMapped) and returns the bytes advised. The
// pages are the files' page cache, read-only and shared: a later read
// maps them again.
func releaseDerivedMapped() int64 {
	mappedFiles.Lock()
	defer mappedFiles.Unlock()
	var n int64
	for _, f := range mappedFiles.by {
		if len(f.mapping) > 0 && syscall.Madvise(f.mapping, syscall.MADV_DONTNEED) == nil {
			n += int64(len(f.mapping))
		}
	}
	return n
}
