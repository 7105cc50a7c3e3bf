package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/pflag"
)

// queryProfileFlag is perfkb query's (and reason's) --cpuprofile: a CPU
// profile of the whole command (opening the store, planning, evaluation,
// writing the answer), so that what a one-shot query pays and a warm server does not
// can be seen with `go tool pprof`.
type queryProfileFlag struct{ path string }

func (f *queryProfileFlag) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "cpuprofile", "", "write a CPU profile of the command (open, plan, run, write) to this file")
}

// start begins profiling when --cpuprofile is set; the returned function
// stops it and closes the file.
func (f *queryProfileFlag) start() (stop func() error, err error) {
	if f.path == "" {
		return func() error { return nil }, nil
	}
	out, err := os.Create(f.path)
	if err != nil {
		return nil, usageError(fmt.Errorf("--cpuprofile: %w", err))
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return out.Close()
	}, nil
}
