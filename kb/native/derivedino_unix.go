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
