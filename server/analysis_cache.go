package server

import (
	"context"
	"errors"
	"sync"

	"github.com/gin-gonic/gin"
)

// The workbench's slow views read answers that change only when the data
// does: the scaling table and the call-path differences of the analysis
// service (which read every experiment of the store) and the findings
// list. With Server.CacheViews they are kept per write generation, a
// counter of the writes this server has taken: a write that the token
// authorises moves it on when it starts and again when it ends, and an
// answer is kept only if no write started or was in flight while it was
// computed. Writes that bypass the server (another process on a shared
// store, a program writing to the kb.Dataset it serves) are not seen,
// unless the store tells of them (kb.ChangeNotifier, Server.WatchStore:
// PostgreSQL), so only a server that owns its store, or watches it, should
// cache.

// writingKey marks a request that was authorised to write (its end moves
// the generation on).
const writingKey = "perfkb.writing"

// writeGeneration counts the server's writes.
type writeGeneration struct {
	mu       sync.Mutex
	gen      uint64
	inFlight int
}

func (g *writeGeneration) begin() {
	g.mu.Lock()
	g.gen++
	g.inFlight++
	g.mu.Unlock()
}

func (g *writeGeneration) end() {
	g.mu.Lock()
	g.gen++
	g.inFlight--
	g.mu.Unlock()
}

// current returns the generation and whether no write is in flight.
func (g *writeGeneration) current() (uint64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gen, g.inFlight == 0
}

// markWrite is called by authorize when a request may write: once per
// request, the generation moves on.
func (s *Server) markWrite(c *gin.Context) {
	if c.GetBool(writingKey) {
		return
	}
	c.Set(writingKey, true)
	s.writeGen.begin()
}

// countWrites moves the generation on again when a writing request ends.
func (s *Server) countWrites(c *gin.Context) {
	c.Next()
	if c.GetBool(writingKey) {
		s.writeGen.end()
	}
}

// Generation reports the write generation of the store a request reads:
// now returns the current generation and whether it is settled (no write
// in flight). Services keep what they computed for a generation and reuse
// it while now still returns it, settled.
type Generation interface {
	Now() (gen uint64, settled bool)
}

type genKey struct{}

func (g *writeGeneration) Now() (uint64, bool) { return g.current() }

// GenerationOf returns the write generation a caching server attached to
// the request's context, or false when the answer must be computed afresh
// (the server does not cache, or the caller is not the server).
func GenerationOf(ctx context.Context) (Generation, bool) {
	g, ok := ctx.Value(genKey{}).(Generation)
	return g, ok
}

// viewContext attaches the write generation to ctx when the server caches.
func (s *Server) viewContext(ctx context.Context) context.Context {
	if !s.cacheViews.Load() {
		return ctx
	}
	return context.WithValue(ctx, genKey{}, &s.writeGen)
}

// CacheViews makes the server keep the answers of /analysis/scaling,
// /analysis/diff and /findings per write generation (see the comment at
// the top of analysis_cache.go): only for a server whose store no one else
// writes to, or that follows the others' writes (WatchStore).
func (s *Server) CacheViews() { s.cacheViews.Store(true) }

// Starting marks start-up work that runs beside the first requests (such
// as WarmViews) until the returned func is called (once; later calls do
// nothing): meanwhile /healthz answers "starting": true. The server
// answers requests all the while; the mark tells a client that its
// figures would include that work.
func (s *Server) Starting() (done func()) {
	s.starting.Add(1)
	var once sync.Once
	return func() { once.Do(func() { s.starting.Add(-1) }) }
}

// AnalysisWarmer is implemented by an AnalysisService that can compute
// what its read routes serve ahead of the first request.
type AnalysisWarmer interface {
	Warm(ctx context.Context) error
}

// WarmViews computes the cached views (the analysis service's results and
// the findings list) so that the first page to open them does not wait. It
// returns when they are computed or ctx ends; the server must cache
// (CacheViews).
func (s *Server) WarmViews(ctx context.Context) error {
	ctx = s.viewContext(ctx)
	if w, ok := s.opts.Analysis.(AnalysisWarmer); ok {
		if err := w.Warm(ctx); err != nil {
			return err
		}
	}
	if s.opts.Rules != nil {
		if _, err := s.cachedFindings(ctx, FindingFilter{}); err != nil {
			return err
		}
	}
	return nil
}

// GenCache keeps one value per key for a write generation; computations of
// the same key and generation run once, and the callers of a running one
// wait for it. It is the cache behind the services' Generation-keyed
// answers.
type GenCache[T any] struct {
	mu      sync.Mutex
	entries map[string]*genEntry[T]
	// Max bounds the keys kept (0: 64); beyond it, the oldest generation's
	// entries are dropped first, then all.
	Max int
}

type genEntry[T any] struct {
	gen  uint64
	done chan struct{}
	val  T
	err  error
}

// Get returns key's value for the request's generation (GenerationOf), or
// computes it. Without a generation, or while a write is in flight, it
// just computes. Callers of a key that is being computed wait for it; when
// that computation ends because its own request did (its context's
// error), a waiter whose context is still live computes it itself.
func (c *GenCache[T]) Get(ctx context.Context, key string, compute func(context.Context) (T, error)) (T, error) {
	g, ok := GenerationOf(ctx)
	if !ok {
		return compute(ctx)
	}
	for {
		gen, settled := g.Now()
		if !settled {
			return compute(ctx)
		}
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]*genEntry[T]{}
		}
		if e, ok := c.entries[key]; ok && e.gen == gen {
			c.mu.Unlock()
			select {
			case <-e.done:
			case <-ctx.Done():
				var zero T
				return zero, ctx.Err()
			}
			if e.err != nil && ctx.Err() == nil && (errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
				continue // another request's end, not this one's
			}
			return e.val, e.err
		}
		c.evict(gen)
		e := &genEntry[T]{gen: gen, done: make(chan struct{})}
		c.entries[key] = e
		c.mu.Unlock()

		e.val, e.err = compute(ctx)
		if now, settled := g.Now(); e.err != nil || now != gen || !settled {
			c.mu.Lock()
			if c.entries[key] == e {
				delete(c.entries, key)
			}
			c.mu.Unlock()
		}
		close(e.done)
		return e.val, e.err
	}
}

// evict makes room for one more entry; c.mu is held.
func (c *GenCache[T]) evict(gen uint64) {
	max := c.Max
	if max <= 0 {
		max = 64
	}
	if len(c.entries) < max {
		return
	}
	for k, e := range c.entries {
		if e.gen != gen {
			delete(c.entries, k)
		}
	}
	if len(c.entries) >= max {
		clear(c.entries)
	}
}
