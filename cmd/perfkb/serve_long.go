package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/server/backend"
)

// longQueryFlags configure how queries that run long share the cores with
// short ones (backend.LongQueries).
type longQueryFlags struct {
	after time.Duration
	lanes int
	cores int // set by spareProcessor
}

func (f *longQueryFlags) bind(fs *pflag.FlagSet) {
	fs.DurationVar(&f.after, "long-query-after", 100*time.Millisecond, "a query running longer than this gives way to shorter ones (pauses while they run, at most 10ms at a time); 0: no scheduling")
	fs.IntVar(&f.lanes, "long-query-lanes", 0, "long queries that run at once; the others wait for a turn (default: one fewer than the cores, at least one)")
}

func (f *longQueryFlags) validate() error {
	if f.after < 0 {
		return usageError(fmt.Errorf("--long-query-after must not be negative (0 turns scheduling off)"))
	}
	if f.lanes < 0 {
		return usageError(fmt.Errorf("--long-query-lanes must not be negative (0: one fewer than the cores)"))
	}
	return nil
}

// spareProcessor gives the Go runtime one processor more than the cores,
// unless $GOMAXPROCS says otherwise, and remembers the cores for the
// lanes. The runtime polls the network only from an idle processor (or
// else from its 10 ms system monitor), so with every processor busy in
// query work a short request's connection would be noticed late at each
// read and write; the spare processor is idle whenever the cores are
// saturated and lets the kernel, with its finer time slices, run the
// request at once. Called once, by perfkb serve.
func (f *longQueryFlags) spareProcessor(logger *slog.Logger) {
	f.cores = runtime.GOMAXPROCS(0)
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(f.cores + 1)
		logger.Debug("go processors", "cores", f.cores, "processors", f.cores+1)
	}
}

// scheduler returns the long-query scheduler, or nil when it is off.
func (f *longQueryFlags) scheduler() *backend.LongQueries {
	if f.after == 0 {
		return nil
	}
	lanes := f.lanes
	if lanes == 0 {
		cores := f.cores
		if cores == 0 {
			cores = runtime.GOMAXPROCS(0)
		}
		lanes = backend.DefaultLanes(cores)
	}
	return backend.NewLongQueries(f.after, lanes)
}
