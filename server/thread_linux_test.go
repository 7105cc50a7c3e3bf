package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/internal/timeslice"
)

// The main goroutine keeps the main thread, as in cmd/perfkb: the runtime
// cannot end that thread, so LowerPriority leaves a request there alone.
func init() { runtime.LockOSThread() }

// threadQuery is a query service that reports the thread it ran on and,
// when nice is set, lowers that thread's priority.
type threadQuery struct {
	fakeQuery
	nice  int
	panic bool
	// set by Query
	tid        int
	lowered    bool
	niceDuring int
}

func (q *threadQuery) Query(ctx context.Context, req QueryRequest) (*QueryResult, error) {
	q.tid = syscall.Gettid()
	q.lowered = LowerPriority(ctx, q.nice)
	q.niceDuring = threadNice(q.tid)
	if q.panic {
		panic("boom")
	}
	return &QueryResult{Kind: ResultBoolean, Boolean: true}, nil
}

// threadNice reads a thread's nice value from /proc (-100: no such thread).
func threadNice(tid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return -100
	}
	// Fields after the command name, which is in parentheses: state is
	// field 3 of stat(5), nice field 19.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, _ := strconv.Atoi(f[19-3])
	return n
}

// TestOwnThread: with ThreadPerQuery, a query runs on a thread of its
// own whose priority LowerPriority lowers, and that thread ends with the
// request, so no other request ever runs at the lower priority; without
// it, or for a query that is not lowered, nothing changes. A panic on the
// query's thread is still the recoverer's 500.
func TestOwnThread(t *testing.T) {
	ask := "/sparql?query=" + "ASK%7B%7D"
	// The tests may run under nice: new threads start at the process's
	// nice value, not 0.
	base := threadNice(syscall.Gettid())
	t.Run("lowered", func(t *testing.T) {
		if base+7 > 19 {
			t.Skipf("the tests run at nice %d: no room to lower a thread by 7", base)
		}
		q := &threadQuery{nice: base + 7}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		if rec := do(srv, http.MethodGet, ask, "", ""); rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if !q.lowered || q.niceDuring != base+7 {
			t.Fatalf("LowerPriority = %v, nice during the query %d; want true, %d (tid %d pid %d)", q.lowered, q.niceDuring, base+7, q.tid, os.Getpid())
		}
		if q.tid == syscall.Gettid() {
			t.Fatal("the query ran on the test's own thread")
		}
		// The runtime discards the thread once its goroutine has exited.
		waitThreadGone(t, q.tid, "the request")
	})
	t.Run("not lowered", func(t *testing.T) {
		q := &threadQuery{}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		for range 3 {
			if rec := do(srv, http.MethodPost, "/sparql", mediaSPARQLQuery, "ASK {}"); rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if q.lowered || q.niceDuring != base {
				t.Fatalf("LowerPriority = %v, nice %d without being asked; want false, %d", q.lowered, q.niceDuring, base)
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		q := &threadQuery{nice: 7}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query = q })
		if rec := do(srv, http.MethodGet, ask, "", ""); rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if q.lowered || q.niceDuring != base {
			t.Fatalf("without ThreadPerQuery: LowerPriority = %v, nice %d; want false, %d", q.lowered, q.niceDuring, base)
		}
	})
	t.Run("never raised", func(t *testing.T) {
		if base < 2 {
			t.Skipf("the tests run at nice %d: run them under nice -n 10 to check a request is never raised above it", base)
		}
		q := &threadQuery{nice: base - 1}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		if rec := do(srv, http.MethodGet, ask, "", ""); rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if q.lowered || q.niceDuring != base {
			t.Fatalf("LowerPriority(%d) under nice %d = %v, nice %d during the query; want false, %d", base-1, base, q.lowered, q.niceDuring, base)
		}
	})
	t.Run("panic", func(t *testing.T) {
		q := &threadQuery{panic: true}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		rec := do(srv, http.MethodGet, ask, "", "")
		if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "boom") {
			t.Fatalf("status %d: %s; want 500 naming the panic", rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), "goroutine") {
			t.Errorf("the answer carries the stack: %s", rec.Body)
		}
	})
}

// sliceQuery is a query service that marks its thread as bulk work
// from another goroutine, as the admission's checkpoint may, and notes
// the slice its thread had then.
type sliceQuery struct {
	fakeQuery
	nice int // lower the thread too
	// set by Query
	tid    int
	marked bool
	slice  time.Duration
}

func (q *sliceQuery) Query(ctx context.Context, req QueryRequest) (*QueryResult, error) {
	q.tid = syscall.Gettid()
	done := make(chan bool)
	go func() { done <- LongSlice(ctx) }()
	q.marked = <-done
	if q.nice > 0 {
		LowerPriority(ctx, q.nice)
	}
	q.slice, _ = timeslice.Get(q.tid)
	return &QueryResult{Kind: ResultBoolean, Boolean: true}, nil
}

// TestLongSlice: a query's own thread marked as bulk work has the long
// slice until the request ends, then the default one as it goes back to
// the runtime (or, lowered too, it ends); without a thread of its own
// nothing is marked.
func TestLongSlice(t *testing.T) {
	if !kernelSlices(t) {
		t.Skip("this kernel keeps no time slice per thread (Linux 6.12 and later do)")
	}
	t.Run("marking off", func(t *testing.T) {
		timeslice.SetLong(0)
		q := &sliceQuery{}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		if rec := do(srv, http.MethodGet, "/sparql?query=ASK%7B%7D", "", ""); rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if q.marked || q.slice >= timeslice.Long {
			t.Fatalf("with marking off: LongSlice = %v, slice %v; want false and the default", q.marked, q.slice)
		}
	})
	timeslice.SetLong(timeslice.Long)
	t.Cleanup(func() { timeslice.SetLong(0) })
	t.Run("marked", func(t *testing.T) {
		q := &sliceQuery{}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		for range 3 {
			if rec := do(srv, http.MethodPost, "/sparql", mediaSPARQLQuery, "ASK {}"); rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if !q.marked || q.slice != timeslice.Long {
				t.Fatalf("LongSlice = %v, slice during the query %v; want true, %v", q.marked, q.slice, timeslice.Long)
			}
			// The thread went back to the runtime (it may have ended since):
			// it must not keep the slice for the next request.
			if s, err := timeslice.Get(q.tid); err == nil && s >= timeslice.Long {
				t.Fatalf("thread %d kept slice %v after the request", q.tid, s)
			}
		}
	})
	t.Run("lowered too", func(t *testing.T) {
		base := threadNice(syscall.Gettid())
		if base+3 > 19 {
			t.Skipf("the tests run at nice %d: no room to lower a thread by 3", base)
		}
		q := &sliceQuery{nice: base + 3}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query, o.ThreadPerQuery = q, true })
		if rec := do(srv, http.MethodGet, "/sparql?query=ASK%7B%7D", "", ""); rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if !q.marked || q.slice != timeslice.Long {
			t.Fatalf("LongSlice = %v, slice %v; want true, %v", q.marked, q.slice, timeslice.Long)
		}
		waitThreadGone(t, q.tid, "the request")
	})
	t.Run("off", func(t *testing.T) {
		q := &sliceQuery{}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Query = q })
		if rec := do(srv, http.MethodGet, "/sparql?query=ASK%7B%7D", "", ""); rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if q.marked || q.slice >= timeslice.Long {
			t.Fatalf("without ThreadPerQuery: LongSlice = %v, slice %v; want false and the default", q.marked, q.slice)
		}
	})
}

// cpuSink keeps the busy loop's result alive.
var cpuSink int

// TestQueryCPUCountsRunningNotWaiting: QueryCPU is the processor time of
// the request's own thread: it grows while the thread computes, hardly at
// all while it sleeps, and is not given on another thread.
func TestQueryCPUCountsRunningNotWaiting(t *testing.T) {
	type result struct {
		busy, slept time.Duration
		ok, other   bool
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ctx := context.WithValue(context.Background(), requestThreadKey{}, &requestThread{tid: threadID()})
		var r result
		c0, ok := QueryCPU(ctx)
		r.ok = ok
		x := 0
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			for i := range 1 << 16 {
				x += i
			}
			if c, _ := QueryCPU(ctx); c-c0 >= 20*time.Millisecond {
				break
			}
		}
		c1, _ := QueryCPU(ctx)
		time.Sleep(300 * time.Millisecond)
		c2, _ := QueryCPU(ctx)
		r.busy, r.slept = c1-c0, c2-c1
		other := make(chan bool)
		go func() { _, ok := QueryCPU(ctx); other <- ok }()
		r.other = <-other
		cpuSink = x
		done <- r
	}()
	r := <-done
	if !r.ok {
		t.Fatal("no processor time on the request's own thread")
	}
	if r.busy < 20*time.Millisecond {
		t.Errorf("computing for 20ms of processor time counted %v", r.busy)
	}
	if r.slept > 50*time.Millisecond {
		t.Errorf("sleeping 300ms counted %v of processor time", r.slept)
	}
	if r.other {
		t.Error("QueryCPU answered on a thread that is not the request's")
	}
}

// TestRunBulk: fn runs on a thread of its own with the long time slice
// and, given a nice value, at that lower priority; a lowered thread ends
// with fn, one that was not goes back with the default slice; a panic
// reaches the caller; the caller's thread is left as it was.
func TestRunBulk(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := syscall.Gettid()
	base := threadNice(self)
	selfSlice, _ := timeslice.Get(self)
	if base+5 > 19 {
		t.Skipf("the tests run at nice %d: no room to lower a thread by 5", base)
	}
	slices := kernelSlices(t)
	timeslice.SetLong(timeslice.Long)
	t.Cleanup(func() { timeslice.SetLong(0) })
	var tid, during int
	var slice time.Duration
	RunBulk(base+5, func() {
		tid, during = syscall.Gettid(), threadNice(syscall.Gettid())
		slice, _ = timeslice.Get(tid)
	})
	if tid == self || during != base+5 {
		t.Fatalf("fn ran on thread %d (caller %d) at nice %d; want another thread at %d", tid, self, during, base+5)
	}
	if slices && slice != timeslice.Long {
		t.Errorf("fn ran with slice %v, want %v", slice, timeslice.Long)
	}
	if n := threadNice(self); n != base {
		t.Fatalf("the caller's thread is at nice %d after RunBulk, want %d", n, base)
	}
	if s, _ := timeslice.Get(self); s != selfSlice {
		t.Fatalf("the caller's thread has slice %v after RunBulk, want %v", s, selfSlice)
	}
	waitThreadGone(t, tid, "RunBulk returned")

	// Not lowered: the thread serves on, so it gives the slice back.
	RunBulk(0, func() {
		tid, during = syscall.Gettid(), threadNice(syscall.Gettid())
		slice, _ = timeslice.Get(tid)
	})
	if tid == self || during != base {
		t.Fatalf("nice 0: fn ran on thread %d at nice %d; want another thread than the caller's %d, at %d", tid, during, self, base)
	}
	if slices && slice != timeslice.Long {
		t.Errorf("nice 0: fn ran with slice %v, want %v", slice, timeslice.Long)
	}
	if s, err := timeslice.Get(tid); err == nil && s >= timeslice.Long {
		t.Errorf("nice 0: thread %d kept slice %v after RunBulk", tid, s)
	}

	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v from RunBulk, want fn's panic", r)
			}
		}()
		RunBulk(base+5, func() { panic("boom") })
		t.Fatal("RunBulk returned after fn panicked")
	}()
}

// waitThreadGone waits until thread tid has ended, as the runtime
// discards a thread whose goroutine exited still locked to it; after
// says after what.
func waitThreadGone(t *testing.T, tid int, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for threadNice(tid) != -100 {
		if time.Now().After(deadline) {
			t.Fatalf("thread %d still exists after %s, nice %d", tid, after, threadNice(tid))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kernelSlices reports whether this kernel keeps a time slice per thread
// (Linux 6.12 and later); the tests check slices only there.
func kernelSlices(t *testing.T) bool {
	t.Helper()
	ok := make(chan bool, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends here
		tid := syscall.Gettid()
		s, err := timeslice.Get(tid)
		if err == nil && s < timeslice.Long && timeslice.Set(tid, timeslice.Long) == nil {
			s, err = timeslice.Get(tid)
		}
		ok <- err == nil && s == timeslice.Long
	}()
	if !<-ok {
		t.Log("this kernel keeps no time slice per thread: slices are not checked")
		return false
	}
	return true
}
