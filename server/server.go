package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gin-contrib/gzip"
	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/rules"
)

// Defaults for Options fields left zero.
const (
	DefaultAddr          = "127.0.0.1:7878"
	DefaultTimeout       = 30 * time.Second
	DefaultRuleTimeout   = 10 * time.Minute
	DefaultMaxBody       = 64 << 20
	DefaultMaxConcurrent = 64
	DefaultQueueWait     = 2 * time.Second
	DefaultShutdownGrace = 15 * time.Second
)

// Options configure a Server. Services left nil answer 501 "not available
// yet" on the endpoints that need them.
type Options struct {
	Query    QueryService
	Graphs   GraphStore
	Rules    RuleService
	Sites    SiteService
	Store    StoreStats
	Analysis AnalysisService // perfkb analyze over HTTP (server/analysis.go); nil: 501

	// Logger receives one structured line per request; nil discards.
	Logger *slog.Logger

	// Token is the bearer token writes need (SPARQL Update, Graph Store
	// writes, rule runs). With no token, writes are refused.
	Token string
	// ProtectReads makes reads need a token too: requests without one
	// read nothing. A tokens file's "anonymous" entry (Access) says
	// instead which graphs they may read; the two do not go together.
	ProtectReads bool
	// Access, when set, holds the users of a tokens file, each with the
	// graphs it may read and write and the sites it may call (access.go,
	// docs/access.md); Token stays a token for everything.
	Access *Access

	// Timeout bounds each request's work (DefaultTimeout when zero; a
	// negative value disables it). A request may ask for less with the
	// timeout parameter.
	Timeout time.Duration
	// RuleTimeout bounds rule runs, which materialise a whole store and
	// take longer than queries (DefaultRuleTimeout when zero; negative:
	// no limit).
	RuleTimeout time.Duration
	// MaxBody caps request bodies in bytes (DefaultMaxBody when zero).
	MaxBody int64
	// BodyMemory bounds the bytes of the request bodies held whole at
	// once, server-wide (DefaultBodyMemory when zero; negative: no
	// bound): bodymemory.go.
	BodyMemory int64
	// MaxConcurrent caps the requests served at once on the data
	// endpoints (DefaultMaxConcurrent when zero).
	MaxConcurrent int
	// QueueWait is how long a request waits for a free slot before it is
	// refused with 503 (DefaultQueueWait when zero; negative: no wait).
	QueueWait time.Duration
	// ShutdownGrace is how long Serve waits for in-flight requests when
	// its context ends (DefaultShutdownGrace when zero).
	ShutdownGrace time.Duration
	// StallTimeout is how long a client may send or read nothing in the
	// middle of a request before the connection is cut
	// (DefaultStallTimeout when zero).
	StallTimeout time.Duration
	// MinBodyRate is the slowest, in bytes per second averaged over the
	// body, a request body may arrive once StallTimeout has passed
	// (DefaultMinBodyRate when zero; negative: no minimum).
	MinBodyRate int64
	// BodyTimeout bounds the time to receive a whole request body
	// (DefaultBodyTimeout when zero).
	BodyTimeout time.Duration

	// AllowedHosts are the names the Host header may carry ("*": any).
	// Nil means the listen address and, on loopback, the localhost names.
	AllowedHosts []string
	// CORSOrigins are the origins whose pages may call the endpoint; nil
	// or "*" allows every origin to read (never to write).
	CORSOrigins []string
	// PublicBase is the server's absolute base IRI (for minted graph names
	// and relative IRIs in requests); empty: http://LISTEN-ADDRESS.
	PublicBase string
	// ThreadPerQuery runs each SPARQL request on an OS thread of its own,
	// so that the query service can lower the priority of a query that
	// turns out to be long (LowerPriority; Linux only, elsewhere it has no
	// effect).
	ThreadPerQuery bool
	// Advice is advice per problem class from rule files the server was
	// started with (perfkb serve --advice), on top of the shipped rule
	// sets' (GET /rules/advice, server/advice.go).
	Advice []rules.Advice
	// ValidatePushes checks Graph Store writes against SHACL shapes
	// (server/pushvalidate.go); the zero value stores them unchecked.
	ValidatePushes PushValidation
}

func (o Options) withDefaults() Options {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.RuleTimeout == 0 {
		o.RuleTimeout = DefaultRuleTimeout
	}
	if o.BodyMemory == 0 {
		o.BodyMemory = DefaultBodyMemory
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.QueueWait == 0 {
		o.QueueWait = DefaultQueueWait
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.MinBodyRate == 0 {
		o.MinBodyRate = DefaultMinBodyRate
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Server is perfkb's HTTP endpoint. Create it with New; it is an
// http.Handler.
type Server struct {
	opts    Options
	engine  *gin.Engine
	metrics *metrics
	slots   chan struct{}
	readers chan struct{} // bodies being buffered before a slot is taken
	bodies  *bodyBudget   // bytes of the bodies held whole: bodymemory.go
	buffers bufferPool
	hosts   hostPolicy
	// publicBase is the absolute IRI of the server's root (a string),
	// from Options.PublicBase or the listen address.
	publicBase atomic.Value
	advice     adviceBook // advice per problem class for the page: advice.go
	// writeGen, cacheViews and findingsCache keep the slow views' answers
	// per write generation: analysis_cache.go.
	writeGen      writeGeneration
	cacheViews    atomic.Bool
	findingsCache GenCache[[]Finding]
	// starting counts start-up work still running (Starting): /healthz
	// says so, for a client that must not measure it.
	starting atomic.Int64
}

// New builds a Server and its routes.
func New(opts Options) *Server {
	opts = opts.withDefaults()
	s := &Server{
		opts:    opts,
		metrics: newMetrics(opts.Store),
		slots:   make(chan struct{}, opts.MaxConcurrent),
		readers: make(chan struct{}, bodyReaders*opts.MaxConcurrent),
		bodies:  newBodyBudget(opts.BodyMemory),
	}
	if opts.AllowedHosts != nil {
		s.hosts.set(opts.AllowedHosts)
	}
	if opts.PublicBase != "" {
		s.publicBase.Store(opts.PublicBase)
	}
	s.engine = s.routes()
	return s
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

func (s *Server) routes() *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.Use(s.recoverer, timed, requestID, s.requestLog, s.metrics.observe, s.countWrites, s.checkHost, s.hops, corsMiddleware(s.opts.CORSOrigins))
	compress := gzip.Gzip(gzip.BestSpeed)
	e.NoRoute(func(c *gin.Context) {
		respondError(c, newAPIError(ErrorNotFound, "no such endpoint: %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		c.Status(http.StatusMethodNotAllowed)
		c.AbortWithStatusJSON(http.StatusMethodNotAllowed, errorResponse{Status: "error", ErrorType: ErrorBadData,
			Error: fmt.Sprintf("method %s is not allowed on %s", c.Request.Method, c.Request.URL.Path)})
	})

	// The query page and operations: not limited.
	e.GET("/", s.page)
	e.HEAD("/", s.page)
	e.GET("/static/*file", compress, s.static)
	e.GET("/healthz", s.healthz)
	e.GET("/metrics", s.preauth, s.wholeStore, s.metrics.handler())
	e.GET("/findings/stream", s.preauth, s.wholeStore, s.findingsStream) // long-lived: no deadline, no slot, no gzip

	// Data endpoints: timeout, stall guard, token before body, body
	// limit, concurrency limit. A POST to /sparql reads its (bounded) body
	// before it takes a slot, so clients that stall while sending never
	// hold one.
	e.POST("/sparql", s.deadline, s.stallGuard, s.preauth, s.bodyLimit, s.textSize, s.bufferBody, s.limit, compress, tagClient, s.ownThread, s.sparqlPost)
	data := e.Group("/", s.deadline, s.stallGuard, s.preauth, s.bodyLimit, s.limit, compress)
	data.GET("/sparql", tagClient, s.ownThread, s.sparqlGet)
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete} {
		data.Handle(method, "/data", s.graphStore)
		data.Handle(method, "/data/*graph", s.graphStore) // direct graph identification
	}
	data.POST("/rules/run", s.wholeStore, withBodies(s.rulesRun))
	data.POST("/rules/check", withBodies(s.rulesCheck))
	data.GET("/findings", s.wholeStore, s.findings)
	data.GET("/explain", s.wholeStore, s.explain)
	data.GET("/sites", s.wholeStore, s.sites)
	data.POST("/sites", s.wholeStore, s.addSite)
	data.DELETE("/sites/:name", s.wholeStore, s.removeSite)
	data.POST("/sites/refresh", s.wholeStore, s.refreshSites)
	data.GET("/rules/advice", s.ruleAdvice)
	data.POST("/analysis/run", s.wholeStore, s.analysisRun)
	data.GET("/analysis/scaling", s.wholeStore, s.analysisScaling)
	data.GET("/analysis/diff", s.wholeStore, s.analysisDiff)
	data.GET("/analysis/tree", s.wholeStore, s.analysisTree)
	data.GET("/analysis/models", s.wholeStore, s.analysisModels)
	data.GET("/validate", s.wholeStore, s.validate)
	data.GET("/ontology", s.ontology)
	data.HEAD("/ontology", s.ontology)
	return e
}

// Serve serves HTTP on l until ctx ends, then shuts down gracefully: it
// stops accepting, lets in-flight requests finish (up to ShutdownGrace)
// and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	if s.opts.AllowedHosts == nil {
		s.hosts.set(defaultAllowedHosts(l.Addr()))
	}
	if s.opts.PublicBase == "" {
		s.publicBase.Store("http://" + l.Addr().String())
	}
	if ip := listenIP(l.Addr()); ip != nil && !ip.IsLoopback() && !s.anonymousScope().readsNothing() {
		s.opts.Logger.Warn("serving beyond loopback with open reads: anyone who can reach this address can query the graphs readable without a token; use --protect-reads (or a tokens file's \"anonymous\" entry) to limit them", "addr", l.Addr().String())
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
		ConnContext:       connContext,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(timedListener{l}) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.opts.Logger.Info("shutting down", "grace", s.opts.ShutdownGrace.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-errc; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

func listenIP(a net.Addr) net.IP {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}

// ListenAndServe listens on addr (DefaultAddr when empty), calls ready
// with the bound address (useful with port 0), and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	if addr == "" {
		addr = DefaultAddr
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	if ready != nil {
		ready(l.Addr())
	}
	return s.Serve(ctx, l)
}
