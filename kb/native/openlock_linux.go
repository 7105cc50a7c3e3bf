package native

import (
	"io"
	"os"
	"syscall"
)

// sharedLocks: Linux has open file description locks, which conflict with
// Pebble's POSIX record locks and, unlike those, belong to one open file:
// closing one read-only store leaves the others of the same process
// locked.
const sharedLocks = true

// fOFDSetLK is F_OFD_SETLK (asm-generic/fcntl.h, every Linux
// architecture); package syscall does not name it.
const fOFDSetLK = 37

func readLock(f *os.File) error {
	spec := syscall.Flock_t{Type: syscall.F_RDLCK, Whence: io.SeekStart}
	return syscall.FcntlFlock(f.Fd(), fOFDSetLK, &spec)
}
