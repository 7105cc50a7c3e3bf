package server

import "syscall"

// threadPriorities: Linux schedules threads one by one, so a thread's
// nice value is its own.
const threadPriorities = true

func threadID() int { return syscall.Gettid() }

func setNice(tid, nice int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice) }
