package timeslice

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadID is the calling thread's ID (0 where threads cannot be told
// apart).
func ThreadID() int { return unix.Gettid() }

// Set asks for slice d for thread tid (0: the kernel's default), keeping
// its scheduling policy and nice value.
func Set(tid int, d time.Duration) error {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return err
	}
	if attr.Policy != unix.SCHED_NORMAL && attr.Policy != unix.SCHED_BATCH && attr.Policy != unix.SCHED_IDLE {
		return nil // a real-time thread's runtime means something else
	}
	attr.Size = unix.SizeofSchedAttr
	attr.Flags = 0
	attr.Runtime = uint64(d)
	attr.Deadline, attr.Period = 0, 0
	return unix.SchedSetAttr(tid, attr, 0)
}

// Get is thread tid's slice: the one it asked for, or the kernel's
// default (older kernels: 0).
func Get(tid int) (time.Duration, error) {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return 0, err
	}
	return time.Duration(attr.Runtime), nil
}
