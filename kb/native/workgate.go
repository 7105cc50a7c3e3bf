package native

import (
	"sync/atomic"

	"github.com/perfkb/perfkb/internal/timeslice"
)

// A write's CPU work (sorting six key orders, folding the delta log,
// writing index and dictionary tables) is spread over goroutines, which
// on a server take the cores its readers need: a fold after a sensor
// flood kept three goroutines busy for seconds on a 2-core machine, and
// light queries waited tens of milliseconds for a processor. The gate
// bounds the goroutines such work adds, over every store of the process;
// past the bound the work runs on the goroutine that asked for it,
// one part after another, so nothing ever waits for a turn and nothing
// can deadlock.

// writeGate holds the free turns for extra goroutines; nil: no bound.
var writeGate atomic.Pointer[chan struct{}]

// SetWriteWorkers bounds at n the goroutines that the native stores' writes
// and folds run beside the goroutine that writes (0: none, all of a
// write's work on its own goroutine; negative: no bound, the default). A
// server that keeps cores for its readers sets it; a command-line load
// leaves it unbounded.
func SetWriteWorkers(n int) {
	if n < 0 {
		writeGate.Store(nil)
		return
	}
	ch := make(chan struct{}, n)
	writeGate.Store(&ch)
}

// fork runs fn on a goroutine of its own when the gate has a turn free
// (or no bound), else at once on the caller's; wait returns once fn has
// returned.
func fork(fn func()) (wait func()) {
	g := writeGate.Load()
	if g != nil {
		select {
		case *g <- struct{}{}:
		default:
			fn()
			return func() {}
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if g != nil {
			defer func() { <-*g }()
		}
		timeslice.Bulk(fn)
	}()
	return func() { <-done }
}

// backgroundRunner runs work no reader waits for (nil: none runs in the
// background; the caller does it).
var backgroundRunner atomic.Pointer[func(fn func())]

// SetBackgroundRunner lets the native stores do work that a query came
// upon but need not wait for in the background, through run (which must
// call fn once): the planner statistics gone stale after writes are
// recomputed there while queries plan with the last ones. nil, the
// default, has the query that finds them stale recompute them, as a
// command-line query, which would not outlive the work, wants. A server
// sets one.
func SetBackgroundRunner(run func(fn func())) {
	if run == nil {
		backgroundRunner.Store(nil)
		return
	}
	backgroundRunner.Store(&run)
}

// inBackground runs fn on a goroutine of its own through the background
// runner; false when there is none (fn not run).
func inBackground(fn func()) bool {
	run := backgroundRunner.Load()
	if run == nil {
		return false
	}
	go (*run)(fn)
	return true
}
