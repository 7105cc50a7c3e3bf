package server

import (
	"syscall"
	"time"
	"unsafe"
)

// threadPriorities: Linux schedules threads one by one, so a thread's
// nice value is its own.
const threadPriorities = true

func threadID() int { return syscall.Gettid() }

func setNice(tid, nice int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice) }

// getNice reads a thread's nice value; the raw getpriority system call
// answers 20 - nice so that its result is never negative.
func getNice(tid int) (int, error) {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	return 20 - p, err
}

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// threadCPU is the processor time the calling thread has used. The clock
// is read with a raw system call: it never blocks, and the runtime's
// bookkeeping around an ordinary one lets its processor go to another
// goroutine, which a loaded 2-core server's query then waited to get back
// (a soak trace: 5 ms at a query's admission).
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
