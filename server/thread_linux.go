package server

import "syscall"

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
