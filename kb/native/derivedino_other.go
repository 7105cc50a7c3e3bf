//go:build !unix

package native

import "io/fs"

// fileIno is 0 here: a derived file is read afresh on every use.
func fileIno(fs.FileInfo) uint64 { return 0 }

// unmapBytes has nothing to unmap here.
func unmapBytes([]byte) {}
