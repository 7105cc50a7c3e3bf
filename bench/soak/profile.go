package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// profileConfig asks the server for a CPU profile of the loaded phase, an
// execution trace from its middle and its allocations (the server's
// --pprof listener): the profile says where the processors went, the trace
// which goroutines ran while a slow read waited for one (`go tool trace
// -pprof=sched`), the allocations what drives the garbage collector.
type profileConfig struct {
	dir   string        // where cpu.pprof and trace.out go; "" = off
	trace time.Duration // length of the trace (0: none)
	// traceAt is when the trace starts, from the loaded phase's start
	// (negative: its middle).
	traceAt time.Duration
	addr    string // the server's --pprof address, set by run
}

// fetchProfiles fetches the CPU profile over all but the last five
// seconds of a loaded phase of length d, the trace starting at p.traceAt
// (or the phase's middle), and the allocation profile (since the server started) near its
// end, into p.dir; it returns when both are written or ctx ends.
func fetchProfiles(ctx context.Context, p profileConfig, d time.Duration) {
	if p.dir == "" || p.addr == "" {
		return
	}
	done := make(chan struct{}, 3)
	get := func(after time.Duration, path, file string) {
		defer func() { done <- struct{}{} }()
		select {
		case <-ctx.Done():
			return
		case <-time.After(after):
		}
		resp, err := http.Get("http://" + p.addr + path)
		if err != nil {
			fmt.Printf("  profile %s: %v\n", file, err)
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(filepath.Join(p.dir, file))
		if err != nil {
			fmt.Printf("  profile %s: %v\n", file, err)
			return
		}
		n, err := io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		fmt.Printf("  profile %s: %d bytes (%v)\n", file, n, err)
	}
	secs := int((d - 5*time.Second).Seconds())
	if secs < 1 {
		secs = 1
	}
	go get(0, fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs), "cpu.pprof")
	if p.trace > 0 {
		at := p.traceAt
		if at < 0 {
			at = d / 2
		}
		go get(at, fmt.Sprintf("/debug/pprof/trace?seconds=%d", int(p.trace.Seconds())), "trace.out")
	} else {
		done <- struct{}{}
	}
	go get(d-3*time.Second, "/debug/pprof/allocs", "allocs.pprof")
	<-done
	<-done
	<-done
}
