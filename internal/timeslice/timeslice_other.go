//go:build !linux

package timeslice

import (
	"errors"
	"time"
)

var errNoSlices = errors.New("time slices per thread are Linux only")

// ThreadID is the calling thread's ID (0 where threads cannot be told
// apart).
func ThreadID() int { return 0 }

// Set asks for slice d for thread tid; not supported here.
func Set(tid int, d time.Duration) error { return errNoSlices }

// Get is thread tid's slice; not supported here.
func Get(tid int) (time.Duration, error) { return 0, errNoSlices }
