//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time this process has used
// (bench load runs its loads in-process, so differences time one load, the
// store's background work included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
