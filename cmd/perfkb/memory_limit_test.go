package main

import (
	"runtime/debug"
	"testing"

	"github.com/spf13/cobra"
)

// TestMemoryLimitShares derives the budgets of serve and sensor-listen
// from --memory-limit; the wanted sizes are the shares worked out by hand
// (limit/4 for the query pool, limit/8 capped at 512 MiB per query, …).
func TestMemoryLimitShares(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	for _, tc := range []struct {
		name  string
		cmd   func(*App) *cobra.Command
		args  []string
		want  map[string]string
		gcCap int64
	}{
		{"serve 4GiB", newServeCmd, []string{"--memory-limit", "4GiB"}, map[string]string{
			"query-memory-total": "1GiB", "query-memory": "512MiB", "body-memory": "256MiB",
			"rules-memory": "1GiB", "memory": "1GiB"}, 3 << 30},
		{"serve 512MiB", newServeCmd, []string{"--memory-limit", "512MiB"}, map[string]string{
			"query-memory-total": "128MiB", "query-memory": "64MiB", "body-memory": "32MiB",
			"rules-memory": "128MiB", "memory": "128MiB"}, 384 << 20},
		{"serve 64GiB caps", newServeCmd, []string{"--memory-limit", "64GiB"}, map[string]string{
			"query-memory-total": "16GiB", "query-memory": "512MiB", "body-memory": "4GiB",
			"rules-memory": "1GiB", "memory": "2GiB"}, 48 << 30},
		{"an explicit budget stays", newServeCmd, []string{"--memory-limit", "4GiB", "--body-memory", "100MiB"}, map[string]string{
			"body-memory": "100MiB", "query-memory-total": "1GiB"}, 3 << 30},
		{"sensor-listen 4GiB", newSensorListenCmd, []string{"--memory-limit", "4GiB"}, map[string]string{
			"max-queue": "64MiB", "max-batch": "4MiB", "query-memory-total": "1GiB", "body-memory": "256MiB"}, 3 << 30},
		{"sensor-listen 512MiB", newSensorListenCmd, []string{"--memory-limit", "512MiB"}, map[string]string{
			"max-queue": "8MiB", "max-batch": "1MiB"}, 384 << 20},
		{"otlp-listen 4GiB", newOTLPListenCmd, []string{"--memory-limit", "4GiB"}, map[string]string{
			"max-queue": "64MiB"}, 3 << 30},
		{"sensor-listen 64GiB caps", newSensorListenCmd, []string{"--memory-limit", "64GiB"}, map[string]string{
			"max-queue": "256MiB", "max-batch": "16MiB"}, 48 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := tc.cmd(&App{})
			fs := cmd.Flags()
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			f := memoryLimitFlag{text: fs.Lookup("memory-limit").Value.String()}
			p, err := f.apply(fs)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				if got := fs.Lookup(name).Value.String(); got != want {
					t.Errorf("--%s = %q, want %q", name, got, want)
				}
			}
			if got := debug.SetMemoryLimit(-1); got != tc.gcCap || p.soft != tc.gcCap {
				t.Errorf("Go soft limit %d (plan %d), want %d", got, p.soft, tc.gcCap)
			}
		})
	}
}

// TestMemoryLimitBudgetsFitUnderUlimit: under `ulimit -v 5G` (and no
// smaller cgroup or machine) the budgets that can all be full at once sum
// to less than the limit derived from it, half the address space.
func TestMemoryLimitBudgetsFitUnderUlimit(t *testing.T) {
	limit, from := leastLimit(0, 5<<30, 24<<30)
	if limit != 5<<29 || from != "half the address-space limit (ulimit -v)" {
		t.Fatalf("limit %d from %q, want 2.5 GiB from ulimit -v", limit, from)
	}
	var sum int64
	for _, s := range memoryShares {
		if s.flag == "query-memory" {
			continue // a part of query-memory-total, not beside it
		}
		sum += s.share(limit)
	}
	if sum >= limit {
		t.Errorf("budgets sum to %d, not under the limit %d", sum, limit)
	}
}

func TestLeastLimit(t *testing.T) {
	for _, tc := range []struct {
		cgroup, as, physical, want int64
		from                       string
	}{
		{0, 0, 0, 0, ""},
		{0, 0, 24 << 30, 24 << 30, "the physical memory"},
		{8 << 30, 0, 24 << 30, 8 << 30, "the cgroup's memory.max"},
		{8 << 30, 10 << 30, 24 << 30, 5 << 30, "half the address-space limit (ulimit -v)"},
		{2 << 30, 10 << 30, 24 << 30, 2 << 30, "the cgroup's memory.max"},
	} {
		got, from := leastLimit(tc.cgroup, tc.as, tc.physical)
		if got != tc.want || from != tc.from {
			t.Errorf("leastLimit(%d, %d, %d) = %d %q, want %d %q", tc.cgroup, tc.as, tc.physical, got, from, tc.want, tc.from)
		}
	}
}

func TestParseCgroupLimit(t *testing.T) {
	for in, want := range map[string]int64{
		"max\n":                 0, // cgroup v2: no limit
		"9223372036854771712\n": 0, // cgroup v1: no limit
		"4294967296\n":          4 << 30,
		"":                      0,
	} {
		if got := parseCgroupLimit(in); got != want {
			t.Errorf("parseCgroupLimit(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestMemoryLimitRefusesNonsense(t *testing.T) {
	cmd := newServeCmd(&App{})
	for _, v := range []string{"0", "lots", "-1GiB"} {
		f := memoryLimitFlag{text: v}
		if _, err := f.apply(cmd.Flags()); err == nil {
			t.Errorf("--memory-limit %q accepted", v)
		}
	}
}
