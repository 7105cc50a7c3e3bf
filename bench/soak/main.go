// Command soak runs the hardening soak test against a real `perfkb serve`
// on loopback: mixed readers and writers, clients that stall while sending
// or never read, and clients that send hostile inputs (the W3C negative
// syntax tests and the fuzz corpora), for a fixed time. It then checks that
// the server never died, that every acknowledged write is stored (before
// and after a restart), and reports read latency against an unloaded
// baseline and the server's peak RSS. The normal readers run in a child
// process of their own (this program with -role readers), so what they
// measure is the server, not this process's other clients.
//
//	go run ./bench/soak -duration 10m
//
// Every connection goes to 127.0.0.1; every loop is bounded by the
// duration.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/perfkb/perfkb/ontology"
)

const token = "soak-token"

type config struct {
	duration, baseline, warmup  time.Duration
	baselineAfter               bool
	bin                         string
	triples                     int
	readers, writers            int
	stallers, hostile           int
	shared                      string
	maxConcurrent, stallTimeout string
	readRate, writeRate         float64
	hostileRate                 float64
	serveArgs                   string
	latencyLog                  string
	loadNice                    int
	vmem                        string
	attacks                     bool
	attack                      attackConfig
	// role "readers" runs only the readers against target and prints
	// their latencies as JSON: the parent measures reads in a process of
	// their own (see readersProcess).
	role, target string
	// sharedClient makes the readers share one HTTP client with Go's
	// default connection pool (readerClient).
	sharedClient bool
	profile      profileConfig
}

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 10*time.Minute, "how long the loaded phase runs")
	flag.DurationVar(&c.baseline, "baseline", time.Minute, "how long the unloaded read phase runs (the same readers, queries and clients as the loaded phase; a minute gives p99 some 10 reads to stand on)")
	flag.DurationVar(&c.warmup, "warmup", 5*time.Second, "reads sent and not counted before the unloaded phase, once the server is idle: a fresh process's first queries (threads, page faults, the heap's first growth) are start-up, not load")
	flag.BoolVar(&c.baselineAfter, "baseline-after", true, "run the unloaded phase again after the loaded one (once the server is idle) and hold the loaded p99 to the lower of the two unloaded p99s: other work on the machine during one of them cannot flatter the ratio")
	flag.StringVar(&c.bin, "bin", "", "perfkb binary (default: built from ./cmd/perfkb)")
	flag.IntVar(&c.triples, "triples", 200000, "sample triples loaded before the run")
	flag.IntVar(&c.readers, "readers", 24, "reading clients")
	flag.IntVar(&c.writers, "writers", 8, "writing clients")
	flag.IntVar(&c.stallers, "stallers", 8, "stalled or slow clients")
	flag.IntVar(&c.hostile, "hostile", 4, "clients sending hostile inputs")
	flag.Float64Var(&c.readRate, "read-rate", 10, "requests per second per reader, sent on a fixed schedule (0: back to back)")
	flag.Float64Var(&c.writeRate, "write-rate", 10, "writes per second per writer (0: back to back)")
	flag.Float64Var(&c.hostileRate, "hostile-rate", 5, "hostile requests per second per hostile client (0: back to back)")
	flag.StringVar(&c.serveArgs, "serve-args", "", "more `perfkb serve` flags, separated by spaces")
	flag.StringVar(&c.shared, "shared", "testdata/w3c", "folder with w3c-rdf and w3c-sparql (hostile inputs)")
	flag.StringVar(&c.maxConcurrent, "max-concurrent", "64", "the server's --max-concurrent")
	flag.StringVar(&c.stallTimeout, "stall-timeout", "5s", "the server's --stall-timeout")
	flag.StringVar(&c.latencyLog, "latency-log", "", "write each read's phase, start (Unix ns), latency (ns), query number and request id to this file, to see what slow reads overlapped")
	flag.IntVar(&c.loadNice, "load-nice", 0, "during the loaded phase, run this process (writers, stalled and hostile clients) this much nicer than it started (and than the server and the readers, which keep its starting nice value), as if those clients were on other machines (0: unchanged)")
	flag.StringVar(&c.vmem, "vmem", "5G", "the server's virtual memory limit (ulimit -v), a number of bytes with K, M or G; empty: none")
	flag.BoolVar(&c.attacks, "attacks", true, "run the request-count attacks of the hardening issue (items 1, 2, 4, 5, 8, 13) and legitimate sensors; the server is then perfkb sensor-listen --http")
	flag.DurationVar(&c.attack.every, "attack-every", 20*time.Second, "pause between two rounds of each request attack (items 1, 2, 5)")
	flag.IntVar(&c.attack.rounds, "attack-rounds", 30, "most rounds of each request attack")
	flag.IntVar(&c.attack.queryMB, "attack-query-mb", 48, "size of item 1's query text in MB")
	flag.IntVar(&c.attack.rulesMB, "attack-rules-mb", 60, "size of item 2's rule files in MB")
	flag.IntVar(&c.attack.floodConns, "attack-flood-conns", 8, "item 4's sensor connections")
	flag.IntVar(&c.attack.floodMessages, "attack-flood-messages", 48, "item 4's messages in all")
	flag.IntVar(&c.attack.floodLeaves, "attack-flood-leaves", 100000, "leaves in each of item 4's messages")
	flag.IntVar(&c.attack.federated, "attack-federated", 5, "item 5's concurrent federated queries per round")
	flag.IntVar(&c.attack.answerMB, "attack-answer-mb", 60, "size of item 5's remote answer in MB")
	flag.IntVar(&c.attack.slowPosts, "attack-slow-posts", 128, "item 8's slow POST connections")
	flag.IntVar(&c.attack.sensorSlowloris, "attack-sensor-slowloris", 256, "item 13's slow sensor connections")
	flag.IntVar(&c.attack.legitSensors, "legit-sensors", 4, "sensors sending real measurements during the attacks")
	flag.DurationVar(&c.attack.legitSensorPeriod, "legit-sensor-period", time.Second, "one message per legitimate sensor per period")
	attackItemsFlag := flag.String("attack-items", "all", "which attacks run: \"all\", \"none\" (the writers, stalled and hostile clients only), or some of the issue's items 1, 2, 4, 5, 8 and 13 separated by commas (one at a time tells which attack slows the readers); the verdict is the full soak's only with all")
	flag.BoolVar(&c.sharedClient, "shared-client", false, "the readers share one HTTP client with Go's default pool of 2 idle connections per host, so they reconnect whenever more than two reads are in flight (default: each reader keeps its own connection, as an analyst's browser or Python session does)")
	flag.StringVar(&c.profile.dir, "profile", "", "folder for the server's CPU profile of the loaded phase (cpu.pprof), an execution trace from its middle (trace.out) and its allocations (allocs.pprof), fetched from the server's --pprof listener (empty: none)")
	flag.DurationVar(&c.profile.trace, "profile-trace", 10*time.Second, "with -profile: length of the execution trace (0: none)")
	flag.DurationVar(&c.profile.traceAt, "profile-trace-at", -1, "with -profile: when the execution trace starts, from the loaded phase's start (default: its middle)")
	flag.StringVar(&c.role, "role", "", "internal: \"readers\" runs only the readers against -target and prints their latencies")
	flag.StringVar(&c.target, "target", "", "internal: the server's base URL for -role readers")
	flag.Parse()
	items, err := parseItems(*attackItemsFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	c.attack.items = items
	if c.role == "readers" {
		lat := newLatencies()
		ctx, cancel := context.WithTimeout(context.Background(), c.duration)
		defer cancel()
		go func() {
			// Progress on stderr, which the parent passes through.
			tick := time.NewTicker(30 * time.Second)
			defer tick.Stop()
			start := time.Now()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					fmt.Fprintf(os.Stderr, "  %3.0fs: reads %s\n", time.Since(start).Seconds(), lat.summary())
				}
			}
		}()
		runReaders(ctx, c.target, c.readers, c.readRate, c.sharedClient, lat)
		lat.mu.Lock()
		defer lat.mu.Unlock()
		if err := json.NewEncoder(os.Stdout).Encode(readerReport{Latencies: lat.d, Phases: lat.phases, Starts: lat.starts, Queries: lat.queries, IDs: lat.ids, CPU: selfCPU(), Errors: lat.errors, FiveXX: lat.fiveXX, Throttled: lat.throttled, Why5xx: lat.why5xx}); err != nil {
			os.Exit(1)
		}
		return
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "perfkb-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if c.bin == "" {
		c.bin = filepath.Join(dir, "perfkb")
		fmt.Println("building perfkb")
		if out, err := exec.Command("go", "build", "-o", c.bin, "./cmd/perfkb").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	sampleFile := filepath.Join(dir, "s.nq")
	for _, args := range [][]string{
		{"sample", "--sites", "3", "--triples", strconv.Itoa(c.triples), "-o", sampleFile},
		{storeFlag, "load", sampleFile},
	} {
		if out, err := exec.Command(c.bin, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("perfkb %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var siteURL string
	if c.attacks {
		site, u, err := fakeSite(c.attack.answerMB)
		if err != nil {
			return err
		}
		defer site.Close()
		siteURL = u
		if out, err := exec.Command(c.bin, storeFlag, "sites", "add", "bigsite", siteURL).CombinedOutput(); err != nil {
			return fmt.Errorf("perfkb sites add: %v\n%s", err, out)
		}
	}
	if c.profile.dir != "" {
		if c.profile.addr, err = freeAddr(); err != nil {
			return err
		}
	}
	srv, err := startServer(c, storeFlag)
	if err != nil {
		return err
	}
	// srv changes at the restart below; stop whichever is running.
	defer func() { srv.stop() }()
	hostileInputs := collectHostile(c.shared)
	fmt.Printf("server pid %d on %s (sensors on %q, virtual memory limit %q); %d hostile inputs\n", srv.cmd.Process.Pid, srv.base, srv.sensorAddr, c.vmem, len(hostileInputs))

	var bodies attackBodies
	if c.attacks {
		bodies = buildAttackBodies(c.attack)
	}
	// Unloaded baseline: the readers alone, once the server is idle and
	// warm.
	base, err := unloaded(c, srv, "baseline")
	if err != nil {
		return err
	}
	snapLoaded := srv.snap()
	cpuLoaded := watchCPU()

	// Loaded phase. The readers run in a process of their own, as real
	// clients do: in this one, the hostile clients' decompressing of large
	// answers would delay the readers' goroutines and be charged to the
	// server.
	var loaded *latencies
	var loadedErr error
	var acked sync.Map // graph -> *atomic.Int64 of acknowledged writes
	var writeErrs, write5xx, hostileSent, hostile5xx, stallConns atomic.Int64
	var writeFailures tally // failed normal writes by status (or client error) and first answer
	var attacks attackTallies
	var rssMax, vmMax, threadsMax atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), c.duration)
	var wg sync.WaitGroup
	wg.Add(7)
	go func() { defer wg.Done(); fetchProfiles(ctx, c.profile, c.duration) }()
	readersUp := make(chan struct{})
	go func() {
		defer wg.Done()
		loaded, loadedErr = readersProcess(c, srv.base, c.duration, func() { close(readersUp) })
	}()
	<-readersUp
	// This process is the other clients' machine from here on: it runs
	// below the server and the readers, as clients elsewhere would not
	// take their processors.
	if c.loadNice > 0 {
		if err := niceSelf(c.loadNice); err != nil {
			cancel()
			return err
		}
	}
	go func() {
		defer wg.Done()
		runWriters(ctx, srv.base, c.writers, c.writeRate, &acked, &writeErrs, &write5xx, &writeFailures)
	}()
	go func() {
		defer wg.Done()
		if c.attacks {
			runAttacks(ctx, c.attack, bodies, srv.base, srv.sensorAddr, siteURL, &attacks)
		}
	}()
	go func() { defer wg.Done(); runStallers(ctx, srv.addr, c.stallers, &stallConns) }()
	go func() {
		defer wg.Done()
		runHostile(ctx, srv.base, c.hostile, c.hostileRate, hostileInputs, &hostileSent, &hostile5xx)
	}()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		start := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				st := srv.status()
				for _, m := range []struct {
					max *atomic.Int64
					v   int64
				}{{&rssMax, st.rss}, {&vmMax, st.vm}, {&threadsMax, st.threads}} {
					if m.v > m.max.Load() {
						m.max.Store(m.v)
					}
				}
				if s := int(time.Since(start).Seconds()); s%30 == 0 {
					fmt.Printf("  %3ds: RSS max %d MiB, virtual memory max %d MiB, threads max %d, alive %v\n", s, rssMax.Load()>>20, vmMax.Load()>>20, threadsMax.Load(), srv.alive())
				}
			}
		}
	}()
	wg.Wait()
	cancel()
	if loadedErr != nil {
		return loadedErr
	}

	alive := srv.alive()
	fmt.Printf("loaded (%v, load average %s at the end, %s): %s; readers' CPU %v, this process's (the other clients') CPU %v\n", c.duration, loadavg(), cpuLoaded.stolen(), loaded.summary(), loaded.cpu.Round(time.Millisecond), selfCPU().Round(time.Millisecond))
	fmt.Printf("  %s\n", loaded.slowPhases(0.01))
	if alive {
		fmt.Printf("  %s\n", runtimeReport("server runtime, loaded", snapLoaded, srv.snap()))
	}
	fmt.Printf("normal reads answered 5xx: %d (503, shed or throttled: %d)\n", loaded.fiveXX, loaded.throttled)
	for _, why := range loaded.why5xx {
		fmt.Printf("  5xx to a normal read: %s\n", strings.TrimSpace(why))
	}
	fmt.Printf("writes: %d acknowledged, %d refused or failed (5xx: %d); hostile inputs sent: %d, answered 5xx: %d; stalled connections opened: %d\n",
		totalAcked(&acked), writeErrs.Load(), write5xx.Load(), hostileSent.Load(), hostile5xx.Load(), stallConns.Load())
	if writeErrs.Load() > 0 {
		fmt.Printf("  failed normal writes: %s\n", &writeFailures)
	}
	if c.attacks {
		attacks.print()
	}
	fmt.Printf("server alive after the run: %v; peak RSS %d MiB; peak virtual memory %d MiB (limit %s); most threads %d\n", alive, rssMax.Load()>>20, vmMax.Load()>>20, orNone(c.vmem), threadsMax.Load())
	if !alive {
		return errors.New("the server died during the run")
	}
	lost, err := verifyWrites(srv.base, &acked)
	if err != nil {
		return err
	}
	if c.attacks {
		// The listener writes what it received within --flush-interval.
		time.Sleep(2 * time.Second)
		stored, err := countLegit(srv.base)
		if err != nil {
			return err
		}
		fmt.Printf("legitimate sensors: %d messages sent on %d connections (%s), %d stored\n",
			attacks.legitSent.Load(), attacks.legitConns.Load(), &attacks.legitErrors, stored)
	}
	fmt.Printf("acknowledged writes lost before the restart: %d\n", lost)
	if c.baselineAfter {
		// The clients of the loaded phase have stopped: the same readers
		// alone again.
		if c.loadNice > 0 {
			if err := niceSelf(-c.loadNice); err != nil {
				fmt.Printf("  (the readers of the second unloaded phase keep the lowered priority: %v)\n", err)
			}
		}
		after, err := unloaded(c, srv, "unloaded again")
		if err != nil {
			return err
		}
		if after.quantile(0.99) < base.quantile(0.99) {
			fmt.Println("  the loaded phase is held to this unloaded phase's p99 (the lower)")
			base = after
		} else {
			fmt.Println("  the loaded phase is held to the first unloaded phase's p99 (the lower)")
		}
	}
	srv.stop()
	restarted, err := startServer(c, storeFlag)
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	srv = restarted
	lostAfter, err := verifyWrites(srv.base, &acked)
	if err != nil {
		return err
	}
	if c.latencyLog != "" {
		if err := writeLatencyLog(c.latencyLog, base, loaded); err != nil {
			return err
		}
	}
	p99b, p99l := base.quantile(0.99), loaded.quantile(0.99)
	fmt.Printf("acknowledged writes lost: %d before restart, %d after\n", lost, lostAfter)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		fmt.Printf("read p%g: unloaded %v, loaded %v\n", q*100, base.quantile(q).Round(time.Microsecond), loaded.quantile(q).Round(time.Microsecond))
	}
	fmt.Printf("read p99: unloaded %v, loaded %v (%.2fx)\n", p99b, p99l, float64(p99l)/float64(p99b))
	var failed []string
	if lost+lostAfter > 0 {
		failed = append(failed, fmt.Sprintf("%d acknowledged writes lost", lost+lostAfter))
	}
	if n := loaded.fiveXX + base.fiveXX; n > 0 {
		failed = append(failed, fmt.Sprintf("%d normal reads answered 5xx", n))
	}
	if n := write5xx.Load(); n > 0 {
		failed = append(failed, fmt.Sprintf("%d normal writes answered 5xx", n))
	}
	if r := float64(p99l) / float64(p99b); r > 2 {
		failed = append(failed, fmt.Sprintf("loaded read p99 %.2fx unloaded (limit 2x)", r))
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	fmt.Println("soak: passed")
	return nil
}

// writeLatencyLog writes one line per read: phase, start, latency, query
// number, request id, and the client's steps (phases: call, connection,
// written, first byte, dial, ns from the start; reused connection).
func writeLatencyLog(path string, base, loaded *latencies) error {
	var b bytes.Buffer
	for _, phase := range []struct {
		name string
		l    *latencies
	}{{"unloaded", base}, {"loaded", loaded}} {
		for i, d := range phase.l.d {
			fmt.Fprintf(&b, "%s %d %d %d %s", phase.name, phase.l.starts[i], d.Nanoseconds(), phase.l.queries[i], phase.l.ids[i])
			if i < len(phase.l.phases) {
				p := phase.l.phases[i]
				fmt.Fprintf(&b, " %d %d %d %d %d %v", p.Call, p.GotConn, p.Wrote, p.FirstByte, p.Dial, p.Reused)
			}
			b.WriteByte('\n')
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// readerReport is what a -role readers process prints.
type readerReport struct {
	Latencies []time.Duration
	Phases    []phases // beside Latencies
	Starts    []int64  // each read's scheduled start, Unix ns
	Queries   []int    // each read's index in readQueries
	IDs       []string // each read's X-Request-Id
	// CPU is the readers process's own processor time (user and
	// system): set beside the run's length, it says whether the client
	// could keep its schedule.
	CPU       time.Duration
	Errors    int
	FiveXX    int // answers with a 5xx status
	Throttled int // of them, 503 (shed at the queue or by admission)
	// Why5xx has the first bodies of 5xx answers, to tell which limit
	// shed them.
	Why5xx []string
}

// selfCPU is this process's processor time so far, user and system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// niceSelf lowers the priority of every thread of this process by nice
// from the process's own (new threads inherit it): relative, so that a
// soak started under nice(1) keeps its clients the same distance below
// the server and the readers.
func niceSelf(nice int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("-load-nice: %w", err)
	}
	// getpriority(2)'s raw value is 20 - nice.
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return fmt.Errorf("-load-nice: %w", err)
	}
	nice = min(19, 20-prio+nice)
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
			return fmt.Errorf("-load-nice: thread %d: %w", tid, err)
		}
	}
	return nil
}

// readersProcess runs the readers for d in a child process (this program
// with -role readers) and returns their latencies; started, when set, is
// called once the process runs (or failed to start).
func readersProcess(c config, base string, d time.Duration, started func()) (*latencies, error) {
	notify := func() {
		if started != nil {
			started()
			started = nil
		}
	}
	defer notify()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-role", "readers", "-target", base, "-duration", d.String(),
		"-readers", strconv.Itoa(c.readers), "-read-rate", strconv.FormatFloat(c.readRate, 'g', -1, 64),
		"-shared-client="+strconv.FormatBool(c.sharedClient))
	cmd.Stderr = os.Stdout
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Start()
	notify()
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		return nil, fmt.Errorf("readers process: %w", err)
	}
	var r readerReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("readers process: %w", err)
	}
	return &latencies{d: r.Latencies, phases: r.Phases, starts: r.Starts, queries: r.Queries, ids: r.IDs, cpu: r.CPU, errors: r.Errors, fiveXX: r.FiveXX, throttled: r.Throttled, why5xx: r.Why5xx}, nil
}

// server is a running `perfkb serve`.
type server struct {
	cmd        *exec.Cmd
	addr, base string
	sensorAddr string // with -attacks: where sensors connect
	exited     chan struct{}
}

// freeAddr returns a loopback address with a free port.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// vmemKiB reads a size such as 5G as KiB, the unit of ulimit -v.
func vmemKiB(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("-vmem %q: want a positive number of bytes with K, M or G", s)
	}
	return n * mult / 1024, nil
}

func startServer(c config, storeFlag string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{storeFlag, "serve", "--addr", addr}
	var sensorAddr string
	if c.attacks {
		// One process takes the sensors and serves HTTP, as the native
		// store admits one process at a time.
		if sensorAddr, err = freeAddr(); err != nil {
			return nil, err
		}
		args = []string{storeFlag, "sensor-listen", "--addr", sensorAddr, "--http", addr,
			"--base", "http://soak.example/site/", "--message-timeout", "30s", "--idle-timeout", "30s"}
	}
	args = append(args, "--token", token, "--timeout", "10s",
		"--max-concurrent", c.maxConcurrent, "--stall-timeout", c.stallTimeout, "--log-level", "error")
	args = append(args, strings.Fields(c.serveArgs)...)
	if c.profile.addr != "" {
		args = append(args, "--pprof", c.profile.addr)
	}
	cmd := exec.Command(c.bin, args...)
	if c.vmem != "" {
		kib, err := vmemKiB(c.vmem)
		if err != nil {
			return nil, err
		}
		// The shell sets the limit and execs the server: same pid, so
		// the RSS read from /proc is the server's.
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, kib), c.bin}, args...)...)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, addr: addr, base: "http://" + addr, sensorAddr: sensorAddr, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	// Two minutes: restarted after the attacks, the server first replays
	// the store's log of the sensor flood's writes, on a loaded machine.
	start := time.Now()
	for time.Since(start) < 2*time.Minute {
		if s.alive() {
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, errors.New("perfkb serve exited at start")
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.stop()
	return nil, errors.New("perfkb serve did not answer /healthz within 2 minutes")
}

func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(s.base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (s *server) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// procStatus is what the soak watches of the server process: resident and
// virtual memory in bytes (the ulimit -v bounds the second) and threads.
type procStatus struct{ rss, vm, threads int64 }

// status reads the server's /proc status (zeros once it has gone).
func (s *server) status() procStatus {
	var st procStatus
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return st
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			st.rss = n << 10
		case "VmSize:":
			st.vm = n << 10
		case "Threads:":
			st.threads = n
		}
	}
	return st
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// latencies collects read latencies.
type latencies struct {
	mu      sync.Mutex
	d       []time.Duration
	phases  []phases      // the client's steps, beside d
	starts  []int64       // Unix ns, beside d
	queries []int         // index in readQueries, beside d
	ids     []string      // X-Request-Id, beside d
	cpu     time.Duration // the readers process's processor time
	errors  int
	// fiveXX counts answers with a 5xx status, throttled those of them
	// that are 503.
	fiveXX, throttled int
	why5xx            []string // the first few distinct 5xx bodies
}

func newLatencies() *latencies { return &latencies{} }

func (l *latencies) add(start time.Time, query int, id string, d time.Duration, ph phases, code int, body string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if code >= 500 {
		if len(l.why5xx) < 5 && !slices.Contains(l.why5xx, body) {
			l.why5xx = append(l.why5xx, body)
		}
		l.fiveXX++
		if code == http.StatusServiceUnavailable {
			l.throttled++
		}
	}
	if code == http.StatusOK {
		l.d = append(l.d, d)
		l.phases = append(l.phases, ph)
		l.starts = append(l.starts, start.UnixNano())
		l.queries = append(l.queries, query)
		l.ids = append(l.ids, id)
	} else {
		l.errors++
	}
}

func (l *latencies) quantile(q float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	s := slices.Clone(l.d)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func (l *latencies) summary() string {
	l.mu.Lock()
	n, e := len(l.d), l.errors
	l.mu.Unlock()
	return fmt.Sprintf("%d ok, %d failed, p50 %v, p99 %v", n, e, l.quantile(0.5), l.quantile(0.99))
}

const perfonto = "PREFIX perfonto: <" + ontology.Namespace + ">\n"

var readQueries = []string{
	perfonto + `SELECT ?rs ?v WHERE { ?rs perfonto:inProcessingUnit ?pu . ?pu perfonto:inNode "gsr410" .
  ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v . FILTER(?v >= 3.0E8) }`,
	perfonto + `SELECT ?rs WHERE { ?rs a perfonto:RegionSummary } LIMIT 10`,
	perfonto + `ASK { ?e a perfonto:Experiment }`,
}

// pacer schedules one client's requests at a fixed rate (open loop). A
// request's latency counts from its scheduled start, so a server that
// falls behind is charged for the time the request waited to be sent (no
// coordinated omission). Rate 0 sends back to back (closed loop).
type pacer struct {
	next  time.Time
	every time.Duration
}

func newPacer(rate float64, client int) *pacer {
	if rate <= 0 {
		return &pacer{}
	}
	every := time.Duration(float64(time.Second) / rate)
	// Spread the clients over one interval so they don't fire together.
	offset := time.Duration(rand.New(rand.NewPCG(uint64(client), 11)).Int64N(int64(every)))
	return &pacer{next: time.Now().Add(offset), every: every}
}

// wait sleeps until the next scheduled start and returns it; false when ctx
// ends first.
func (p *pacer) wait(ctx context.Context) (time.Time, bool) {
	if p.every == 0 {
		return time.Now(), ctx.Err() == nil
	}
	at := p.next
	p.next = p.next.Add(p.every)
	if d := time.Until(at); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return at, false
		case <-t.C:
		}
	}
	return at, ctx.Err() == nil
}

func runReaders(ctx context.Context, base string, n int, rate float64, sharedClient bool, lat *latencies) {
	var shared *http.Client
	if sharedClient {
		shared = &http.Client{Timeout: 15 * time.Second}
	}
	var wg sync.WaitGroup
	read := func(client *http.Client, start time.Time, i, k int) {
		qi := k % len(readQueries)
		q := readQueries[qi]
		tctx, phasesSoFar := traced(context.Background(), start)
		req, _ := http.NewRequestWithContext(tctx, http.MethodPost, base+"/sparql", strings.NewReader(url.Values{"query": {q}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// The id names the read in the server's request log
		// (--log-level info), to set its figures beside these; the
		// process id tells the baseline's reads from the loaded
		// phase's.
		id := fmt.Sprintf("soak-%d-r%d-%d", os.Getpid(), i, k)
		req.Header.Set("X-Request-Id", id)
		resp, err := client.Do(req)
		code, body := 0, "" // no answer
		if err == nil {
			code = resp.StatusCode
			if code >= 500 {
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
				body = strconv.Itoa(code) + " " + string(b)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if ctx.Err() == nil {
			lat.add(start, qi, id, time.Since(start), phasesSoFar(), code, body)
		}
	}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newPacer(rate, i)
			client := readerClient(shared)
			for k := i; ; k++ {
				start, more := p.wait(ctx)
				if !more {
					return
				}
				if shared != nil {
					// Closed per reader: the next read waits for this
					// one, and counts from its own scheduled start.
					read(client, start, i, k)
					continue
				}
				// Open: each read leaves at its scheduled time, on a
				// connection of the reader's pool (readerClient).
				wg.Add(1)
				go func() { defer wg.Done(); read(client, start, i, k) }()
			}
		}()
	}
	wg.Wait()
}

// runWriters runs n writers, each adding one triple to a graph of its own
// per request; failed counts each failed write under its status and the
// start of the server's answer (or the client's error), to tell a limit
// the write itself passed from one that the attacks' load caused.
func runWriters(ctx context.Context, base string, n int, rate float64, acked *sync.Map, errs, fiveXX *atomic.Int64, failed *tally) {
	client := &http.Client{Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			graph := fmt.Sprintf("urn:soak:writer:%d", i)
			count := &atomic.Int64{}
			acked.Store(graph, count)
			p := newPacer(rate, 1000+i)
			for k := 0; ; k++ {
				if _, ok := p.wait(ctx); !ok {
					return
				}
				body := fmt.Sprintf("<urn:soak:w%d:%d> <urn:soak:p> \"%d\" .\n", i, k, k)
				req, _ := http.NewRequest(http.MethodPost, base+"/data?graph="+url.QueryEscape(graph), strings.NewReader(body))
				req.Header.Set("Content-Type", "application/n-triples")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					failed.add(status(nil, err))
					continue
				}
				answer, _ := io.ReadAll(io.LimitReader(resp.Body, 160))
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					count.Add(1)
				} else {
					errs.Add(1)
					failed.add(fmt.Sprintf("%d %q", resp.StatusCode, answer))
					if resp.StatusCode >= 500 {
						fiveXX.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func totalAcked(acked *sync.Map) int64 {
	var n int64
	acked.Range(func(_, v any) bool { n += v.(*atomic.Int64).Load(); return true })
	return n
}

// verifyWrites counts each writer's graph and returns how many
// acknowledged writes are missing.
func verifyWrites(base string, acked *sync.Map) (int64, error) {
	var lost int64
	var firstErr error
	acked.Range(func(k, v any) bool {
		q := fmt.Sprintf("SELECT (COUNT(*) AS ?n) WHERE { GRAPH <%s> { ?s ?p ?o } }", k)
		resp, err := http.PostForm(base+"/sparql", url.Values{"query": {q}})
		if err != nil {
			firstErr = err
			return false
		}
		defer resp.Body.Close()
		var res struct {
			Results struct {
				Bindings []map[string]struct{ Value string }
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || len(res.Results.Bindings) != 1 {
			firstErr = fmt.Errorf("counting %s: %v", k, err)
			return false
		}
		n, _ := strconv.ParseInt(res.Results.Bindings[0]["n"].Value, 10, 64)
		if want := v.(*atomic.Int64).Load(); n < want {
			lost += want - n
		}
		return true
	})
	return lost, firstErr
}

// runStallers keeps n connections that misbehave: headers then nothing, a
// body that stops, a large answer never read, one byte at a time.
func runStallers(ctx context.Context, addr string, n int, opened *atomic.Int64) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				opened.Add(1)
				switch i % 4 {
				case 0: // headers, then silence
					fmt.Fprintf(c, "POST /sparql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/sparql-query\r\nContent-Length: 100000\r\n\r\n", addr)
				case 1: // an authenticated upload that stops mid-body
					fmt.Fprintf(c, "PUT /data?graph=urn:soak:stall HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/n-triples\r\nContent-Length: 100000\r\n\r\n<urn:s> ", addr, token)
				case 2: // a large answer, never read
					q := url.QueryEscape("SELECT * WHERE { ?s ?p ?o }")
					fmt.Fprintf(c, "GET /sparql?query=%s HTTP/1.1\r\nHost: %s\r\nAccept: text/csv\r\n\r\n", q, addr)
				case 3: // one byte a second
					req := fmt.Sprintf("GET /sparql?query=%s HTTP/1.1\r\nHost: %s\r\n\r\n", url.QueryEscape("ASK {}"), addr)
					for j := 0; j < len(req) && ctx.Err() == nil; j++ {
						if _, err := c.Write([]byte{req[j]}); err != nil {
							break
						}
						time.Sleep(time.Second)
					}
				}
				// Hold the connection until the server cuts it or the run ends.
				c.SetReadDeadline(time.Now().Add(time.Minute))
				buf := make([]byte, 1)
				for ctx.Err() == nil {
					if i%4 == 2 {
						time.Sleep(time.Second) // never read
						if _, err := c.Write([]byte{}); err != nil {
							break
						}
						continue
					}
					if _, err := c.Read(buf); err != nil {
						break
					}
				}
				c.Close()
			}
		}()
	}
	wg.Wait()
}

// hostile is one hostile request: an upload, a query, an update or a rule
// file.
type hostile struct {
	kind, body string
}

func collectHostile(shared string) []hostile {
	var out []hostile
	add := func(kind string, path string) {
		if b, err := os.ReadFile(path); err == nil && len(b) < 256<<10 {
			out = append(out, hostile{kind, string(b)})
		}
	}
	walk := func(dir string, fn func(path string)) {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				fn(path)
			}
			return nil
		})
	}
	walk(filepath.Join(shared, "w3c-rdf"), func(p string) {
		switch {
		case strings.HasSuffix(p, ".ttl"):
			add("text/turtle", p)
		case strings.HasSuffix(p, ".nt"):
			add("application/n-triples", p)
		case strings.HasSuffix(p, ".rdf"):
			add("application/rdf+xml", p)
		}
	})
	walk(filepath.Join(shared, "w3c-sparql"), func(p string) {
		switch {
		case strings.HasSuffix(p, ".rq"):
			add("query", p)
		case strings.HasSuffix(p, ".ru"):
			add("update", p)
		}
	})
	walk("kb/rdfio/testdata/fuzz", func(p string) { add("text/turtle", p) })
	// The hardening issue's repros.
	out = append(out,
		hostile{"text/turtle", ".5\n"}, hostile{"text/turtle", `<a> <b> """"x"`},
		hostile{"rules", strings.Repeat("@include <OWL>.\n", 40000)},
		hostile{"rules", "[r: (?s <http://e/p> f(?o)) -> (?s <http://e/q> ?o)]"},
		hostile{"query", "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"},
		hostile{"query", "SELECT * { ?s " + strings.Repeat("<http://e/p>/", 30000) + "<http://e/p> ?o }"},
		hostile{"update", "LOAD <file:///etc/passwd>"},
	)
	return out
}

func runHostile(ctx context.Context, base string, n int, rate float64, inputs []hostile, sent, fiveXX *atomic.Int64) {
	if len(inputs) == 0 {
		return
	}
	client := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			p := newPacer(rate, 2000+i)
			for {
				if _, ok := p.wait(ctx); !ok {
					return
				}
				h := inputs[rng.IntN(len(inputs))]
				var req *http.Request
				switch h.kind {
				case "query":
					req, _ = http.NewRequest(http.MethodPost, base+"/sparql?timeout=2", strings.NewReader(h.body))
					req.Header.Set("Content-Type", "application/sparql-query")
				case "update":
					req, _ = http.NewRequest(http.MethodPost, base+"/sparql?timeout=2", strings.NewReader(h.body))
					req.Header.Set("Content-Type", "application/sparql-update")
				case "rules":
					req, _ = http.NewRequest(http.MethodPost, base+"/rules/check?timeout=2", strings.NewReader(h.body))
					req.Header.Set("Content-Type", "text/plain")
				default:
					req, _ = http.NewRequest(http.MethodPost, base+"/data?graph=urn:soak:hostile", bytes.NewReader([]byte(h.body)))
					req.Header.Set("Content-Type", h.kind)
				}
				// Updates go without the token: a hostile DROP ALL that the
				// server accepts would be a correct answer, and would
				// "lose" the writers' data.
				if h.kind != "update" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := client.Do(req)
				sent.Add(1)
				if err != nil {
					continue
				}
				body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				// 503 is the server shedding load (busy, timed out): not a fault.
				if resp.StatusCode >= 500 && resp.StatusCode != http.StatusServiceUnavailable {
					if fiveXX.Add(1) <= 5 {
						fmt.Printf("  hostile %s answered %d: %s\n  input: %.200q\n", h.kind, resp.StatusCode, body, h.body)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// unloaded waits for the server to be idle, warms it with reads that do
// not count, and runs the readers alone for the baseline's length.
func unloaded(c config, srv *server, phase string) (*latencies, error) {
	waited, err := waitQuiet(srv, 2*time.Minute)
	if err != nil {
		return nil, err
	}
	if c.warmup > 0 {
		if _, err := readersProcess(c, srv.base, c.warmup, nil); err != nil {
			return nil, err
		}
	}
	before := srv.snap()
	load := loadavg()
	cpu := watchCPU()
	l, err := readersProcess(c, srv.base, c.baseline, nil)
	stolen := cpu.stolen()
	if err != nil {
		return nil, err
	}
	fmt.Printf("%s (%d readers at %g/s each, %v, after %v waiting for the server to be idle and %v of warm-up reads; load average %s, then %s, %s): %s; readers' CPU %v\n",
		phase, c.readers, c.readRate, c.baseline, waited.Round(100*time.Millisecond), c.warmup, load, loadavg(), stolen, l.summary(), l.cpu.Round(time.Millisecond))
	fmt.Printf("  %s\n", l.slowPhases(0.01))
	fmt.Printf("  %s\n", runtimeReport("server runtime, "+phase, before, srv.snap()))
	return l, nil
}
