package server

import (
	"context"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/internal/timeslice"
)

// requestThread is the OS thread a request runs on when the server gives
// it one of its own (ownThread).
type requestThread struct {
	mu      sync.Mutex
	tid     int
	lowered bool // its priority was lowered: the thread must end with the request
	long    bool // it asked for a long time slice (LongSlice)
	ended   bool
}

type requestThreadKey struct{}

// ownThread runs the rest of the request's handlers on a goroutine locked
// to an OS thread, so that LowerPriority can lower that thread's priority
// when the request's work turns out to be long. A thread whose priority
// was lowered ends with the request (its goroutine exits still locked,
// and the Go runtime then discards the thread): an unprivileged process
// cannot raise a priority again, and the thread must not go on to serve
// other requests at the lower one. A thread left alone goes back to the
// runtime. The goroutine is locked before the handlers start because the
// query engine's iterators are coroutines, which must run under the same
// thread lock as the goroutine that created them. Where threads cannot be
// told apart (not Linux), the handlers run as usual.
func (s *Server) ownThread(c *gin.Context) {
	if !threadPriorities || !s.opts.ThreadPerQuery {
		c.Next()
		return
	}
	done := make(chan any, 1)
	go func() {
		runtime.LockOSThread()
		t := &requestThread{tid: threadID()}
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), requestThreadKey{}, t))
		defer func() {
			r := recover()
			if r != nil && r != http.ErrAbortHandler {
				r = &threadPanic{value: r, stack: debug.Stack()}
			}
			if !t.end() {
				runtime.UnlockOSThread()
			}
			done <- r
		}()
		c.Next()
	}()
	if r := <-done; r != nil {
		panic(r) // to the recoverer, on the request's own goroutine
	}
}

// end marks the request done and reports whether its thread must end
// with it.
func (t *requestThread) end() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ended = true
	if t.long && !t.lowered && timeslice.Set(t.tid, 0) != nil {
		return true // it keeps the long slice: it must not serve others
	}
	return t.lowered
}

// threadPanic carries a panic from a request's own thread to the
// recoverer with the stack where it happened.
type threadPanic struct {
	value any
	stack []byte
}

// QueryCPU returns the processor time used so far by the thread serving
// the request of ctx, when the request runs on a thread of its own
// (ownThread: SPARQL queries, on Linux) and the caller is on that thread;
// false otherwise. Unlike the time since the query began, it does not
// grow while the thread waits for a processor, so on a loaded machine it
// still tells a cheap query from an expensive one.
func QueryCPU(ctx context.Context) (time.Duration, bool) {
	t, _ := ctx.Value(requestThreadKey{}).(*requestThread)
	if t == nil || threadID() != t.tid {
		return 0, false
	}
	return threadCPU()
}

// LowerPriority lowers the OS scheduling priority of the thread serving
// the request of ctx to nice (1 to 19; Linux; never above the thread's own), so that the kernel runs
// the threads of other requests first when they compete for a processor,
// and reports whether it did. Only requests the server runs on a thread of
// their own (SPARQL queries) can be lowered, once; the thread ends with
// the request, so the lower priority never outlives it. The process's
// main thread cannot end and is never lowered: a program should keep it
// for its main goroutine (runtime.LockOSThread in an init), as
// cmd/perfkb does, so that requests run elsewhere.
func LowerPriority(ctx context.Context, nice int) bool {
	t, _ := ctx.Value(requestThreadKey{}).(*requestThread)
	// The process's main thread cannot end: the runtime parks it for
	// good instead, so a request that happens to run on it is left alone.
	if t == nil || nice <= 0 || t.tid == os.Getpid() {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || t.lowered {
		return false
	}
	// A server started under nice already runs lower: a request is
	// never raised above it.
	if cur, err := getNice(t.tid); err != nil || cur >= min(nice, 19) {
		return false
	}
	if err := setNice(t.tid, min(nice, 19)); err != nil {
		return false
	}
	t.lowered = true
	return true
}

// LongSlice marks the thread serving the request of ctx as bulk work
// (package timeslice: a long time slice, the same share of the
// processor, when timeslice.SetLong has turned marking on) until the
// request ends, and reports whether it did: a
// thread serving a light request that wakes beside it then runs at once
// instead of waiting for its slice. Only requests the server runs on a
// thread of their own (SPARQL queries) can be marked; the thread asks
// for the default slice again before it serves anything else. It may be
// called from any goroutine.
func LongSlice(ctx context.Context) bool {
	t, _ := ctx.Value(requestThreadKey{}).(*requestThread)
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d := timeslice.Slice()
	if d <= 0 || t.ended || t.long || timeslice.Set(t.tid, d) != nil {
		return false
	}
	t.long = true
	return true
}

// RunBulk runs fn on an OS thread of its own marked as bulk work (a
// long time slice, package timeslice, when marking is on) and, with nice
// 1 to 19 (never above the calling process's own), at that lower
// priority, and waits for it. For bulk work that must not keep a waiting light request from
// a processor, such as reading a remote site's large answer: on an idle
// machine it runs at full speed, and on a busy one the kernel runs the
// other threads first. A lowered thread ends with fn (its goroutine
// exits still locked to it, and the Go runtime then discards the
// thread), so the lower priority never reaches other work; otherwise the
// thread asks for the default slice again and goes back to the runtime.
// A panic in fn is raised again on the caller's goroutine. Where threads
// cannot be told apart, or with nothing to mark (nice 0 and marking
// off), fn runs on the caller's goroutine as usual.
func RunBulk(nice int, fn func()) {
	if !threadPriorities || (nice <= 0 && timeslice.Slice() <= 0) {
		fn()
		return
	}
	done := make(chan any, 1)
	go func() {
		runtime.LockOSThread()
		tid := threadID()
		lowered := false
		if cur, err := getNice(tid); nice > 0 && err == nil && cur < min(nice, 19) {
			lowered = setNice(tid, min(nice, 19)) == nil
		}
		d := timeslice.Slice()
		long := d > 0 && timeslice.Set(tid, d) == nil
		defer func() {
			r := recover()
			if !lowered && (!long || timeslice.Set(tid, 0) == nil) {
				runtime.UnlockOSThread()
			}
			done <- r
		}()
		fn()
	}()
	if r := <-done; r != nil {
		panic(r)
	}
}
