package main

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// A server's live heap is small (tens of MB: the store's read side lies
// outside it), so with the collector's percent alone a cycle came every
// 20 to 40 MB allocated: under the hardening soak's load (hostile
// queries, writers, attacks' bodies) two to three cycles a second, and
// each cycle's stop of the world must wait for every processor, while
// its marking takes a processor from the requests and makes those that
// allocate help it. gcFloor gives the heap a floor: no cycle runs before
// the heap reaches floor bytes, and above it the percent rules as
// before. The runtime has no such setting; it is built from its two
// knobs: the percent off, and the soft memory limit set after each cycle
// to the larger of the floor and what the percent would allow
// (live × (1 + percent/100)), plus the runtime's memory outside the
// heap, and never above the operator's soft limit.

// gcFloorDefault is --gc-floor auto's floor for a soft limit: an eighth
// of it, at most 256 MiB. The floor is garbage that may wait for the
// collector, so it shows in the resident size and in what the rule
// engine's budget, which reads the heap's objects, sees a run grow by.
// It is not on by default: in one of two 2-minute soaks with it (and
// the sensor flood's store writes in a heavy slot) the server died out of
// memory under ulimit -v 5G, folding the native store's read index
// (2.49 GB in use); without it the server peaked at 2.0-2.2 GiB there.
func gcFloorDefault(soft int64) int64 { return min(soft/8, 256<<20) }

// gcFloor keeps the collector from running below floor bytes of heap
// until ctx ends. soft is the runtime's soft memory limit, which the
// limit it sets never passes; percent is the collector's percent it
// stands in for. It does nothing (and returns nil) when floor or soft is
// not positive.
func gcFloor(ctx context.Context, floor, soft int64, percent int, logger *slog.Logger) *gcTuner {
	if floor <= 0 || soft <= 0 || percent <= 0 {
		return nil
	}
	t := &gcTuner{floor: floor, soft: soft, percent: int64(percent)}
	t.tune() // before the percent is turned off: a limit in place
	debug.SetGCPercent(-1)
	cycles := make(chan struct{}, 1)
	// A cleanup runs after the cycle that found its object unreachable:
	// one object per cycle, the next made by the goroutine below.
	arm := func() {
		// Not a tiny object (under 16 bytes, pointer-free): those share
		// a block with others, and the cleanup waits for all of them.
		runtime.AddCleanup(new(gcSentinel), func(chan struct{}) {
			select {
			case cycles <- struct{}{}:
			default:
			}
		}, cycles)
	}
	arm()
	t.stopped = make(chan struct{})
	go func() {
		defer func() {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(soft)
			close(t.stopped)
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-cycles:
			}
			t.tune()
			t.tunes.Add(1)
			arm()
		}
	}()
	logger.Debug("collector's floor", "floor", formatByteSize(floor), "soft_limit", formatByteSize(soft), "percent", percent)
	return t
}

// gcTuner computes the soft limit that stands for the percent and floor.
type gcTuner struct {
	floor, soft, percent int64
	samples              []metrics.Sample
	tunes                atomic.Int64  // after a cycle (tests)
	stopped              chan struct{} // closed once the percent is back
}

// gcSentinel is the object whose cleanup tells the tuner a cycle ended.
type gcSentinel struct{ _ [32]byte }

var gcTunerMetrics = []string{
	"/gc/heap/live:bytes",         // marked live by the last cycle
	"/memory/classes/total:bytes", // what the soft limit counts, less released
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

// tune sets the soft limit for the last cycle's live heap.
func (t *gcTuner) tune() {
	debug.SetMemoryLimit(t.limit())
}

func (t *gcTuner) limit() int64 {
	if t.samples == nil {
		for _, name := range gcTunerMetrics {
			t.samples = append(t.samples, metrics.Sample{Name: name})
		}
	}
	metrics.Read(t.samples)
	v := make([]int64, len(t.samples))
	for i, s := range t.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64())
		}
	}
	// Outside the heap: stacks, the runtime's own structures. The heap's
	// free and unused spans are not added: the next cycle's objects reuse
	// them, and counted here they would raise every limit by the last
	// one's garbage.
	live, total := v[0], v[1]
	outside := max(0, total-v[2]-v[3]-v[4]-v[5])
	return gcLimit(live, outside, t.floor, t.soft, t.percent)
}

// gcLimit is the soft limit for a live heap: the heap the percent allows
// (or the floor, if more), plus the memory outside the heap's objects,
// at most soft.
func gcLimit(live, outside, floor, soft, percent int64) int64 {
	heap := max(floor, live+live*percent/100)
	return min(soft, heap+outside)
}
