package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// speedFlags are serve's memory and profiling settings.
type speedFlags struct {
	memory string // read-side budget of a native: store
	pprof  string // address of the net/http/pprof listener; "" = off
}

func (f *speedFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.memory, "memory", "", "memory for a native: store's in-memory read indexes (96 bytes per quad; e.g. 2GiB, 512MiB; 0 turns them off; default 2GiB); past it reads go to disk")
	fs.StringVar(&f.pprof, "pprof", "", "serve net/http/pprof on this loopback address (e.g. 127.0.0.1:6060); off by default")
}

// apply sets the native store's memory budget and starts the profiling
// listener; stop shuts the listener down.
func (f *speedFlags) apply(ctx context.Context, ds kb.Dataset, logger *slog.Logger) (stop func(), err error) {
	stop = func() {}
	var budget int64 // native.DefaultMemoryBudget
	if f.memory != "" {
		n, err := parseByteSize(f.memory)
		if err != nil {
			return stop, usageError(fmt.Errorf("--memory %q: %w", f.memory, err))
		}
		if budget = n; n == 0 {
			budget = -1 // off
		}
	}
	if ns, ok := ds.(*native.Store); ok {
		// store.Open leaves the read side off for CLI runs; a server
		// wants it, built now rather than by the first query.
		if err := ns.SetMemoryBudget(ctx, budget); err != nil {
			return stop, err
		}
	}
	if ns, ok := ds.(*native.Store); ok {
		logger.Info("native store reads", "from_memory", ns.ReadsFromMemory())
	}
	if f.pprof == "" {
		return stop, nil
	}
	host, _, err := net.SplitHostPort(f.pprof)
	if err != nil {
		return stop, usageError(fmt.Errorf("--pprof %q: %v", f.pprof, err))
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return stop, usageError(fmt.Errorf("--pprof %q: profiles are served on loopback addresses only", f.pprof))
	}
	// Contention profiles (/debug/pprof/mutex, /debug/pprof/block) are
	// empty unless sampled; the cost is small next to profiling at all.
	runtime.SetMutexProfileFraction(100)
	runtime.SetBlockProfileRate(int(100 * time.Microsecond))
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", f.pprof)
	if err != nil {
		return stop, fmt.Errorf("--pprof: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("pprof listener", "err", err)
		}
	}()
	logger.Info("pprof", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return func() { _ = srv.Close() }, nil
}
