package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/pflag"
)

// queryProfileFlag is perfkb query's (and reason's) --cpuprofile: a CPU
// profile of the whole command (opening the store, planning, evaluation,
// writing the answer), so that what a one-shot query pays and a warm server does not
// can be seen with `go tool pprof`.
type queryProfileFlag struct{ path, trace string }

func (f *queryProfileFlag) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.path, "cpuprofile", "", "write a CPU profile of the command (open, plan, run, write) to this file")
	fs.StringVar(&f.trace, "trace", "", "write a runtime execution trace of the command to this file (go tool trace: which goroutines waited, and on what)")
}

// start begins profiling when --cpuprofile is set; the returned function
// stops it and closes the file.
func (f *queryProfileFlag) start() (stop func() error, err error) {
	stopTrace := func() error { return nil }
	if f.trace != "" {
		tf, err := os.Create(f.trace)
		if err != nil {
			return nil, usageError(fmt.Errorf("--trace: %w", err))
		}
		if err := trace.Start(tf); err != nil {
			tf.Close()
			return nil, fmt.Errorf("--trace: %w", err)
		}
		stopTrace = func() error {
			trace.Stop()
			return tf.Close()
		}
	}
	if f.path == "" {
		return stopTrace, nil
	}
	out, err := os.Create(f.path)
	if err != nil {
		return nil, usageError(fmt.Errorf("--cpuprofile: %w", err))
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		stopTrace()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return errors.Join(out.Close(), stopTrace())
	}, nil
}
