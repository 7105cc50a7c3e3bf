package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/internal/timeslice"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server/backend"
)

// The main goroutine keeps the main thread (LockOSThread in an init runs
// main there), so that no request runs on it: the Go runtime cannot end
// the main thread, so a long query there could not be given a lower
// priority (server.LowerPriority leaves it alone).
func init() { runtime.LockOSThread() }

// longQueryFlags configure admission by cost: when a query is heavy and
// how many heavy queries run at once (backend.Admission).
type longQueryFlags struct {
	after time.Duration
	steps int64
	nice  int
	lanes int
	// serviceNice is --service-nice.
	serviceNice int
	// bulkSlice is --bulk-slice.
	bulkSlice time.Duration
	// gcPercent is the garbage collector's GOGC.
	gcPercent int
	// gcFloor is --gc-floor: "" or "0" for none, "auto" for
	// gcFloorDefault, or a size.
	gcFloor string
	// lightCore is --light-core: "auto", "on" or "off".
	lightCore string
	// writeCores is --write-cores (0: all but one).
	writeCores int
	cores      int // set by tuneRuntime
	// built, when set, is the admission scheduler returns: sensor-listen
	// --http shares the endpoint's with its sensor parsing.
	built *backend.Admission
}

func (f *longQueryFlags) bind(fs *pflag.FlagSet) {
	fs.DurationVar(&f.after, "long-query-after", 100*time.Millisecond, "a query running longer than this (its thread's processor time, on Linux) is heavy: it runs only while it holds one of the run slots, which heavy queries share in turns per client; light queries never wait (0: no admission)")
	fs.Int64Var(&f.steps, "long-query-steps", backend.DefaultSteps, "a query past this many evaluation steps is heavy too, however fast it ran (0: only --long-query-after counts)")
	fs.IntVar(&f.nice, "long-query-nice", 0, "the OS priority (nice value, 1-19) of a heavy query's thread; 0: unchanged (Linux only)")
	fs.DurationVar(&f.bulkSlice, "bulk-slice", 0, "the time slice (up to 100ms) that bulk work's threads ask the kernel for (heavy queries, SERVICE answers, sensor floods, store writes): a lookup's thread that wakes beside one runs at once, and the bulk work keeps its share; 0: off (Linux 6.12 and later)")
	fs.IntVar(&f.serviceNice, "service-nice", defaultServiceNice, "the OS priority (nice value, 1-19) of the threads that read SERVICE answers, so that on a busy machine local queries run first; 0: unchanged (Linux only)")
	fs.IntVar(&f.gcPercent, "gc-percent", defaultGCPercent, "how far the heap may grow past the live data before the Go garbage collector runs (as $GOGC, which wins when set); higher: fewer collections, more memory")
	fs.StringVar(&f.gcFloor, "gc-floor", "", "heap the Go garbage collector lets fill before it runs at all (e.g. 256MiB; auto: an eighth of the runtime's soft memory limit, at most 256MiB; default none; none when $GOGC or $GOMEMLIMIT is set); above it --gc-percent rules. Fewer collections, more resident memory")
	fs.StringVar(&f.lightCore, "light-core", "off", "keep one run slot from heavy work at all times, so a light query never finds every core busy with heavy queries, bulk parsing or SERVICE answers (on, off; auto: on with up to "+fmt.Sprint(lightCoreMaxCores)+" cores); off by default: an analyst's heavy query alone then loses a core of a small machine")
	fs.IntVar(&f.writeCores, "write-cores", 0, "the most cores the native store's writes and folds keep busy at once (0: all but one, at least one), so that a fold after a large ingest leaves a core to the readers")
	fs.IntVar(&f.lanes, "long-query-lanes", 0, "queries that run at once (run slots); the others wait for a turn, light ones first (default: one per core)")
	_ = fs.MarkDeprecated("long-query-nice", "the run slots keep heavy queries to the cores; a lowered thread loses the processor to everything else on the machine")
}

func (f *longQueryFlags) validate() error {
	if f.after < 0 {
		return usageError(fmt.Errorf("--long-query-after must not be negative (0 turns scheduling off)"))
	}
	if f.steps < 0 {
		return usageError(fmt.Errorf("--long-query-steps must not be negative (0: only --long-query-after counts)"))
	}
	if f.nice < 0 || f.nice > 19 {
		return usageError(fmt.Errorf("--long-query-nice must be between 0 (unchanged) and 19 (lowest)"))
	}
	if f.bulkSlice < 0 || f.bulkSlice > timeslice.Long {
		return usageError(fmt.Errorf("--bulk-slice must be between 0 (off) and %v", timeslice.Long))
	}
	if f.serviceNice < 0 || f.serviceNice > 19 {
		return usageError(fmt.Errorf("--service-nice must be between 0 (unchanged) and 19 (lowest)"))
	}
	if f.gcPercent <= 0 {
		return usageError(fmt.Errorf("--gc-percent must be positive"))
	}
	if f.gcFloor != "" && f.gcFloor != "auto" {
		if n, err := parseByteSize(f.gcFloor); err != nil || n < 0 {
			return usageError(fmt.Errorf("--gc-floor %q: want a size such as 256MiB, auto, or 0", f.gcFloor))
		}
	}
	switch f.lightCore {
	case "auto", "on", "off":
	default:
		return usageError(fmt.Errorf("--light-core %q: want auto, on or off", f.lightCore))
	}
	if f.writeCores < 0 {
		return usageError(fmt.Errorf("--write-cores must not be negative (0: all cores but one)"))
	}
	if f.lanes < 0 {
		return usageError(fmt.Errorf("--long-query-lanes must not be negative (0: one per core)"))
	}
	return nil
}

// defaultGCPercent is --gc-percent. A collection's mark phase takes
// processors from every request and makes the ones that allocate help it,
// so short reads meet it as a delay; the server's live heap is small (tens
// of MB), so at Go's default of 100 it collected three to four times a
// second under the soak test's load. At 200 the read p99 went from 13.9
// to 10.6 ms there and peak RSS from 437 to 545 MiB (400: 11.1 ms, 989
// MiB).
const defaultGCPercent = 200

// tuneRuntime sets the garbage collector's percent (unless $GOGC is set)
// and gives the Go runtime spareProcessors processors more than the
// cores, unless $GOMAXPROCS says otherwise, remembers the cores for the
// lanes and bounds the cores the native store's writes use
// (--write-cores). The runtime polls the network only from an idle
// processor (or else from its 10 ms system monitor: golang/go#51651), so
// with every processor busy a light request's bytes would be noticed late
// at each read and write; a spare processor is idle whenever the run
// slots keep the cores busy and lets the kernel, with its finer time
// slices, run the request at once. With --gc-floor, unless $GOGC or
// $GOMEMLIMIT is set, the heap gets its floor (gcFloor) under soft, the
// runtime's soft memory limit (0: none known), until ctx ends. Called
// once, by perfkb serve.
func (f *longQueryFlags) tuneRuntime(ctx context.Context, logger *slog.Logger, soft int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(f.gcPercent)
		var floor int64 // none
		switch f.gcFloor {
		case "":
		case "auto":
			floor = gcFloorDefault(soft)
		default:
			floor, _ = parseByteSize(f.gcFloor) // checked by validate
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			gcFloor(ctx, floor, soft, f.gcPercent, logger)
		}
	}
	timeslice.SetLong(f.bulkSlice)
	f.cores = runtime.GOMAXPROCS(0)
	writeCores := f.writeCores
	if writeCores == 0 {
		writeCores = max(1, f.cores-1)
	}
	// The writing goroutine is one of them.
	native.SetWriteWorkers(writeCores - 1)
	native.SetBackgroundRunner(background)
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(f.cores + spareProcessors)
		logger.Debug("go processors", "cores", f.cores, "processors", f.cores+spareProcessors)
	}
}

// spareProcessors is how many Go processors serve adds to the cores. One
// was not enough under the hardening soak on two cores: besides the run
// slots' heavy work, the sensor writer, a streamed answer's coroutines
// and the collector's workers held every processor, and a trace showed a
// light read's bytes found by the system monitor 10 ms after they came.
// With two, over the sensor flood's first 100 seconds, reads over 10 ms
// went from 19 to 5 of 1,600 (over 20 ms from 7 to 0), one run each.
const spareProcessors = 2

// background runs work that a query started and no client waits for:
// derived values' builds (query.Options.Background) and the native
// store's statistics (native.SetBackgroundRunner), each on a goroutine of
// its own that the caller starts.
func background(fn func()) { timeslice.Bulk(fn) }

// defaultServiceNice is --service-nice's default: a thread at nice 10
// has about a tenth of the processor share of one at 0, so a lookup that
// wakes beside it takes the core at once, while on an idle machine the
// answer is read at full speed.
const defaultServiceNice = 10

// lightCoreMaxCores is the most cores on which --light-core auto keeps a
// slot from heavy work: on a few cores a lookup arriving while heavy work
// holds every slot waits for a processor (backend.Admission.KeepLightCore),
// and on many the core kept idle is a small share.
const lightCoreMaxCores = 4

// keepLightCore is --light-core for the admission's slots.
func (f *longQueryFlags) keepLightCore() bool {
	switch f.lightCore {
	case "on":
		return true
	case "auto":
	default: // off, or unset
		return false
	}
	cores := f.cores
	if cores == 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	return cores <= lightCoreMaxCores
}

// scheduler returns the admission, or nil when it is off.
func (f *longQueryFlags) scheduler() *backend.Admission {
	if f.built != nil {
		return f.built
	}
	if f.after == 0 {
		return nil
	}
	slots := f.lanes
	if slots == 0 {
		cores := f.cores
		if cores == 0 {
			cores = runtime.GOMAXPROCS(0)
		}
		slots = backend.DefaultSlots(cores)
	}
	a := backend.NewAdmission(f.after, slots)
	a.Steps, a.Nice, a.ServiceNice = f.steps, f.nice, f.serviceNice
	a.KeepLightCore = f.keepLightCore()
	// As many lanes again for light queries only, in place of the slots
	// heavy queries hold: a lookup never waits for heavy queries' threads
	// to get a processor on a loaded machine, and light queries alone
	// never run more at once than there are cores.
	a.LightReserve = slots
	return a
}
