package native

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFork checks the write gate's turns: unbounded, fork runs every part
// on a goroutine of its own; bounded at n, no more than n parts run beside
// the caller and the rest run on the caller's goroutine before fork
// returns; every part runs exactly once either way.
func TestFork(t *testing.T) {
	defer SetWriteWorkers(-1)
	for _, c := range []struct {
		workers, parts int
		wantInline     int // parts run before fork returned
	}{
		{workers: -1, parts: 4, wantInline: 0},
		{workers: 0, parts: 4, wantInline: 4},
		{workers: 1, parts: 4, wantInline: 3},
		{workers: 2, parts: 4, wantInline: 2},
	} {
		SetWriteWorkers(c.workers)
		release := make(chan struct{})
		var ran, running, most atomic.Int32
		var mu sync.Mutex
		inline := 0
		var waits []func()
		me := goroutineID()
		for range c.parts {
			waits = append(waits, fork(func() {
				if goroutineID() == me {
					mu.Lock()
					inline++
					mu.Unlock()
				} else {
					// Only parts beside the caller are bounded; the caller
					// runs its inline parts while these hold their turns.
					n := running.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					<-release // hold the turn until every part is forked
					running.Add(-1)
				}
				ran.Add(1)
			}))
		}
		time.Sleep(10 * time.Millisecond) // let the goroutines start
		close(release)
		for _, w := range waits {
			w()
		}
		if inline != c.wantInline || ran.Load() != int32(c.parts) {
			t.Errorf("workers %d: %d of %d parts ran, %d on the caller's goroutine; want all, %d", c.workers, ran.Load(), c.parts, inline, c.wantInline)
		}
		if c.workers >= 0 && most.Load() > int32(c.workers) {
			t.Errorf("workers %d: %d parts ran at once beside the caller", c.workers, most.Load())
		}
	}
}

// goroutineID returns the calling goroutine's number, from its stack's
// first line ("goroutine 7 [running]:").
func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	return string(bytes.Fields(b)[1])
}
