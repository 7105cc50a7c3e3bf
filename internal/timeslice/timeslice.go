// Package timeslice marks the OS threads that do bulk work (a heavy
// query, a site's large answer, a large write) so that the kernel lets a
// thread serving a light request run before them without taking any of
// their share of the processor.
//
// Linux 6.12 and later schedule ordinary threads by earliest eligible
// virtual deadline (EEVDF), and a thread may ask for its own time slice
// (sched_setattr's sched_runtime, 0.1 to 100 ms). The slice does not
// change a thread's weight, so a bulk thread gets as much processor time
// as before; it changes when the thread is due: a thread with a long
// slice has a late deadline, so a thread with the default slice that
// wakes beside it (a lookup's bytes arriving) is picked first and
// preempts it at once. A nice value, the older lever, lowers the bulk
// thread's share as well, and an unprivileged process cannot take it
// back; a slice can be given back at any time. BenchmarkWake, on 2
// cores beside three busy threads: a thread that sleeps 1 ms and then
// works 0.2 ms woke with a p99 delay of 4.1 to 4.6 ms beside busy threads
// at the default slice and 0.16 to 0.55 ms beside Long ones.
//
// The cost: two bulk threads sharing a core take turns of up to the
// slice, so a garbage collection that must stop the world waits for a
// bulk thread the kernel is not running: in three 10-minute hardening
// soaks on 2 cores with 100 ms, 3, 4 and 5 stop-the-world pauses took
// over 10 ms (0, 1 and 2 over 100 ms), where earlier runs had 0 to 2
// (none over 100 ms), and the soak's read tail was no better.
// So marking is off until SetLong turns it on (perfkb serve
// --bulk-slice). Elsewhere, and on older kernels, which accept the
// request and ignore it, marking a thread changes nothing.
package timeslice

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Long is the longest slice the kernel grants.
const Long = 100 * time.Millisecond

// long is the slice bulk work asks for (ns; 0: bulk work is not marked).
var long atomic.Int64

// SetLong sets the slice that Bulk, Begin and the server's bulk threads
// ask for, at most Long; 0 turns marking off, the default.
func SetLong(d time.Duration) { long.Store(int64(min(max(d, 0), Long))) }

// Slice is the slice bulk work asks for (0: marking is off).
func Slice() time.Duration { return time.Duration(long.Load()) }

// Bulk runs fn with the calling goroutine locked to its OS thread, which
// asks for the bulk slice (SetLong) while fn runs and for the default one
// after (Begin). With marking off, fn just runs.
func Bulk(fn func()) {
	end := Begin()
	defer end()
	fn()
}

// Begin locks the calling goroutine to its OS thread, which asks for the
// bulk slice (SetLong) until end is called, on the same goroutine: then
// the thread asks for the default slice again and is unlocked. With
// marking off it does nothing. A thread already marked (Begin within
// Begin, or a thread marked with Set) is left as it is. Threads the Go runtime starts meanwhile do not inherit the slice:
// a locked goroutine's new threads are started by the runtime's template
// thread.
func Begin() (end func()) {
	d := Slice()
	if d <= 0 {
		return func() {}
	}
	runtime.LockOSThread()
	tid := ThreadID()
	if s, err := Get(tid); err != nil || s >= d || Set(tid, d) != nil {
		return runtime.UnlockOSThread
	}
	return func() {
		Set(tid, 0)
		runtime.UnlockOSThread()
	}
}
