package timeslice

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// needSlices skips the test where the kernel keeps no slice per thread
// (before Linux 6.12 sched_setattr accepts sched_runtime for ordinary
// threads and ignores it).
func needSlices(t *testing.T) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := ThreadID()
	if err := Set(tid, Long); err != nil {
		t.Skipf("sched_setattr: %v", err)
	}
	defer Set(tid, 0)
	if s, err := Get(tid); err != nil || s != Long {
		t.Skipf("this kernel keeps no time slice per thread (asked for %v, sched_getattr says %v, %v)", Long, s, err)
	}
}

// TestBulk: the thread has the long slice while fn runs and the default
// one after, a Bulk within it leaves the slice to the outer one, and the
// thread's nice value is kept throughout.
func TestBulk(t *testing.T) {
	needSlices(t)
	SetLong(Long)
	t.Cleanup(func() { SetLong(0) })
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := ThreadID()
	before, err := Get(tid)
	if err != nil {
		t.Fatal(err)
	}
	if before >= Long {
		t.Fatalf("the test's thread starts with slice %v", before)
	}
	nice, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	var during, inner, afterInner time.Duration
	Bulk(func() {
		if ThreadID() != tid {
			t.Errorf("fn ran on thread %d, want the caller's %d", ThreadID(), tid)
		}
		during, _ = Get(tid)
		Bulk(func() { inner, _ = Get(tid) })
		afterInner, _ = Get(tid)
	})
	after, _ := Get(tid)
	if during != Long || inner != Long || afterInner != Long {
		t.Errorf("slice during fn %v, in a Bulk within it %v, after that Bulk %v; want %v each", during, inner, afterInner, Long)
	}
	if after != before {
		t.Errorf("slice after Bulk %v, want the default %v again", after, before)
	}
	if n, _ := syscall.Getpriority(syscall.PRIO_PROCESS, tid); n != nice {
		t.Errorf("raw priority %d after Bulk, want %d", n, nice)
	}
}

// TestSetKeepsNice: asking for a slice keeps a lowered thread's nice
// value, and asking for the default slice again needs no privilege.
func TestSetKeepsNice(t *testing.T) {
	needSlices(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the lowered thread ends here
		tid := ThreadID()
		cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
		if err != nil {
			t.Error(err)
			return
		}
		nice := min(19, 20-cur+3)
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
			t.Error(err)
			return
		}
		for _, d := range []time.Duration{Long, 0} {
			if err := Set(tid, d); err != nil {
				t.Errorf("Set(%v) at nice %d: %v", d, nice, err)
			}
			if p, _ := syscall.Getpriority(syscall.PRIO_PROCESS, tid); 20-p != nice {
				t.Errorf("nice %d after Set(%v), want %d", 20-p, d, nice)
			}
		}
		if s, _ := Get(tid); s >= Long {
			t.Errorf("slice %v after asking for the default", s)
		}
	}()
	<-done
}

// TestBulkOff: with marking off, the default, Bulk and Begin leave the
// thread's slice alone.
func TestBulkOff(t *testing.T) {
	needSlices(t)
	SetLong(0)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := ThreadID()
	before, _ := Get(tid)
	var during time.Duration
	Bulk(func() { during, _ = Get(tid) })
	end := Begin()
	inBegin, _ := Get(tid)
	end()
	if during != before || inBegin != before {
		t.Errorf("marking off: slice %v in Bulk, %v after Begin; want %v", during, inBegin, before)
	}
}
