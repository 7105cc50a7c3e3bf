//go:build !linux

package native

import (
	"errors"
	"os"
)

// sharedLocks: outside Linux a read-only open takes Pebble's exclusive
// lock (POSIX record locks of one process are released by closing any of
// its descriptors of the file, so two read-only stores of one process
// could not each hold one).
const sharedLocks = false

func readLock(*os.File) error { return errors.New("native: no shared store lock on this platform") }
