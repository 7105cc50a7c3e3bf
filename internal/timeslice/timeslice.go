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
// The cost: two bulk threads sharing a core take turns of up to Long, so
// a garbage collection that must stop the world waits for a bulk thread
// the kernel is not running: in two 10-minute hardening soaks, 3 and 4 of
// some 150 stop-the-world pauses each took over 10 ms (one over 100 ms),
// where earlier runs had 0 to 2.
//
// Elsewhere, and on older kernels, which accept the request and ignore
// it, marking a thread changes nothing.
package timeslice

import (
	"runtime"
	"time"
)

// Long is the slice bulk work asks for: the kernel's upper bound.
const Long = 100 * time.Millisecond

// Bulk runs fn with the calling goroutine locked to its OS thread, which
// asks for the Long slice while fn runs and for the default one after
// (Begin).
func Bulk(fn func()) {
	end := Begin()
	defer end()
	fn()
}

// Begin locks the calling goroutine to its OS thread, which asks for the
// Long slice until end is called, on the same goroutine: then the thread
// asks for the default slice again and is unlocked. A thread already
// marked (Begin within Begin, or a thread marked with Set) is left as it
// is. Threads the Go runtime starts meanwhile do not inherit the slice:
// a locked goroutine's new threads are started by the runtime's template
// thread.
func Begin() (end func()) {
	runtime.LockOSThread()
	tid := ThreadID()
	if s, err := Get(tid); err != nil || s >= Long || Set(tid, Long) != nil {
		return runtime.UnlockOSThread
	}
	return func() {
		Set(tid, 0)
		runtime.UnlockOSThread()
	}
}
