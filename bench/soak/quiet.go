package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// waitQuiet waits until the server has finished its start-up work and
// is idle, so that an unloaded phase measures queries alone: /healthz
// no longer says "starting" (the workbench's views are computed; see
// server.Server.Starting), and then the server process has used under
// 2% of a processor over each of two consecutive seconds (a store
// compacting after the load, or a collection of the start-up's garbage,
// would otherwise fall inside the phase). It gives up after limit and
// says so; it returns how long it waited.
func waitQuiet(s *server, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		if time.Since(start) > limit {
			return time.Since(start), fmt.Errorf("the server still reported start-up work after %v", limit)
		}
		starting, err := s.starting()
		if err != nil {
			return time.Since(start), err
		}
		if !starting {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	quiet := 0
	last := s.cpu()
	for quiet < 2 {
		if time.Since(start) > limit {
			return time.Since(start), fmt.Errorf("the server was still busy after %v", limit)
		}
		time.Sleep(time.Second)
		now := s.cpu()
		if now-last < 20*time.Millisecond {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return time.Since(start), nil
}

// starting reports /healthz's "starting".
func (s *server) starting() (bool, error) {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(s.base + "/healthz")
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var h struct{ Starting bool }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return false, fmt.Errorf("/healthz: %w", err)
	}
	return h.Starting, nil
}

// cpu is the server process's processor time so far (user and system),
// from /proc.
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: utime and stime are the 14th and 15th of the line.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// cpuTimes are the machine's processor times from /proc/stat (clock
// ticks): all of them, and those stolen by the hypervisor, which on a
// shared virtual machine runs other guests on the cores this one waits
// for. A phase with much stolen time measured the neighbours too.
type cpuTimes struct{ total, steal int64 }

func readCPUTimes() cpuTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var t cpuTimes
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i < 8 {
			t.total += n
		}
		if i == 7 {
			t.steal = n
		}
	}
	return t
}

// stolen describes the share of processor time stolen since t.
func (t cpuTimes) stolen() string {
	now := readCPUTimes()
	if now.total <= t.total {
		return "processor time stolen ?"
	}
	return fmt.Sprintf("%.0f%% of processor time stolen by the hypervisor", 100*float64(now.steal-t.steal)/float64(now.total-t.total))
}

// cpuWatch follows the hypervisor's steal second by second through a
// phase: an average over the phase hides a neighbour that took a tenth
// of the processors for a third of it, enough to move a p99.
type cpuWatch struct {
	start cpuTimes
	stop  chan struct{}
	done  chan struct{}
	// seconds sampled, of them those with over noisySteal stolen, and
	// the most stolen in one second (a share).
	seconds, noisy int
	worst          float64
}

// noisySteal is the share of a second's processor time stolen above which
// the second counts as disturbed.
const noisySteal = 0.10

func watchCPU() *cpuWatch {
	w := &cpuWatch{start: readCPUTimes(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last := w.start
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			now := readCPUTimes()
			if now.total > last.total {
				share := float64(now.steal-last.steal) / float64(now.total-last.total)
				w.seconds++
				if share > noisySteal {
					w.noisy++
				}
				w.worst = max(w.worst, share)
			}
			last = now
		}
	}()
	return w
}

// stolen ends the watch and describes the steal over the phase: the
// share of all its processor time, and the seconds over noisySteal.
func (w *cpuWatch) stolen() string {
	close(w.stop)
	<-w.done
	return fmt.Sprintf("%s, over %.0f%% in %d of %d seconds (at most %.0f%%)",
		w.start.stolen(), 100*noisySteal, w.noisy, w.seconds, 100*w.worst)
}

// loadavg is the machine's one-minute load average, as text.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// histogram is one cumulative Prometheus histogram: bucket upper bounds
// and the count at or below each.
type histogram struct {
	le    []float64
	count []float64
}

// runtimeHists are the server's Go runtime histograms of interest, read
// from /metrics.
var runtimeHists = []struct{ name, label string }{
	{"go_sched_latencies_seconds", "goroutine waits for a processor"},
	{"go_gc_pauses_seconds", "GC stop-the-world pauses"},
	{"go_sched_pauses_stopping_gc_seconds", "GC pauses' stopping of every P"},
}

// scrape reads the server's runtime histograms and GC cycle count.
func (s *server) scrape() (map[string]*histogram, float64, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(s.base + "/metrics")
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	out := map[string]*histogram{}
	var cycles float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "go_gc_cycles_total_gc_cycles_total "); ok {
			cycles, _ = strconv.ParseFloat(v, 64)
			continue
		}
		for _, h := range runtimeHists {
			rest, ok := strings.CutPrefix(line, h.name+`_bucket{le="`)
			if !ok {
				continue
			}
			q := strings.IndexByte(rest, '"')
			sp := strings.LastIndexByte(rest, ' ')
			if q < 0 || sp < 0 {
				continue
			}
			le, err1 := strconv.ParseFloat(rest[:q], 64)
			if rest[:q] == "+Inf" {
				le, err1 = math.Inf(1), nil
			}
			n, err2 := strconv.ParseFloat(rest[sp+1:], 64)
			if err1 != nil || err2 != nil {
				continue
			}
			hh := out[h.name]
			if hh == nil {
				hh = &histogram{}
				out[h.name] = hh
			}
			hh.le = append(hh.le, le)
			hh.count = append(hh.count, n)
		}
	}
	return out, cycles, sc.Err()
}

// runtimeSnap is a scrape, or nothing when it failed.
type runtimeSnap struct {
	hists  map[string]*histogram
	cycles float64
}

func (s *server) snap() runtimeSnap {
	h, c, err := s.scrape()
	if err != nil {
		fmt.Printf("  (runtime metrics not read: %v)\n", err)
	}
	return runtimeSnap{h, c}
}

// above is at least how many observations of h exceed t: a bucket that
// straddles t counts as below it.
func (h *histogram) above(t float64) float64 {
	if h == nil || len(h.count) == 0 {
		return 0
	}
	total := h.count[len(h.count)-1]
	i, _ := slices.BinarySearch(h.le, t) // h.le[i] >= t
	if i == len(h.le) {
		return 0
	}
	return total - h.count[i]
}

// runtimeReport prints what the server's runtime histograms gained from
// a to b: how many waits for a processor and stop-the-world pauses
// passed 1, 10 and 100 ms, and the GC cycles.
func runtimeReport(phase string, a, b runtimeSnap) string {
	if a.hists == nil || b.hists == nil {
		return phase + ": runtime metrics not read"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: %.0f GC cycles", phase, b.cycles-a.cycles)
	for _, h := range runtimeHists {
		ha, hb := a.hists[h.name], b.hists[h.name]
		if hb == nil {
			continue
		}
		fmt.Fprintf(&sb, "; %s over 1/10/100 ms: %.0f/%.0f/%.0f", h.label,
			hb.above(0.001)-ha.above(0.001), hb.above(0.01)-ha.above(0.01), hb.above(0.1)-ha.above(0.1))
	}
	return sb.String()
}
