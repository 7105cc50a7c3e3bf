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
		deadline := time.Now().Add(5 * time.Second)
		for threadNice(q.tid) != -100 {
			if time.Now().After(deadline) {
				t.Fatalf("thread %d still exists after the request, nice %d", q.tid, threadNice(q.tid))
			}
			time.Sleep(10 * time.Millisecond)
		}
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
