package main

import "testing"

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
