package main

import (
	"context"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                                string
		live, outside, floor, soft, percent int64
		want                                int64
	}{
		// 10 MiB live at 200%: the percent allows 30 MiB, the floor 256.
		{"floor rules a small heap", 10 * mib, 20 * mib, 256 * mib, 2048 * mib, 200, 276 * mib},
		// 200 MiB live at 200%: 600 MiB, above the floor.
		{"percent rules a large heap", 200 * mib, 20 * mib, 256 * mib, 2048 * mib, 200, 620 * mib},
		// 1000 MiB live: 3000 + 20 MiB, past the soft limit.
		{"never past the soft limit", 1000 * mib, 20 * mib, 256 * mib, 2048 * mib, 200, 2048 * mib},
		// At 100%: 2 × 150 = 300 MiB.
		{"percent 100", 150 * mib, 0, 256 * mib, 2048 * mib, 100, 300 * mib},
	}
	for _, tt := range tests {
		if got := gcLimit(tt.live, tt.outside, tt.floor, tt.soft, tt.percent); got != tt.want {
			t.Errorf("%s: gcLimit = %d MiB, want %d MiB", tt.name, got/mib, tt.want/mib)
		}
	}
	for _, tt := range []struct {
		soft, want int64
	}{{2048 * mib, 256 * mib}, {1024 * mib, 128 * mib}, {0, 0}} {
		if got := gcFloorDefault(tt.soft); got != tt.want {
			t.Errorf("gcFloorDefault(%d MiB) = %d MiB, want %d MiB", tt.soft/mib, got/mib, tt.want/mib)
		}
	}
}

// TestGCFloorRetunesEveryCycle: the tuner hears of every cycle (a cleanup
// on a fresh object each time) and sets the soft limit from it: an 8-byte
// sentinel shared a tiny-allocator block with other objects, heard of no
// cycle, and left the limit at the floor while the live heap grew past
// it, so the collector ran back to back (224 cycles in 2 minutes under
// the soak's sensor flood).
func TestGCFloorRetunesEveryCycle(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	tuner := gcFloor(ctx, 64<<20, 1<<40, 200, slog.New(slog.DiscardHandler))
	live := make([][]byte, 0, 64)
	for i := 0; tuner.tunes.Load() < 3; i++ {
		if i == 1000 {
			t.Fatalf("the tuner heard of %d of 1000 forced cycles", tuner.tunes.Load())
		}
		// Keep 4 MiB more live each cycle.
		if len(live) < cap(live) {
			live = append(live, make([]byte, 4<<20))
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // the cleanup runs on its own goroutine
	}
	// The live heap is under the 64 MiB floor: the limit is the floor
	// plus what lies outside the heap, and at most the soft limit.
	if got := debug.SetMemoryLimit(-1); got < 64<<20 || got > 1<<40 {
		t.Errorf("soft limit %d after the cycles; want the floor (64 MiB) plus the runtime's own memory", got)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent %d while the floor holds; want off (-1)", got)
	}
	cancel()
	<-tuner.stopped
	runtime.KeepAlive(live)
}
