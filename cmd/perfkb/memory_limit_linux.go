package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// systemMemoryLimit is the least of the cgroup's memory limit (v2
// memory.max, or v1 memory.limit_in_bytes), half the address-space limit
// and the physical memory.
func systemMemoryLimit() (int64, string) {
	var cgroup int64
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(path); err == nil {
			if cgroup = parseCgroupLimit(string(b)); cgroup > 0 {
				break
			}
		}
	}
	var as int64
	var rl syscall.Rlimit
	// RLIM_INFINITY is all ones: no limit.
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur < 1<<62 {
		as = int64(rl.Cur)
	}
	var physical int64
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err == nil {
		physical = int64(si.Totalram) * int64(si.Unit)
	}
	return leastLimit(cgroup, as, physical)
}

// parseCgroupLimit reads a cgroup memory limit file: a byte count, or
// "max" (v2) or a huge number (v1) for none, which are 0.
func parseCgroupLimit(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n >= 1<<60 {
		return 0
	}
	return n
}
