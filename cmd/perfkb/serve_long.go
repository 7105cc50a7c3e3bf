package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/server/backend"
)

// longQueryFlags configure how queries that run long share the cores with
// short ones (backend.LongQueries).
type longQueryFlags struct {
	after time.Duration
}

func (f *longQueryFlags) bind(fs *pflag.FlagSet) {
	fs.DurationVar(&f.after, "long-query-after", 100*time.Millisecond, "a query running longer than this gives way to shorter ones (pauses while they run, at most 10ms at a time); 0: no scheduling")
}

func (f *longQueryFlags) validate() error {
	if f.after < 0 {
		return usageError(fmt.Errorf("--long-query-after must not be negative (0 turns scheduling off)"))
	}
	return nil
}

// scheduler returns the long-query scheduler, or nil when it is off.
func (f *longQueryFlags) scheduler() *backend.LongQueries {
	if f.after == 0 {
		return nil
	}
	return backend.NewLongQueries(f.after)
}
