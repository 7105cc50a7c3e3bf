//go:build !unix

package main

import "time"

// processCPU returns 0: bench load reports CPU time only where getrusage
// exists.
func processCPU() time.Duration { return 0 }
