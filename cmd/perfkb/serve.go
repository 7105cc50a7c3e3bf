package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
	"github.com/perfkb/perfkb/server/graphstore"
)

func init() { register(newServeCmd) }

// tokenEnv names the environment variable that holds the write token.
const tokenEnv = "PERFKB_TOKEN"

// serveFlags are the HTTP server settings shared by serve and demo.
type serveFlags struct {
	addr          string
	token         string
	protectReads  bool
	timeout       time.Duration
	ruleTimeout   time.Duration
	maxBody       int64
	maxConcurrent int
	queueWait     time.Duration
	maxRows       int64
	logFormat     string
	logLevel      string
	exposure      exposureFlags        // --allowed-hosts, --cors-origins, --load-dir …: serve_limits.go
	speed         speedFlags           // --memory, --pprof: serve_speed.go
	fed           serveFederationFlags // --service-allow, --site-timeout: serve_sites.go
	rules         serveRulesFlags      // --rules-max-derived, --rules-memory …: serve_rules.go
	advice        adviceFlags          // --advice: serve_advice.go
	queryMemory   queryMemoryFlag      // --query-memory, --query-memory-total: query_budget.go
	long          longQueryFlags       // --long-query-after: serve_long.go
	push          pushValidateFlags    // --validate, --shapes: serve_validate.go
	memoryLimit   memoryLimitFlag      // --memory-limit: memory_limit.go
	memoryPlan    memoryPlan           // what --memory-limit set, for the log
	readStore     readStoreFlags       // --read-store, --read-wait: serve_readstore.go
}

func (f *serveFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.addr, "addr", server.DefaultAddr, "address to listen on (host:port); the default serves loopback only")
	fs.StringVar(&f.token, "token", "", "bearer token that writes need (default: $"+tokenEnv+"); without one, writes are refused")
	fs.BoolVar(&f.protectReads, "protect-reads", false, "require a token for reads too (a tokens file's \"anonymous\" entry can instead open some graphs to everyone)")
	fs.DurationVar(&f.timeout, "timeout", server.DefaultTimeout, "time limit of each request (queries, updates, uploads); 0: none")
	fs.DurationVar(&f.ruleTimeout, "rules-timeout", server.DefaultRuleTimeout, "time limit of a rule run (POST /rules/run)")
	fs.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes")
	fs.IntVar(&f.maxConcurrent, "max-concurrent", server.DefaultMaxConcurrent, "requests served at once; more wait --queue-wait, then get 503")
	fs.DurationVar(&f.queueWait, "queue-wait", server.DefaultQueueWait, "how long a request waits for a free slot")
	fs.Int64Var(&f.maxRows, "max-rows", 0, "largest query result in rows (0: no limit)")
	fs.StringVar(&f.logFormat, "log-format", "text", "request log format: text or json (on stderr)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.exposure.bind(fs)
	f.speed.bind(fs)
	f.fed.bind(fs)
	f.rules.bind(fs)
	f.advice.bind(fs)
	f.queryMemory.bindServe(fs)
	f.long.bind(fs)
	f.push.bind(fs, "Graph Store writes (PUT and POST to /data) and SPARQL updates (the quads each adds), each on its own beside PERFONTO")
	f.memoryLimit.bind(fs)
	f.readStore.bind(fs)
}

// applyMemoryLimit derives the unset budgets of fs from --memory-limit
// (memory_limit.go); call it before validate.
func (f *serveFlags) applyMemoryLimit(fs *pflag.FlagSet) error {
	p, err := f.memoryLimit.apply(fs)
	f.memoryPlan = p
	return err
}

// resolveToken fills the token from the environment when the flag is unset.
func (f *serveFlags) resolveToken() {
	if f.token == "" {
		f.token = os.Getenv(tokenEnv)
	}
}

func (f *serveFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, usageError(fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel))
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(f.logFormat) {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageError(fmt.Errorf("--log-format %q: want text or json", f.logFormat))
}

func (f *serveFlags) validate() error {
	switch {
	case f.maxBody <= 0:
		return usageError(fmt.Errorf("--max-body must be positive"))
	case f.maxConcurrent <= 0:
		return usageError(fmt.Errorf("--max-concurrent must be positive"))
	case f.timeout < 0 || f.ruleTimeout < 0:
		return usageError(fmt.Errorf("--timeout and --rules-timeout must not be negative (0 means no limit)"))
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageError(fmt.Errorf("--addr %q: %v", f.addr, err))
	}
	if err := f.fed.validate(); err != nil {
		return err
	}
	if err := f.rules.check(); err != nil {
		return err
	}
	if err := f.advice.validate(); err != nil {
		return err
	}
	if err := f.queryMemory.parse(); err != nil {
		return err
	}
	if err := f.long.validate(); err != nil {
		return err
	}
	if err := f.push.validate(); err != nil {
		return err
	}
	if err := f.exposure.validate(); err != nil {
		return err
	}
	if f.protectReads && f.exposure.access.HasAnonymous() {
		return usageError(fmt.Errorf("--protect-reads and the tokens file's \"anonymous\" entry both say what reads without a token see: keep one (--protect-reads is \"anonymous\": {\"read\": []})"))
	}
	return nil
}

// newHTTPServer wires the store, the query engine and the reasoner into a
// server; ctx bounds its background work (releasing mapped store pages).
func newHTTPServer(ctx context.Context, ds kb.Dataset, f serveFlags, logger *slog.Logger) *server.Server {
	gin.SetMode(gin.ReleaseMode)
	store := graphstore.New(ds)
	noLimitIfZero := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1 // the flags' 0 means no limit
		}
		return d
	}
	sites := backend.NewSites(store, ds, f.fed.siteTimeout)
	engine := &backend.QueryEngine{DS: ds, MaxRows: f.maxRows, Service: f.fed.serviceClient(sites.Registry, f.maxRows), Admission: f.long.scheduler(), Reads: f.readStore.router, Background: background}
	// Mapped store pages and free heap go back after a second idle.
	engine.ReleaseWhenIdle(ctx, time.Second)
	opts := server.Options{
		Query:         engine,
		Graphs:        store,
		Rules:         &backend.Reasoner{DS: ds, Options: f.rules.opts, Admission: engine.Admission},
		Analysis:      &backend.Analysis{DS: ds},
		Sites:         sites,
		Store:         store,
		Logger:        logger,
		Token:         f.token,
		ProtectReads:  f.protectReads,
		Timeout:       noLimitIfZero(f.timeout),
		RuleTimeout:   noLimitIfZero(f.ruleTimeout),
		MaxBody:       f.maxBody,
		MaxConcurrent: f.maxConcurrent,
		QueueWait:     f.queueWait,
		Advice:        f.advice.list,
		// Each query runs on an OS thread of its own (needed too for the
		// deprecated --long-query-nice). Measured with wrk (GROUP BY
		// crtype, 16 clients, 2 cores shared with other work): 1.7-3.3x
		// the requests/s and about 1.5x the requests per CPU-second of
		// running on the runtime's shared threads; the query's iterator
		// coroutines then switch on one thread.
		ThreadPerQuery: true,
	}
	opts.ValidatePushes = f.push.checked
	f.exposure.apply(&opts)
	f.queryMemory.apply(&opts)
	return server.New(opts)
}

func newServeCmd(app *App) *cobra.Command {
	var flags serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the store over HTTP: SPARQL 1.1 Protocol, Graph Store Protocol, rules and a query page",
		Long: `serve answers HTTP on --addr (loopback by default):

  /sparql         SPARQL 1.1 Protocol: queries (GET, POST form, POST
                  application/sparql-query) and updates (POST form update=,
                  application/sparql-update); JSON, XML, CSV, TSV results,
                  Turtle, N-Triples, N-Quads, RDF/XML or JSON-LD graphs; the
                  service description on GET without a query
  /data           Graph Store Protocol (?graph=IRI or ?default, or the
                  direct URL /data/NAME): GET, HEAD, PUT, POST (also
                  multipart/form-data), DELETE in N-Triples, Turtle,
                  N-Quads, RDF/XML, JSON-LD; an upload is atomic
  /rules/run      run the shipped rule sets or an uploaded rule file
  /rules/check    validate a rule file
  /findings       list findings (?problem=, ?experiment=, ?limit=)
  /explain        explain the findings about ?iri=
  /sites          the site registry
  /healthz, /metrics (Prometheus), and the query page at /

--rules FILE (repeatable; shipped set names too) keeps those rules in step
with every write: an insert derives what follows from it, a delete (DELETE,
DROP, CLEAR, a Graph Store DELETE or PUT) withdraws what no longer follows,
in the same store change, and /findings/stream clients hear of both at once.

Writes (updates, Graph Store writes, rule runs) need the bearer token from
--token or $PERFKB_TOKEN; reads are open unless --protect-reads. SIGINT or
SIGTERM stop the server after the requests in flight finish.`,
		Example: `  PERFKB_TOKEN=s3cret perfkb serve --store native:./perfkb.db
  perfkb serve --addr 127.0.0.1:8080 --timeout 10s --max-concurrent 32`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags.resolveToken()
			if err := flags.applyMemoryLimit(cmd.Flags()); err != nil {
				return err
			}
			if err := flags.validate(); err != nil {
				return err
			}
			logger, err := flags.logger(app.Stderr)
			if err != nil {
				return err
			}
			flags.memoryPlan.log(logger)
			flags.long.tuneRuntime(cmd.Context(), logger, flags.memoryPlan.soft)
			ctx := cmd.Context()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			closeReplica, err := flags.readStore.open(ctx, ds, logger)
			if err != nil {
				return err
			}
			defer closeReplica()
			stop, err := flags.speed.apply(ctx, ds, logger)
			if err != nil {
				return err
			}
			defer stop()
			if ds, err = flags.rules.liveStore(ctx, app, ds, logger); err != nil {
				return err
			}
			return serveUntilDone(ctx, app, ds, flags, logger, nil)
		},
	}
	flags.bind(cmd.Flags())
	return cmd
}

// serveUntilDone serves until ctx ends; ready, if set, runs once the
// listener is bound (after the URL is printed).
func serveUntilDone(ctx context.Context, app *App, ds kb.Dataset, flags serveFlags, logger *slog.Logger, ready func(url string)) error {
	srv := newHTTPServer(ctx, ds, flags, logger)
	base := ds
	if live, ok := ds.(*reasoner.Live); ok {
		live.SetOnChange(func(reasoner.Summary) { srv.FindingsChanged() })
		base = live.Dataset
	}
	// Other perfkb processes may write the same database: their writes
	// move the cached views on and wake the findings streams too.
	if n, ok := base.(kb.ChangeNotifier); ok {
		var wrote func()
		if flags.readStore.router != nil {
			wrote = flags.readStore.router.Wrote // a replica must catch up with it too
		}
		if err := srv.WatchStore(ctx, alsoOnChange(n, wrote)); err != nil {
			return err
		}
	}
	// The server owns the store, so the workbench's slow views (scaling
	// table, differences, findings) are kept per write generation and
	// computed once the listener is up, before a page asks for them.
	srv.CacheViews()
	// /healthz says "starting" from before the listener is bound until
	// the views are computed.
	warmDone := srv.Starting()
	defer warmDone()
	warmCtx, stopWarm := context.WithCancel(ctx)
	warmed := make(chan struct{})
	defer func() { stopWarm(); <-warmed }()
	var warmOnce sync.Once
	startWarm := func() {
		warmOnce.Do(func() {
			go func() {
				defer close(warmed)
				defer warmDone()
				if err := srv.WarmViews(warmCtx); err != nil && warmCtx.Err() == nil {
					logger.Warn("computing the workbench's views ahead of time failed; they are computed when asked", "err", err)
				}
			}()
		})
	}
	defer warmOnce.Do(func() { close(warmed) }) // never started: nothing to wait for
	err := srv.ListenAndServe(ctx, flags.addr, func(addr net.Addr) {
		startWarm()
		url := "http://" + addr.String()
		fmt.Fprintf(app.Stdout, "perfkb serving %s at %s/ (query page), %s/sparql (SPARQL endpoint)\n", app.StoreSpec, url, url)
		if flags.token == "" {
			fmt.Fprintf(app.Stdout, "writes are disabled: set $%s or --token to allow them\n", tokenEnv)
		}
		if ready != nil {
			ready(url)
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(app.Stdout, "perfkb: server stopped")
	return nil
}
