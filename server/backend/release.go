package backend

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// mappedReleaser is a store whose read side is mapped from files and can
// give its resident pages back (kb/native.Store).
type mappedReleaser interface {
	ReleaseMapped() int64
}

// track counts a query begun; the returned func ends it (once).
func (e *QueryEngine) track() func() {
	e.started.Add(1)
	e.inflight.Add(1)
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			e.inflight.Add(-1)
		}
	}
}

// ReleaseWhenIdle gives memory back each time the engine has been idle
// for idle after queries ran (no query running and none begun in that
// time), until ctx ends: the store's mapped pages (ReleaseMapped, where
// the store maps files) and the Go heap's free pages
// (debug.FreeOSMemory). A query touches pages of the sorted orders and
// the dictionary that stay resident after it, and its garbage leaves heap
// pages the runtime returns only slowly; between busy periods both go
// back, so the server's resident memory follows its working set rather
// than every page ever read. The mapped pages stay in the page cache: the
// next query maps them again without reading the disk.
func (e *QueryEngine) ReleaseWhenIdle(ctx context.Context, idle time.Duration) {
	if idle <= 0 {
		return
	}
	r, _ := e.DS.(mappedReleaser)
	go func() {
		t := time.NewTicker(idle)
		defer t.Stop()
		last := e.started.Load()
		released := last
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n := e.started.Load()
			if n == last && n != released && e.inflight.Load() == 0 {
				if r != nil {
					r.ReleaseMapped()
				}
				debug.FreeOSMemory()
				released = n
			}
			last = n
		}
	}()
}
