// Package otlp is perfkb's OpenTelemetry receiver: an OTLP/HTTP server
// (POST /v1/traces and /v1/metrics, protobuf or JSON, optionally
// gzip-compressed) that maps what services around the jobs send with
// convert/otlp's Mapper and writes it to a kb.Dataset in group-committed
// batches. A request is answered 200 only after its statements are
// written, so an acknowledged span is durable; IRIs come from trace and
// span ids, so a span the client resends is stored once.
//
// Limits, as perfkb sensor-listen has them: a largest request
// (MaxMessage, compressed and decompressed), a byte-bounded queue of
// mapped requests waiting for the writer (MaxQueueBytes; a request that
// finds no room within QueueWait is answered 503, which OTLP clients
// retry), a whole-request read timeout and an idle timeout for kept-alive
// connections. Every request needs the bearer token (Options.Token);
// without one configured, writes are refused, as perfkb serve refuses
// them.
package otlp

import (
	"compress/gzip"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/perfkb/perfkb/convert"
	cotlp "github.com/perfkb/perfkb/convert/otlp"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/monitor"
)

// Options configure a Receiver.
type Options struct {
	Base convert.Base
	// Graph receives the data.
	Graph kb.Term
	// Experiment is the experiment IRI (default <base>exp/otlp).
	Experiment string
	// Token is the bearer token every request must carry; empty refuses
	// all writes. With ListenerLimits.Authorize, a request may carry
	// either it or a token Authorize accepts.
	Token string
	// ListenerLimits: MaxMessage bounds a request body, compressed and
	// decompressed (default 4 MiB); MaxQueueBytes the mapped requests
	// waiting to be written (default 256 MiB); MessageTimeout reading a
	// whole request (default 1 min); IdleTimeout closes kept-alive
	// connections idle this long (default 5 min). Negative timeouts:
	// none.
	monitor.ListenerLimits
	// QueueWait is how long a request waits for room in the queue before
	// it is answered 503 (default 5 s).
	QueueWait time.Duration
	// Batch bounds the statements of one write (default 200000); requests
	// arriving while one is written are written together.
	Batch int
	// DrainTimeout bounds the wait for requests in flight at shutdown
	// (default 30 s).
	DrainTimeout time.Duration
	Logger       *slog.Logger
}

// Stats are the receiver's counters.
type Stats struct {
	Requests    int64 // answered, any status
	Refused     int64 // 401, 404, 405, 413, 415 or 503
	Invalid     int64 // 400: not OTLP, or data the mapping refuses
	Spans       int64 // spans written
	Points      int64 // metric data points written
	Triples     int64 // statements written (before the store drops duplicates)
	Writes      int64 // store writes (batches)
	QueuedBytes int64 // mapped bytes waiting for the writer
}

// Receiver is an OTLP/HTTP receiver writing to a dataset.
type Receiver struct {
	ds     kb.Dataset
	opt    Options
	mapper *cotlp.Mapper
	log    *slog.Logger
	queue  chan *job
	sem    *semaphore.Weighted
	wg     sync.WaitGroup // the writer
	closed atomic.Bool
	mu     sync.Mutex // guards closing the queue against senders
	stats  struct{ requests, refused, invalid, spans, points, triples, writes, queued atomic.Int64 }
}

type job struct {
	quads  []kb.Quad
	size   int64
	spans  int
	points int
	done   chan error
}

// New returns a receiver writing to ds and starts its writer; Serve
// (or ServeHTTP from another server, then Close) runs it.
func New(ds kb.Dataset, opt Options) (*Receiver, error) {
	if opt.Base.IsZero() {
		return nil, errors.New("otlp: a base IRI is required")
	}
	if opt.Graph.IsZero() {
		opt.Graph = opt.Base.Graph()
	}
	if opt.Experiment == "" {
		opt.Experiment = opt.Base.IRI("exp", "otlp").Value
	}
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&opt.MaxMessage, 4<<20)
	def(&opt.MaxQueueBytes, 256<<20)
	defd := func(v *time.Duration, d time.Duration) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = 0 // http.Server: no limit
		}
	}
	defd(&opt.QueueWait, 5*time.Second)
	defd(&opt.MessageTimeout, time.Minute)
	defd(&opt.IdleTimeout, 5*time.Minute)
	defd(&opt.DrainTimeout, 30*time.Second)
	if opt.Batch <= 0 {
		opt.Batch = 200000
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Receiver{ds: ds, opt: opt, log: opt.Logger, mapper: &cotlp.Mapper{Base: opt.Base, Experiment: opt.Experiment},
		queue: make(chan *job, 1024), sem: semaphore.NewWeighted(opt.MaxQueueBytes)}
	r.wg.Add(1)
	go r.writer()
	return r, nil
}

// Stats returns the counters.
func (r *Receiver) Stats() Stats {
	s := &r.stats
	return Stats{Requests: s.requests.Load(), Refused: s.refused.Load(), Invalid: s.invalid.Load(), Spans: s.spans.Load(),
		Points: s.points.Load(), Triples: s.triples.Load(), Writes: s.writes.Load(), QueuedBytes: s.queued.Load()}
}

// Serve answers OTLP/HTTP requests on ln until ctx is done, then stops
// accepting, lets requests in flight finish (DrainTimeout), writes what
// they sent and returns.
func (r *Receiver) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: r.opt.MessageTimeout,
		IdleTimeout: r.opt.IdleTimeout, ErrorLog: slog.NewLogLogger(r.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), r.opt.DrainTimeout)
		err = srv.Shutdown(sctx)
		cancel()
		<-errc
	case err = <-errc:
	}
	r.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Close stops the writer after it has written everything queued.
func (r *Receiver) Close() {
	r.mu.Lock()
	if !r.closed.Swap(true) {
		close(r.queue)
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Receiver) fail(w http.ResponseWriter, code int, counter *atomic.Int64, format string, args ...any) {
	counter.Add(1)
	msg := fmt.Sprintf(format, args...)
	http.Error(w, msg, code)
}

// ServeHTTP implements http.Handler.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.stats.requests.Add(1)
	var signal string
	switch req.URL.Path {
	case "/v1/traces":
		signal = "traces"
	case "/v1/metrics":
		signal = "metrics"
	default:
		r.fail(w, http.StatusNotFound, &r.stats.refused, "otlp: %s: only /v1/traces and /v1/metrics are received", req.URL.Path)
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		r.fail(w, http.StatusMethodNotAllowed, &r.stats.refused, "otlp: %s needs POST", req.URL.Path)
		return
	}
	if !r.authorized(req) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="perfkb"`)
		r.fail(w, http.StatusUnauthorized, &r.stats.refused, "otlp: a valid bearer token is required to write")
		return
	}
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	var enc cotlp.Encoding
	switch mt {
	case "application/x-protobuf", "application/protobuf":
		enc = cotlp.Protobuf
	case "application/json":
		enc = cotlp.JSON
	default:
		r.fail(w, http.StatusUnsupportedMediaType, &r.stats.refused, "otlp: Content-Type %q: want application/x-protobuf or application/json", mt)
		return
	}
	body, code, err := r.readBody(w, req)
	if err != nil {
		r.fail(w, code, &r.stats.refused, "otlp: %v", err)
		return
	}
	source := "otlp " + req.RemoteAddr
	// The terms of each statement, S, P, O, G, as the store's Intern
	// takes them: interned here, on the request's goroutine, so that
	// requests intern in parallel and the writer, which serialises the
	// writes, queues and copies 32-byte ID quads.
	var terms []kb.Term
	var size int64
	emit := func(s, p, o kb.Term) error {
		terms = append(terms, s, p, o, r.opt.Graph)
		size += int64(len(s.Value)+len(p.Value)+len(o.Value)) + 64
		return nil
	}
	j := &job{done: make(chan error, 1)}
	if signal == "traces" {
		td, derr := cotlp.DecodeTraces(body, enc, source, req.URL.Path)
		if derr == nil {
			// Room for the statements at once: grown by doubling, the
			// slice of terms (pointers, so copied with write barriers)
			// cost about a tenth of the receiver's CPU time.
			terms = make([]kb.Term, 0, 4*td.SpanCount()*statementsPerSpan)
			j.spans, derr = r.mapper.Traces(req.Context(), td, source, emit)
		}
		err = derr
	} else {
		md, derr := cotlp.DecodeMetrics(body, enc, source, req.URL.Path)
		if derr == nil {
			j.points, derr = r.mapper.Metrics(req.Context(), md, source, emit)
		}
		err = derr
	}
	if err != nil {
		r.log.Warn("otlp request refused", "remote", req.RemoteAddr, "error", err.Error())
		r.fail(w, http.StatusBadRequest, &r.stats.invalid, "%v", err)
		return
	}
	if size > r.opt.MaxQueueBytes {
		r.fail(w, http.StatusRequestEntityTooLarge, &r.stats.refused, "otlp: the request maps to %d bytes, more than the queue holds (%d)", size, r.opt.MaxQueueBytes)
		return
	}
	wctx, cancel := context.WithTimeout(req.Context(), r.opt.QueueWait)
	err = r.sem.Acquire(wctx, size)
	cancel()
	if err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(max(1, r.opt.QueueWait/time.Second))))
		r.fail(w, http.StatusServiceUnavailable, &r.stats.refused, "otlp: the write queue is full; retry later")
		return
	}
	r.stats.queued.Add(size)
	// Interned only once the request has room in the queue, so that the
	// requests an overloaded receiver refuses add no terms to the
	// dictionary.
	if j.quads, err = r.intern(req.Context(), terms); err != nil {
		r.sem.Release(size)
		r.stats.queued.Add(-size)
		r.log.Error("otlp interning failed", "error", err.Error())
		r.fail(w, http.StatusInternalServerError, &r.stats.refused, "otlp: interning: %v", err)
		return
	}
	j.size = size
	r.mu.Lock()
	if r.closed.Load() {
		r.mu.Unlock()
		r.sem.Release(size)
		r.stats.queued.Add(-size)
		r.fail(w, http.StatusServiceUnavailable, &r.stats.refused, "otlp: shutting down")
		return
	}
	r.queue <- j
	r.mu.Unlock()
	if err := <-j.done; err != nil {
		r.log.Error("otlp write failed", "error", err.Error())
		r.fail(w, http.StatusInternalServerError, &r.stats.refused, "otlp: writing: %v", err)
		return
	}
	// An empty Export*ServiceResponse: full success.
	if enc == cotlp.JSON {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (r *Receiver) authorized(req *http.Request) bool {
	tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	if r.opt.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(r.opt.Token)) == 1 {
		return true
	}
	if r.opt.Authorize != nil {
		_, ok := r.opt.Authorize(tok)
		return ok
	}
	return false
}

// readBody reads the request body, gunzipping it, within MaxMessage.
func (r *Receiver) readBody(w http.ResponseWriter, req *http.Request) ([]byte, int, error) {
	limit := r.opt.MaxMessage
	var rd io.Reader = http.MaxBytesReader(w, req.Body, limit)
	switch req.Header.Get("Content-Encoding") {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, http.StatusBadRequest, fmt.Errorf("gzip: %w", err)
		}
		rd = io.LimitReader(zr, limit+1)
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("Content-Encoding %q: want gzip or none", req.Header.Get("Content-Encoding"))
	}
	body, err := io.ReadAll(rd)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe) || int64(len(body)) > limit:
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("request larger than %d bytes", limit)
	case err != nil:
		return nil, http.StatusBadRequest, fmt.Errorf("reading the request: %w", err)
	}
	return body, 0, nil
}

// statementsPerSpan is about how many statements the mapping writes for
// one span (18.5 for the spans of BenchmarkIngest: instance, summary,
// times, parent, attributes).
const statementsPerSpan = 20

// writer writes queued requests: what is waiting when a write starts is
// written together (group commit), up to Batch statements.
func (r *Receiver) writer() {
	defer r.wg.Done()
	ctx := context.Background()
	for first := range r.queue {
		jobs := []*job{first}
		n := len(first.quads)
	more:
		for n < r.opt.Batch {
			select {
			case j, ok := <-r.queue:
				if !ok {
					break more
				}
				jobs = append(jobs, j)
				n += len(j.quads)
			default:
				break more
			}
		}
		all := make([]kb.Quad, 0, n)
		var size int64
		for _, j := range jobs {
			all = append(all, j.quads...)
			size += j.size
		}
		err := r.ds.Apply(ctx, kb.Delta{Add: all})
		if err == nil {
			r.stats.writes.Add(1)
			r.stats.triples.Add(int64(len(all)))
			for _, j := range jobs {
				r.stats.spans.Add(int64(j.spans))
				r.stats.points.Add(int64(j.points))
			}
		}
		r.sem.Release(size)
		r.stats.queued.Add(-size)
		for _, j := range jobs {
			j.done <- err
		}
	}
}

// intern returns the ID quads of terms (S, P, O, G of each statement).
func (r *Receiver) intern(ctx context.Context, terms []kb.Term) ([]kb.Quad, error) {
	ids, err := r.ds.Intern(ctx, terms)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	quads := make([]kb.Quad, len(terms)/4)
	for i := range quads {
		quads[i] = kb.Quad{S: ids[4*i], P: ids[4*i+1], O: ids[4*i+2], G: ids[4*i+3]}
	}
	return quads, nil
}
