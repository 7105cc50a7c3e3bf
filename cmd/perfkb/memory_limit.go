package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"
)

// --memory-limit is the one number a server's operator sets (as Virtuoso's
// and Jena's users set a heap size): the memory the whole process may use.
// Each budget a server keeps (what the queries hold together and each one,
// the request bodies held whole, the sensor queue and a sensor batch, a
// rule run, the native store's read indexes) defaults to a share of it,
// and the Go runtime's soft limit (debug.SetMemoryLimit) is set from it so
// that the collector works harder before the process reaches the limit.
// Fixed defaults could not fit every machine: together they exceeded the
// 5 GiB of address space a `ulimit -v 5G` server has, and the server died
// under the hardening soak. A budget given on the command line keeps its
// value; only the unset ones are derived.
//
// Unset, the limit comes from the process's surroundings: the cgroup's
// memory.max, half the address-space limit (ulimit -v: thread stacks,
// the C allocator's arenas, mapped store files and the runtime's own
// reservations take address space the heap never sees; a loaded server
// had 1.9 GiB of address space at 67 MiB resident), and the physical
// memory, whichever is least.

// memoryLimitFlag is --memory-limit.
type memoryLimitFlag struct{ text string }

func (f *memoryLimitFlag) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.text, "memory-limit", "", "memory the whole server may use (e.g. 4GiB); the unset budgets (--query-memory-total, --query-memory, --body-memory, --rules-memory, --memory, and sensor-listen's --max-queue and --max-batch) default to shares of it and the Go runtime's soft limit to three quarters (default: the least of the cgroup's memory.max, half of ulimit -v and the physical memory)")
}

// memoryShare is one budget flag's default as a share of the limit.
type memoryShare struct {
	flag     string
	div      int64 // the share is limit/div
	min, max int64 // clamp (0: none)
}

// memoryShares are the budgets derived from --memory-limit. Together the
// shares that can all be full at once (queries, bodies, queue, batch,
// rule run, read indexes) come to about 0.85 of the limit at most; the
// estimates the budgets charge are below what the heap really holds, and
// the runtime's soft limit (three quarters) makes the collector hold the
// heap near what is live.
var memoryShares = []memoryShare{
	{flag: "query-memory-total", div: 4},
	{flag: "query-memory", div: 8, max: 512 << 20},
	{flag: "body-memory", div: 16},
	{flag: "rules-memory", div: 4, max: 1 << 30},
	{flag: "memory", div: 4, max: 2 << 30}, // the native store's read indexes
	{flag: "max-queue", div: 64, max: 256 << 20},
	{flag: "max-batch", div: 1024, min: 1 << 20, max: 16 << 20},
}

// share returns the budget s takes of limit.
func (s memoryShare) share(limit int64) int64 {
	v := limit / s.div
	if s.max > 0 {
		v = min(v, s.max)
	}
	return max(v, s.min)
}

// memoryPlan is what applyMemoryLimit decided, for the log.
type memoryPlan struct {
	limit   int64
	source  string
	derived []string // "flag=size" of the budgets it set
	soft    int64    // the runtime's soft limit it set (0: GOMEMLIMIT was set)
}

// log tells the operator the limit and where it came from.
func (p memoryPlan) log(logger *slog.Logger) {
	if p.limit <= 0 {
		return
	}
	logger.Info("memory limit", "limit", formatByteSize(p.limit), "from", p.source, "derived", p.derived, "go_soft_limit", formatByteSize(p.soft))
}

// applyMemoryLimit resolves --memory-limit and sets the unset budget flags
// of fs (those it has) to their shares, and the runtime's soft limit;
// call it before the flags are validated. With no limit known (not Linux,
// no flag) the flags keep their fixed defaults.
func (f *memoryLimitFlag) apply(fs *pflag.FlagSet) (memoryPlan, error) {
	var p memoryPlan
	if f.text != "" {
		n, err := parseByteSize(f.text)
		if err == nil && n <= 0 {
			err = fmt.Errorf("must be positive")
		}
		if err != nil {
			return p, usageError(fmt.Errorf("--memory-limit %q: %w", f.text, err))
		}
		p.limit, p.source = n, "--memory-limit"
	} else {
		p.limit, p.source = systemMemoryLimit()
	}
	if p.limit <= 0 {
		return p, nil
	}
	for _, s := range memoryShares {
		fl := fs.Lookup(s.flag)
		if fl == nil || fl.Changed {
			continue
		}
		v := formatByteSize(s.share(p.limit))
		if err := fl.Value.Set(v); err != nil {
			return p, fmt.Errorf("--%s from --memory-limit: %w", s.flag, err)
		}
		p.derived = append(p.derived, s.flag+"="+v)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		p.soft = p.limit / 4 * 3
		debug.SetMemoryLimit(p.soft)
	}
	return p, nil
}

// formatByteSize writes n in the largest binary unit that divides it
// (parseByteSize reads it back exactly).
func formatByteSize(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// leastLimit returns the least of the known limits (cgroup, address
// space, physical; 0 where unknown) and names where it came from.
func leastLimit(cgroup, addressSpace, physical int64) (int64, string) {
	best, from := int64(0), ""
	for _, c := range []struct {
		v    int64
		from string
	}{{cgroup, "the cgroup's memory.max"}, {addressSpace / 2, "half the address-space limit (ulimit -v)"}, {physical, "the physical memory"}} {
		if c.v > 0 && (best == 0 || c.v < best) {
			best, from = c.v, c.from
		}
	}
	return best, from
}
