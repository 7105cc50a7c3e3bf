package main

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/internal/timeslice"
	"github.com/perfkb/perfkb/kb/native"
)

// TestLightCore: --light-core keeps a slot from heavy work when on, never
// when off (the default), and by itself (auto) on machines of up to
// lightCoreMaxCores cores; an unknown value is a usage error.
func TestLightCore(t *testing.T) {
	for _, tc := range []struct {
		value string
		cores int
		want  bool
	}{
		{"on", 64, true},
		{"off", 2, false},
		{"auto", 1, true},
		{"auto", 2, true},
		{"auto", 4, true},
		{"auto", 5, false},
		{"auto", 16, false},
		{"", 2, false}, // unset: off, so heavy work alone keeps every core
	} {
		f := longQueryFlags{after: 1, gcPercent: 100, lightCore: tc.value, cores: tc.cores}
		if tc.value != "" {
			if err := f.validate(); err != nil {
				t.Fatalf("--light-core %q: %v", tc.value, err)
			}
		}
		if got := f.scheduler().KeepLightCore; got != tc.want {
			t.Errorf("--light-core %q on %d cores: keeps a light core %v, want %v", tc.value, tc.cores, got, tc.want)
		}
	}
	f := longQueryFlags{after: 1, gcPercent: 100, lightCore: "sometimes"}
	if err := f.validate(); err == nil {
		t.Error("--light-core sometimes: no error")
	}
}

// TestServiceNiceFlag: --service-nice reaches the admission (default 10),
// 0 leaves SERVICE answers at the server's own priority, and a value
// outside 0-19 is a usage error.
func TestServiceNiceFlag(t *testing.T) {
	for _, args := range []struct {
		argv []string
		want int
	}{{nil, 10}, {[]string{"--service-nice", "0"}, 0}, {[]string{"--service-nice", "15"}, 15}} {
		var f longQueryFlags
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		f.bind(fs)
		if err := fs.Parse(args.argv); err != nil {
			t.Fatal(err)
		}
		if err := f.validate(); err != nil {
			t.Fatalf("%v: %v", args.argv, err)
		}
		if got := f.scheduler().ServiceNice; got != args.want {
			t.Errorf("%v: ServiceNice %d, want %d", args.argv, got, args.want)
		}
	}
	for _, bad := range []int{-1, 20} {
		f := longQueryFlags{after: 1, gcPercent: 100, lightCore: "off", serviceNice: bad}
		if err := f.validate(); err == nil {
			t.Errorf("--service-nice %d: no error", bad)
		}
	}
}

// TestBulkSliceFlag: --bulk-slice is off by default, sets the slice bulk
// work asks for when serve tunes the runtime, and refuses a negative
// value or one over the kernel's 100 ms.
func TestBulkSliceFlag(t *testing.T) {
	defer timeslice.SetLong(0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer native.SetWriteWorkers(-1)
	defer native.SetBackgroundRunner(nil)
	for _, args := range []struct {
		argv []string
		want time.Duration
	}{{nil, 0}, {[]string{"--bulk-slice", "100ms"}, 100 * time.Millisecond}, {[]string{"--bulk-slice", "20ms"}, 20 * time.Millisecond}} {
		var f longQueryFlags
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		f.bind(fs)
		if err := fs.Parse(args.argv); err != nil {
			t.Fatal(err)
		}
		if err := f.validate(); err != nil {
			t.Fatalf("%v: %v", args.argv, err)
		}
		timeslice.SetLong(time.Millisecond) // not what any case asks for
		f.tuneRuntime(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
		if got := timeslice.Slice(); got != args.want {
			t.Errorf("%v: bulk slice %v, want %v", args.argv, got, args.want)
		}
	}
	for _, bad := range []time.Duration{-time.Millisecond, 101 * time.Millisecond} {
		f := longQueryFlags{after: 1, gcPercent: 100, lightCore: "off", bulkSlice: bad}
		if err := f.validate(); err == nil {
			t.Errorf("--bulk-slice %v: no error", bad)
		}
	}
}
