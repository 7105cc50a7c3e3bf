package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/sensor"
	"github.com/perfkb/perfkb/monitor"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/server"
)

func init() {
	register(newSensorListenCmd)
	// sensor-listen writes data, so it may create the store.
	creatingCommands["sensor-listen"] = true
}

// sensorListenFlags are the settings of perfkb sensor-listen.
type sensorListenFlags struct {
	addr, base, graph, manager string
	ruleFiles, shipped         []string
	defines                    []string
	batch, maxConns            int
	flushInterval, evictAfter  time.Duration
	listen                     listenerFlags
	maxBatch                   string
	writeShare                 float64
	largeRate                  string
	http                       string
	noDerivations              bool
	rulesWindow                int64
	serve                      serveFlags // the serve flags except --addr (--http replaces it)
	push                       pushValidateFlags
}

func newSensorListenCmd(app *App) *cobra.Command {
	var f sensorListenFlags
	cmd := &cobra.Command{
		Use:   "sensor-listen",
		Short: "Receive live SCALEA-G sensor data over TCP into the store, with optional rule-based monitoring",
		Long: `sensor-listen is the Data Receiving component of a SCALEA-G Sensor Manager
(dissertation 6.2.3.5, 6.2.6.1): sensors connect to --addr (loopback by
default) and send the messages of the sensor protocol — sensorinit,
sensordataentry with the data in CDATA, sensorfinal — as one stream of XML
elements. Each connection is read by its own goroutine; messages are
buffered per (SensorID, ResourceID) and one writer converts them (as
'perfkb convert sensor' does) and applies them to --graph atomically: at
once when the store is idle, else in batches that grow while the previous
one is written, of at most --batch messages and handed over at least every
--flush-interval.

A message counts as received when its closing tag is parsed and is durable
after the next write. A sensor that disconnects mid-message loses only that
message (logged with its SensorID, ResourceID, connection and byte offset);
malformed XML, a message above --max-message, --idle-timeout without a
message or a message not whole within --message-timeout close only that
connection. SIGINT or SIGTERM stop accepting, let open
connections deliver what they sent, write everything received and exit 0.

--rules FILE and --shipped SET (e.g. --shipped monitoring, the fuzzy
bandwidth states of Fig. 6.7) run the rules incrementally over every written
batch; new findings are logged, and with --http listed at /findings.

--http ADDR serves the SPARQL endpoint (and the rest of 'perfkb serve',
whose flags apply) from the same process, since the native store admits one
process at a time.`,
		Example: `  perfkb sensor-listen --store native:./kb --base http://perfkb.example/site/innsbruck/ --addr 127.0.0.1:8060
  perfkb sensor-listen --base http://perfkb.example/site/innsbruck/ --shipped monitoring --http 127.0.0.1:7878`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// --memory-limit (a serve flag) sets --max-queue and
			// --max-batch too, before they are read.
			if err := f.serve.applyMemoryLimit(cmd.Flags()); err != nil {
				return err
			}
			return runSensorListen(cmd.Context(), app, &f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8060", "address sensors connect to (host:port); loopback unless another interface is named")
	fs.StringVar(&f.base, "base", "", "base IRI of the stored data (required; absolute, ending in / or #)")
	fs.StringVar(&f.graph, "graph", "", "graph receiving the data (default: --base without its trailing / or #)")
	fs.StringVar(&f.manager, "manager", "default", "key of this Sensor Manager (<base>sensormanager/KEY)")
	fs.StringArrayVar(&f.ruleFiles, "rules", nil, "rule file run over every written batch (repeatable)")
	fs.StringSliceVar(&f.shipped, "shipped", nil, "shipped rule sets run over every written batch, e.g. monitoring or perfonto,monitoring")
	fs.StringArrayVar(&f.defines, "define", nil, "override a named rule constant, NAME=VALUE (repeatable), e.g. BW_VERYLOW_B=10")
	fs.IntVar(&f.batch, "batch", 1000, "most messages per write")
	fs.DurationVar(&f.flushInterval, "flush-interval", 500*time.Millisecond, "longest time a received message waits to be written")
	fs.IntVar(&f.maxConns, "max-conns", 256, "most sensor connections at once; a new one evicts the one longest without a complete message (at least --evict-after), else is closed at once")
	fs.DurationVar(&f.evictAfter, "evict-after", 10*time.Second, "a connection that completed no message for this long may be evicted for a new one at --max-conns")
	f.listen.bind(fs, listenerDefaults{maxMessage: "1MiB",
		messageFlag: "message-timeout", messageUsage: "close a connection whose message is not whole this long after its first byte",
		idleUsage: "close a connection that begins no message (or sends nothing inside one) for this long"})
	fs.StringVar(&f.maxBatch, "max-batch", "16MiB", "most parsed bytes of messages converted in one batch (bytes, or with KiB, MiB, KB, MB)")
	fs.Float64Var(&f.writeShare, "write-share", 0.25, "most share of the time the writer spends storing batches of large messages (the next such batch waits three times as long at 0.25, at most 15s; small messages are written meanwhile), so floods leave processors to queries; 1: no rest")
	fs.StringVar(&f.largeRate, "large-message-rate", "256KiB", "bytes per second, over all connections, at which the bytes of messages past their first 64 KiB are read (bytes, or with KiB, MiB, KB, MB; 0: no bound), so that a few connections sending the largest messages cannot keep the processors parsing")
	fs.BoolVar(&f.noDerivations, "no-derivations", false, "with rules: write no derivation records (faster; no explanations of live findings)")
	fs.Int64Var(&f.rulesWindow, "rules-window", 0, "with rules: the rules see the last N messages (up to 2N are held) besides what was stored before; older ones leave the rule engine's memory, not the store (right for per-message rules such as the shipped monitoring ones; 0: keep everything, memory grows with the data)")
	fs.StringVar(&f.http, "http", "", "also serve SPARQL and the rest of 'perfkb serve' on this address (e.g. 127.0.0.1:7878)")
	// Bound before the serve flags, so --validate and --shapes apply to
	// sensor messages and --http's Graph Store writes alike.
	f.push.bind(fs, "sensor messages (each batch; when it fails, each message alone) and --http's Graph Store writes")
	// The serve flags, except --addr, which --http replaces.
	serveFS := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	f.serve.bind(serveFS)
	serveFS.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "addr" && fs.Lookup(fl.Name) == nil {
			fl.Usage = "with --http: " + fl.Usage
			fs.AddFlag(fl)
		}
	})
	return cmd
}

func runSensorListen(ctx context.Context, app *App, f *sensorListenFlags) error {
	start := time.Now()
	if f.base == "" {
		return usageError(errors.New("--base is required: the base IRI of the stored data, e.g. --base http://perfkb.example/site/innsbruck/"))
	}
	base, err := convert.ParseBase(f.base)
	if err != nil {
		return usageError(err)
	}
	graph := base.Graph()
	if f.graph != "" {
		if graph, err = parseGraphIRI(f.graph); err != nil {
			return usageError(err)
		}
	}
	f.serve.resolveToken()
	limits, _, err := f.listen.limits("message-timeout", graph, f.serve.token)
	if err != nil {
		return err
	}
	// --tokens-file is the listener's and, with --http, the endpoint's.
	f.serve.exposure.tokensFile = f.listen.tokensFile
	maxBatch, err := parseByteSize(f.maxBatch)
	if err == nil && maxBatch <= 0 {
		err = errors.New("must be positive")
	}
	if err != nil {
		return usageError(fmt.Errorf("--max-batch %q: %w", f.maxBatch, err))
	}
	largeRate, err := parseByteSize(f.largeRate)
	if err == nil && largeRate < 0 {
		err = errors.New("must not be negative")
	}
	if err != nil {
		return usageError(fmt.Errorf("--large-message-rate %q: %w", f.largeRate, err))
	}
	if largeRate == 0 {
		largeRate = -1 // monitor.SensorOptions: negative is no bound
	}
	switch {
	case f.writeShare <= 0:
		return usageError(errors.New("--write-share must be positive (1: no rest)"))
	case f.batch <= 0:
		return usageError(errors.New("--batch must be positive"))
	case f.rulesWindow < 0:
		return usageError(errors.New("--rules-window must not be negative"))
	case f.maxConns <= 0:
		return usageError(errors.New("--max-conns must be positive"))
	case f.flushInterval <= 0:
		return usageError(errors.New("--flush-interval must be positive"))
	case f.evictAfter <= 0:
		return usageError(errors.New("--evict-after must be positive"))
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageError(fmt.Errorf("--addr %q: %v", f.addr, err))
	}
	sources := append([]string(nil), f.ruleFiles...)
	for _, s := range f.shipped {
		if _, _, ok := rules.Lookup(s); !ok {
			return usageError(fmt.Errorf("--shipped %q: no such rule set (have %s)", s, strings.Join(rules.Names(), ", ")))
		}
		sources = append(sources, s)
	}
	var prog *reasoner.Program
	if len(sources) > 0 {
		var err error
		if prog, err = loadRuleProgram(sources, f.defines); err != nil {
			return err
		}
	} else if len(f.defines) > 0 {
		return usageError(errors.New("--define needs --rules or --shipped"))
	}
	if err := f.push.validate(); err != nil {
		return err
	}
	f.serve.push = f.push
	var logger *slog.Logger
	if f.http != "" {
		f.serve.addr = f.http
		f.serve.resolveToken()
		if err := f.serve.validate(); err != nil {
			return err
		}
	}
	if logger, err = f.serve.logger(app.Stderr); err != nil {
		return err
	}
	f.serve.memoryPlan.log(logger)

	if f.http != "" {
		// The endpoint is a server like serve's: the runtime tuned as
		// serve tunes it (a spare processor for light queries, the
		// collector's pace).
		f.serve.long.tuneRuntime(ctx, logger, f.serve.memoryPlan.soft)
	}
	ds, err := app.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer ds.Close()
	if f.http != "" {
		// serve's --memory (the native store's read indexes) and --pprof
		// apply to the endpoint too.
		stop, err := f.serve.speed.apply(ctx, ds, logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("sensor-listen: %w", err)
	}
	opt := monitor.SensorOptions{
		Base: base, Graph: graph, Mapper: sensor.Options{Manager: f.manager},
		Batch: f.batch, FlushInterval: f.flushInterval, ListenerLimits: limits, MaxBatchBytes: maxBatch, WriteShare: f.writeShare, LargeMessageRate: largeRate,
		MaxConns: f.maxConns, Program: prog,
		Reasoner: reasoner.Options{Print: app.Stderr, NoDerivations: f.noDerivations}, Logger: logger,
		RulesWindow: f.rulesWindow, EvictAfter: f.evictAfter,
	}
	if f.http != "" {
		// Large messages are parsed in the endpoint's heavy query slots
		// (backend.Admission.Bulk): a flood of them leaves a core to the
		// queries.
		adm := f.serve.long.scheduler()
		f.serve.long.built = adm
		opt.ParseGate = func() func() {
			release, err := adm.Bulk(ctx)
			if err != nil {
				return func() {}
			}
			return release
		}
		// So are their conversion to triples and their store writes.
		opt.LargeWriteGate = opt.ParseGate
	}
	if f.push.checked.Mode != server.ValidateOff {
		shapes, err := f.push.shapesOrDefault(ctx)
		if err != nil {
			return err
		}
		opt.Check = sensorCheck(shapes, f.push.checked.Mode, logger)
	}
	if prog != nil {
		fmt.Fprintf(app.Stdout, "sensor-listen: reading the store for %d rules…\n", prog.Len())
	}
	l, err := monitor.NewSensorListener(ctx, ds, opt)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(app.Stdout, "sensor-listen: receiving sensor data on %s into graph <%s> of %s\n", ln.Addr(), graph.Value, app.StoreSpec)

	var wg sync.WaitGroup
	httpErr := make(chan error, 1)
	if f.http != "" {
		srv := newHTTPServer(ctx, ds, f.serve, logger)
		wg.Add(1)
		go func() {
			defer wg.Done()
			httpErr <- srv.ListenAndServe(ctx, f.http, func(addr net.Addr) {
				url := "http://" + addr.String()
				fmt.Fprintf(app.Stdout, "sensor-listen: SPARQL endpoint at %s/sparql, findings at %s/findings\n", url, url)
			})
		}()
	}
	status := startSensorStatus(app, l)
	err = l.Serve(ctx, ln)
	status()
	wg.Wait()
	if err == nil {
		select {
		case herr := <-httpErr:
			if herr != nil {
				err = fmt.Errorf("sensor-listen: HTTP server: %w", herr)
			}
		default:
		}
	}
	st := l.Stats()
	fmt.Fprintf(app.Stdout, "sensor-listen: received %d messages on %d connections, stored %d (%d triples) in graph <%s>, %d findings; %d partial, %d refused, %d connections closed for bad data, %d idle, %d rejected; %s\n",
		st.Received, st.Connections, st.Stored, st.Triples, graph.Value, st.Findings, st.Partial, st.Invalid, st.Malformed, st.Idle, st.Rejected, time.Since(start).Round(time.Millisecond))
	if err != nil {
		return err
	}
	return ds.Close()
}

// startSensorStatus draws a status line on a terminal (connections,
// messages/s, stored, findings) until the returned stop is called.
func startSensorStatus(app *App, l *monitor.SensorListener) (stop func()) {
	if !app.IsTerminal(app.Stderr) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		last, lastAt := int64(0), time.Now()
		for {
			select {
			case <-done:
				fmt.Fprint(app.Stderr, "\r\033[K")
				return
			case now := <-t.C:
				st := l.Stats()
				rate := float64(st.Received-last) / now.Sub(lastAt).Seconds()
				last, lastAt = st.Received, now
				fmt.Fprintf(app.Stderr, "\r\033[Ksensor-listen: %d connections, %.0f messages/s, %s received, %s stored, %d findings",
					st.Open, rate, humanCount(st.Received), humanCount(st.Stored), st.Findings)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
