//go:build !unix

package otlp

import "time"

// processCPU is unknown here: the benchmark reports 0 CPU-seconds.
func processCPU() time.Duration { return 0 }
